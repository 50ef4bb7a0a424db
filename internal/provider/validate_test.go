// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestValidate_noServer: bad input is refused at plan time with no server
// running (port 1 on loopback has nothing listening).
func TestValidate_noServer(t *testing.T) {
	t.Parallel()
	server := func(engine string) string {
		return fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name     = "offline"
  engine   = %q
  host     = "127.0.0.1"
  port     = 1
  username = "tenantdb_admin"
}
`, engine)
	}
	db := func(engine, name, extra string) string {
		return server(engine) + fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server = tenantdb_db_server.main.ref
  name   = %q
%s
}
`, name, extra)
	}
	cases := []struct {
		name   string
		config string
		want   string
	}{
		{"bad characters", db("mysql", "acme-wms", ""), `InvalidIdentifier`},
		{"quote", db("mysql", "acme'; DROP DATABASE x; --", ""), `InvalidIdentifier`},
		{"empty", db("mysql", "", ""), `InvalidIdentifier`},
		{"65 chars", db("mysql", strings.Repeat("a", 65), ""), `InvalidIdentifier`},
		{"postgres 64 bytes", db("postgres", strings.Repeat("a", 64), ""), `InvalidIdentifier`},
		{"system schema", db("mysql", "MySQL", ""), `InvalidIdentifier`},
		{"template1", db("postgres", "template1", ""), `InvalidIdentifier`},
		{"information_schema", db("mysql", "information_schema", ""), `InvalidIdentifier`},
		{"bad charset", db("mysql", "acme", `character_set = "utf8 mb4"`), `InvalidIdentifier`},
		{"bad collation", db("mysql", "acme", `collation = "x'y"`), `InvalidIdentifier`},
		{"bad deletion policy", db("mysql", "acme", `deletion_policy = "drop"`), `deletion_policy`},
		{"bad server name", strings.Replace(server("mysql"), `"offline"`, `"Bad Name"`, 1), `InvalidIdentifier`},
		// The server resource refuses at plan what its apply would: a
		// bastion host in brackets, a bastion and a proxy together.
		{"bastion host in brackets", strings.Replace(server("mysql"), `  username = "tenantdb_admin"`,
			"  username = \"tenantdb_admin\"\n  ssh_bastion = {\n    host = \"[127.0.0.1]\"\n    user = \"jump\"\n  }", 1), `InvalidIdentifier`},
		{"bastion and proxy", strings.Replace(server("postgres"), `  username = "tenantdb_admin"`,
			"  username = \"tenantdb_admin\"\n  socks5_proxy = \"socks5://127.0.0.1:1080\"\n  ssh_bastion = {\n    host = \"127.0.0.1\"\n    user = \"jump\"\n  }", 1),
			`(?s)socks5_proxy.*ssh_bastion|(?s)ssh_bastion.*socks5_proxy`},
		{"bad engine", server("oracle"), `engine`},
		{"mariadb engine", server("mariadb"), `MariaDB uses engine`},
		{"postgresql engine", server("postgresql"), `PostgreSQL uses engine`},
		{"password without version", server("mysql") + `
resource "tenantdb_tenant_owner" "o" {
  server      = tenantdb_db_server.main.ref
  database    = "acme"
  username    = "acme_app"
  password_wo = "pw"
}
`, `Missing password_wo_version`},
		{"bad tls", strings.Replace(server("mysql"), `username`, "tls = \"maybe\"\n  username", 1), `tls`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      c.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
