// SPDX-License-Identifier: MPL-2.0

// Command terraform-provider-tenantdb serves the tenantdb Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

// version is set by goreleaser (-X main.version=...).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietSDKLogs()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tenantdb/tenantdb",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}

// quietSDKLogs turns the plugin SDK's own logging off when nobody asked for
// logs. Without a level the SDK logs every RPC at TRACE, JSON-encoding lines
// that Terraform then discards: at hundreds of tenants that is a measurable
// part of every plan. Any TF_LOG* setting leaves everything as it is.
func quietSDKLogs() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "TF_ACC_LOG") {
			return
		}
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		os.Setenv(v, "OFF")
	}
}
