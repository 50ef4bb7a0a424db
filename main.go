// SPDX-License-Identifier: MPL-2.0

// Command terraform-provider-tenantdb serves the tenantdb Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

// version is set by goreleaser (-X main.version=...).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	provider.QuietSDKLogs()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tenantdb/tenantdb",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
