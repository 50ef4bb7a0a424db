// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
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

// TestConfigureCACerts: entries are filed by server name; an unknown map
// or entry makes that CA unknown (a connection needing it says so, and the
// server's ca_fingerprint is unknown at plan time), a null entry is no
// entry (the system roots).
func TestConfigureCACerts(t *testing.T) {
	t.Parallel()
	ca := testserver.UnrelatedCAPEM(t)
	m := types.MapValueMust(types.StringType, map[string]attr.Value{
		"main": types.StringValue(ca), "later": types.StringUnknown(), "none": types.StringNull(),
	})
	d := &providerData{caCerts: map[string]string{}, passwords: map[string]string{"later": "pw"}}
	var diags diag.Diagnostics
	configureCACerts(m, d, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	for _, c := range []struct {
		name, pem string
		known     bool
	}{{"main", ca, true}, {"later", "", false}, {"none", "", true}, {"other", "", true}} {
		if pem, known := d.caCert(c.name); pem != c.pem || known != c.known {
			t.Errorf("%s: (%d bytes, known %v), want (%d bytes, known %v)", c.name, len(pem), known, len(c.pem), c.known)
		}
	}
	_, err := d.connect(t.Context(), serverRef{Name: "later", Engine: "mysql", Host: "db", Port: 3306, Username: "a", TLS: "verify-full"})
	if err == nil || !strings.Contains(err.Error(), `the CA of server "later" is not known yet`) {
		t.Errorf("connect with an unknown CA: %v", err)
	}

	all := &providerData{caCerts: map[string]string{}}
	configureCACerts(types.MapUnknown(types.StringType), all, &diags)
	if _, known := all.caCert("main"); known {
		t.Error("an unknown ca_certs map gave a known CA")
	}
	if _, known := (*providerData)(nil).caCert("main"); known {
		t.Error("an unconfigured provider gave a known CA")
	}
}
