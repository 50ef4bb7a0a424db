// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestAccTenantDatabase_lowerCaseTableNames: on a MariaDB or MySQL server with
// lower_case_table_names = 1, a name with capitals would be created folded
// and then never found again under the name in state. It is refused before
// any SQL, naming the lower-case name; the lower-case name works; and a
// database imported under another case is found as the server compares.
func TestAccTenantDatabase_lowerCaseTableNames(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	// MariaDB and MySQL 9.7 (kinds; one password variable per server name).
	for _, kind := range []string{testserver.KindMariaDB, testserver.KindMySQL} {
		t.Run(kind, func(t *testing.T) {
			s := accServer{Server: testserver.SharedKind(t, kind, testserver.WithLowerCaseTableNames()), name: "fold" + kind}
			envMu.Lock()
			os.Setenv(AdminPasswordEnv(s.name), s.Admin.Password)
			envMu.Unlock()
			mixed := "Acme_" + strings.TrimPrefix(uniqueName("mixed"), "mixed_")
			lower := strings.ToLower(mixed)
			imported := "Imp_" + strings.TrimPrefix(uniqueName("imp"), "imp_")
			t.Cleanup(func() { s.dropDatabase(t, lower, strings.ToLower(imported)) })
			s.exec(t, "", "CREATE DATABASE "+s.ident(imported)) // stored lower-cased
			var proof noSQLProof
			importHCL := s.serverHCL("") + tenantDatabaseHCL(lower, `deletion_policy = "delete"`) + fmt.Sprintf(
				"import {\n  to = tenantdb_tenant_database.imp\n  id = %q\n}\nresource \"tenantdb_tenant_database\" \"imp\" {\n  server = tenantdb_db_server.main.ref\n  name = %q\n}\n",
				s.importID(map[string]any{"name": imported}), imported)
			lowerHCL := s.serverHCL("") + tenantDatabaseHCL(lower, `deletion_policy = "delete"`)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						PreConfig:   func() { s.beforeRefusal(t, &proof, "") },
						Config:      s.serverHCL("") + tenantDatabaseHCL(mixed, ""),
						ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)InvalidIdentifier.*lower_case_table_names.*name = "%s"`, lower)),
					},
					{
						PreConfig: func() {
							proof.assert(t, "InvalidIdentifier (a name the server folds)")
							if s.databaseExists(t, lower) {
								t.Fatalf("%s was created although the name was refused", lower)
							}
						},
						Config: lowerHCL,
						Check: s.check(func() error {
							if !s.databaseExists(t, lower) {
								return fmt.Errorf("%s not created", lower)
							}
							return nil
						}),
					},
					{Config: lowerHCL, PlanOnly: true},
					{
						// Imported under the case the user wrote: found as the
						// server compares names, and no drift afterwards.
						Config: importHCL,
					},
					{Config: importHCL, PlanOnly: true},
				},
			})
		})
	}
}
