// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What differs between the server releases make test runs, each named by
// version (README, "What differs between versions"). make test runs these
// on MariaDB 10.11 and 11.8 (TENANTDB_TEST_ENGINES=mariadb11), and MySQL 9.7.

// mariadbVersion is the MariaDB server's version; ok is false on MySQL.
func (s accServer) mariadbVersion(t *testing.T) (v ddl.Version, ok bool) {
	t.Helper()
	if s.Flavor != string(ddl.FlavorMariaDB) {
		return v, false
	}
	v, err := ddl.ParseVersion(s.Version())
	if err != nil {
		t.Fatal(err)
	}
	return v, true
}

// TestAccDBServer_mariadb113AdminRights: MariaDB 11.3 added the
// database-level privilege SHOW CREATE ROUTINE, which an admin must hold
// WITH GRANT OPTION to grant ALL on tenant databases. An admin set up with
// README's MariaDB 10.11 statements is refused on 11.3+ (MissingAdminRights
// naming SHOW CREATE ROUTINE, giving the statement that grants it, no SQL
// run) and works once it holds it; on 10.11 those statements suffice.
func TestAccDBServer_mariadb113AdminRights(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "MariaDB's privilege set changed in 11.3 (MySQL has no SHOW CREATE ROUTINE)")
	v, _ := s.mariadbVersion(t)
	name := uniqueName("adm1011")
	old := ddl.ServerInfo{Flavor: ddl.FlavorMariaDB, Version: ddl.Version{Major: 10, Minor: 11}}
	account := ddl.AdminAccount{User: name, Host: "%"}
	admin := s.CreateLogin(t, name, "Admin-1011-pw", ddl.MySQLAdminGrants(old, account)...)
	t.Setenv(AdminPasswordEnv(s.name), admin.Password)
	config := strings.Replace(s.serverHCL(""), fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", admin.Username), 1)

	if !v.AtLeast(11, 3, 0) {
		t.Logf("MariaDB %s: README's 10.11 statements are the whole admin", v)
		resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders, Steps: []resource.TestStep{{Config: config}}})
		return
	}
	t.Logf("MariaDB %s: SHOW CREATE ROUTINE (11.3+) is needed WITH GRANT OPTION", v)
	var proof noSQLProof
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { s.beforeRefusal(t, &proof, admin.Username) },
				Config:    config,
				ExpectError: regexp.MustCompile(`(?s)MissingAdminRights.*global SHOW CREATE ROUTINE WITH GRANT OPTION.*` +
					`GRANT [A-Z ,]*SHOW CREATE ROUTINE ON \*\.\* TO '` + name + `'@'%' WITH GRANT OPTION`),
			},
			{
				// The statement the refusal gives, as a superuser: then it works.
				PreConfig: func() {
					proof.assert(t, "MissingAdminRights")
					info := ddl.ServerInfo{Flavor: ddl.FlavorMariaDB, Version: v}
					s.exec(t, "", ddl.MySQLAdminGrants(info, account)...)
				},
				Config: config,
			},
		},
	})
}
