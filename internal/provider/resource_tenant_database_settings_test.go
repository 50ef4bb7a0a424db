// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Settings as the server sees them: the server's case and aliases are not
// a change, the user's spelling is kept, and the server is what it says.

func (s accServer) requireSettings(t *testing.T, name, cs, co string) resource.TestCheckFunc {
	return s.check(func() error {
		gotCS, gotCO := s.charsetCollation(t, name)
		if gotCS != cs || gotCO != co {
			return fmt.Errorf("server has %s/%s, want %s/%s", gotCS, gotCO, cs, co)
		}
		return nil
	})
}

func TestAccTenantDatabase_settingsSpelledOtherwise(t *testing.T) {
	type step struct{ hcl, serverCS, serverCO string }
	cases := map[string][]step{
		"mysql": {
			{`character_set = "UTF8MB4"` + "\n" + `collation = "UTF8MB4_UNICODE_CI"`, "utf8mb4", "utf8mb4_unicode_ci"},
			{`character_set = "utf8"` + "\n" + `collation = "utf8_general_ci"`, "utf8mb3", "utf8mb3_general_ci"},
		},
		"postgres": {
			{`character_set = "utf8"` + "\n" + `collation = "C.UTF-8"`, "UTF8", "C.UTF-8"},
		},
	}
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			name := uniqueName("spelled")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			addr := "tenantdb_tenant_database." + name
			var steps []resource.TestStep
			for _, st := range cases[s.Engine] {
				config := s.serverHCL("") + tenantDatabaseHCL(name, st.hcl)
				steps = append(steps,
					resource.TestStep{Config: config, Check: s.requireSettings(t, name, st.serverCS, st.serverCO)},
					// The server's own spelling is no diff: no ALTER, no
					// ImmutableAttribute, on every later plan.
					resource.TestStep{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					}},
				)
			}
			steps[0].ConfigStateChecks = []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("character_set"), knownvalue.StringExact(map[string]string{
					"mysql": "UTF8MB4", "postgres": "utf8"}[s.Engine])),
			}
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders, Steps: steps})
		})
	}
}

// defaultUTF8MB4Collation is utf8mb4's default collation on s: MariaDB
// 10.11's utf8mb4_general_ci, MySQL's utf8mb4_0900_ai_ci, and on MariaDB
// 11.8 utf8mb4_uca1400_ai_ci (its @@character_set_collations; seen on
// 11.8.9, a stock Debian 13 server).
func (s accServer) defaultUTF8MB4Collation(t *testing.T, kind string) string {
	t.Helper()
	if v, ok := s.mariadbVersion(t); ok && v.AtLeast(11, 8, 0) {
		return "utf8mb4_uca1400_ai_ci"
	}
	return map[string]string{"mariadb": "utf8mb4_general_ci", "mysql": "utf8mb4_0900_ai_ci"}[kind]
}

// TestAccTenantDatabase_characterSetAlone (MariaDB, MySQL 9.7): the server
// picks the character set's default collation; a collation of another
// character set is refused at plan time.
func TestAccTenantDatabase_characterSetAlone(t *testing.T) {
	for _, kind := range mysqlFamily {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			name := uniqueName("latin")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			addr := "tenantdb_tenant_database." + name
			config := s.serverHCL("") + tenantDatabaseHCL(name, `character_set = "latin1"`)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config:      s.serverHCL("") + tenantDatabaseHCL(name, `character_set = "latin1"`+"\n"+`collation = "utf8mb4_unicode_ci"`),
						ExpectError: regexp.MustCompile(`(?s)InvalidIdentifier.*utf8mb4_unicode_ci.*latin1`),
						PlanOnly:    true,
					},
					{
						Config: config,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectUnknownValue(addr, tfjsonpath.New("collation")),
						}},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("collation"), knownvalue.StringExact("latin1_swedish_ci")),
						},
						Check: s.requireSettings(t, name, "latin1", "latin1_swedish_ci"),
					},
					{Config: config, PlanOnly: true},
					{
						// A new character set alone: its default collation, not the old one.
						Config: s.serverHCL("") + tenantDatabaseHCL(name, `character_set = "utf8mb4"`),
						Check:  s.requireSettings(t, name, "utf8mb4", s.defaultUTF8MB4Collation(t, kind)),
					},
				},
			})
		})
	}
}

// TestAccTenantDatabase_omittedSettingsKeepServer: an imported database
// whose settings the configuration leaves out keeps them: changing only
// deletion_policy plans no character set change and alters nothing, on
// MySQL (latin1) and PostgreSQL (a locale that is not the default).
func TestAccTenantDatabase_omittedSettingsKeepServer(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			name := uniqueName("omitted")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			wantCS, wantCO := "latin1", "latin1_swedish_ci"
			if engine == "postgres" {
				s.exec(t, "", "CREATE DATABASE "+s.ident(name)+" TEMPLATE template0 ENCODING 'SQL_ASCII' LOCALE 'C.utf8'")
				wantCS, wantCO = "SQL_ASCII", "C.utf8"
			} else {
				s.exec(t, "", "CREATE DATABASE "+s.ident(name)+" CHARACTER SET latin1")
			}
			importBlock := fmt.Sprintf("import {\n  to = tenantdb_tenant_database.t\n  id = %q\n}\n", s.importID(map[string]any{"name": name}))
			w := newCLIWorkspace(t)
			w.write(s.serverHCL("") + importBlock + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"t\" {\n  server = tenantdb_db_server.main.ref\n  name = %q\n}\n", name))
			w.run("apply", "-auto-approve").mustSucceed(t, "import")
			w.write(s.serverHCL("") + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"t\" {\n  server = tenantdb_db_server.main.ref\n  name = %q\n  deletion_policy = \"delete\"\n}\n", name))
			apply := w.run("apply", "-auto-approve").mustSucceed(t, "change deletion_policy only")
			apply.forbidDiag(t, "ImmutableAttribute")
			if cs, co := s.charsetCollation(t, name); cs != wantCS || co != wantCO {
				t.Fatalf("server has %s/%s after changing deletion_policy only, want %s/%s", cs, co, wantCS, wantCO)
			}
			if got := w.stateAttr("tenantdb_tenant_database", "character_set"); got != wantCS {
				t.Fatalf("state character_set = %v, want %s", got, wantCS)
			}
			destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			destroy.requireDiag(t, "warning", "DatabaseDropSkipped: the database was not dropped")
			if !s.databaseExists(t, name) {
				t.Fatal("destroy dropped an imported database")
			}
		})
	}
}
