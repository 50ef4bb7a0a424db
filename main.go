// SPDX-License-Identifier: MPL-2.0

// Command terraform-provider-tenantdb serves the tenantdb Terraform provider.
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

// version is set at release time by goreleaser (.goreleaser.yml:
// -X main.version={{.Version}}). It is what the provider reports in its
// metadata and what -version prints, so a release binary can be checked
// without Terraform.
var version = "dev"

func main() {
	var debug, printVersion bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.BoolVar(&printVersion, "version", false, "print the provider version and exit")
	flag.Parse()
	if printVersion {
		fmt.Println(version)
		return
	}
	pluginserver.QuietSDKLogs()
	pluginserver.LimitMemory()

	if err := pluginserver.Serve(provider.Address, providerserver.NewProtocol6(provider.New(version)()), debug); err != nil {
		log.Fatal(err.Error())
	}
}
