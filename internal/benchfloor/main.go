// SPDX-License-Identifier: MPL-2.0

// Command benchfloor serves provider.NewFloor for the scale measurement
// (make bench-plan). It is never released.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

func main() {
	provider.QuietSDKLogs() // as the real provider does, for a fair floor
	err := providerserver.Serve(context.Background(), provider.NewFloor, providerserver.ServeOpts{
		Address: "registry.terraform.io/tenantdb/tenantdbfloor",
	})
	if err != nil {
		log.Fatal(err)
	}
}
