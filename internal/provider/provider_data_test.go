// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAdminPasswordEnv(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"main":       "TENANTDB_ADMIN_PASSWORD_MAIN",
		"eu-west_1":  "TENANTDB_ADMIN_PASSWORD_EU_WEST_1",
		"db-2":       "TENANTDB_ADMIN_PASSWORD_DB_2",
		"a.b c":      "TENANTDB_ADMIN_PASSWORD_A_B_C",
		"ünï":        "TENANTDB_ADMIN_PASSWORD__N_",
		"prod_main9": "TENANTDB_ADMIN_PASSWORD_PROD_MAIN9",
	} {
		if got := AdminPasswordEnv(in); got != want {
			t.Errorf("AdminPasswordEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAdminPasswordLookup(t *testing.T) {
	t.Setenv("TENANTDB_ADMIN_PASSWORD_FROM_ENV", "env-secret")
	d := &providerData{passwords: map[string]string{"main": "config-secret", "both": "config-wins"}}
	t.Setenv("TENANTDB_ADMIN_PASSWORD_BOTH", "env-loses")
	for server, want := range map[string]string{"main": "config-secret", "from-env": "env-secret", "both": "config-wins"} {
		pw, err := d.adminPassword(server)
		if err != nil || pw.Reveal() != want {
			t.Errorf("adminPassword(%q) = %v, want the %s value", server, err, want)
		}
	}
	_, err := d.adminPassword("missing-one")
	if err == nil {
		t.Fatal("a missing password was not an error")
	}
	for _, want := range []string{`"missing-one"`, "admin_passwords", "TENANTDB_ADMIN_PASSWORD_MISSING_ONE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestMissingAdminPassword: terraform apply names the server and both ways
// to supply its password, before any connection is tried.
func TestMissingAdminPassword(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: `
resource "tenantdb_db_server" "main" {
  name     = "no-password-here"
  engine   = "postgres"
  host     = "127.0.0.1"
  port     = 1
  username = "tenantdb_admin"
}
`,
			ExpectError: regexp.MustCompile(`(?s)no admin password for server "no-password-here".*admin_passwords.*TENANTDB_ADMIN_PASSWORD_NO_PASSWORD_HERE`),
		}},
	})
}
