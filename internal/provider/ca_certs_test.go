// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// wrapped matches a phrase however terraform wraps it.
func wrapped(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }

// TestValidate_caCertMoved: a configuration that still sets the db_server's
// ca_cert is refused at validate time (no server), with the line to write in
// the provider block; a ca_certs value that is not PEM is refused too.
func TestValidate_caCertMoved(t *testing.T) {
	t.Parallel()
	server := func(extra string) string {
		return `
resource "tenantdb_db_server" "eu_west" {
  name     = "eu_west"
  engine   = "mysql"
  host     = "db.internal"
  username = "tenantdb_admin"
  tls      = "verify-full"
` + extra + `
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:   server(`  ca_cert  = "-----BEGIN CERTIFICATE-----"`),
				PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)` + wrapped(caCertMovedSummary) + `.*` + wrapped(`provider "tenantdb" {`) + `\s+` +
					wrapped(`ca_certs = { eu_west = file("${path.module}/ca.pem") }`)),
			},
			{
				Config:      `provider "tenantdb" {` + "\n" + `  ca_certs = { eu_west = "ca.pem" }` + "\n}\n" + server(""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid CA certificate.*holds\s+no\s+PEM\s+certificate`),
			},
			{
				Config:      `provider "tenantdb" {` + "\n" + `  ca_certs = { "Main" = "x" }` + "\n}\n" + server(""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`InvalidIdentifier: server name`),
			},
		},
	})
}
