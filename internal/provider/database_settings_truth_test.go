// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Database settings say exactly what is true: a change the server would
// not see plans nothing, a collation alone changes its character set on
// update as on create, and a pair the server refuses is refused by the
// plan.

// TestAccTenantDatabase_collationAloneChangesCharset: a MySQL/MariaDB
// database created with only a collation (latin1) takes another
// character set's collation alone: the update derives the character set
// from the collation, as the create did (it was refused naming latin1).
func TestAccTenantDatabase_collationAloneChangesCharset(t *testing.T) {
	for _, kind := range engines() {
		if providerEngine(kind) != "mysql" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			name := uniqueName("coll")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			addr := "tenantdb_tenant_database." + name
			latin := s.serverHCL("") + tenantDatabaseHCL(name, `collation = "latin1_swedish_ci"`)
			bin := s.serverHCL("") + tenantDatabaseHCL(name, `collation = "utf8mb4_bin"`)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{Config: latin, Check: s.requireSettings(t, name, "latin1", "latin1_swedish_ci")},
					{
						Config: bin,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
							plancheck.ExpectUnknownValue(addr, tfjsonpath.New("character_set")),
						}},
						Check: s.requireSettings(t, name, "utf8mb4", "utf8mb4_bin"),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("character_set"), knownvalue.StringExact("utf8mb4")),
						},
					},
					{Config: bin, PlanOnly: true},
				},
			})
		})
	}
}

// TestAccTenantDatabase_respellingPlansNothing: another spelling of the
// same character set and collation (utf8 -> UTF8MB3, C.utf8 -> C.UTF-8)
// is no change: the plan is empty and the server's log shows that the
// apply ran no statement.
func TestAccTenantDatabase_respellingPlansNothing(t *testing.T) {
	spellings := map[string][2]string{
		"mysql": {`character_set = "utf8"` + "\n" + `collation = "utf8_general_ci"`,
			`character_set = "UTF8MB3"` + "\n" + `collation = "UTF8MB3_GENERAL_CI"`},
		"postgres": {`character_set = "UTF8"` + "\n" + `collation = "C.utf8"`,
			`character_set = "utf-8"` + "\n" + `collation = "C.UTF-8"`},
	}
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			name := uniqueName("spell")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			sp := spellings[providerEngine(kind)]
			var proof noSQLProof
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{Config: s.serverHCL("") + tenantDatabaseHCL(name, sp[0])},
					{
						PreConfig: func() { s.beforeRefusal(t, &proof, "") },
						Config:    s.serverHCL("") + tenantDatabaseHCL(name, sp[1]),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
						Check: func(*terraform.State) error { proof.assert(t, "a respelled setting"); return nil },
					},
				},
			})
		})
	}
}

// TestAccTenantDatabase_sqlAsciiPairRefusedAtPlan: PostgreSQL takes
// SQL_ASCII with a UTF-8 locale only from a superuser; the plan refuses
// the pair (it used to pass the plan and fail at apply, naming the claim's
// scratch database), and no SQL runs.
func TestAccTenantDatabase_sqlAsciiPairRefusedAtPlan(t *testing.T) {
	s := testAccServer(t, "postgres")
	name := uniqueName("ascii")
	var proof noSQLProof
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			PreConfig:   func() { s.beforeRefusal(t, &proof, "") },
			Config:      s.serverHCL("") + tenantDatabaseHCL(name, `character_set = "SQL_ASCII"`+"\n"+`collation = "C.UTF-8"`),
			ExpectError: regexp.MustCompile(`(?s)InvalidIdentifier.*SQL_ASCII goes only with the locale C or POSIX`),
		}},
	})
	proof.assert(t, "SQL_ASCII with C.UTF-8")
	if s.databaseExists(t, name) {
		t.Fatalf("database %s was created", name)
	}
}

// TestAccTenantDatabase_settingsReadAfterMove (MariaDB): a database moved to
// another address that holds a copy carrying its claim mark (a restored
// dump, a replica) is accepted, and the settings the configuration leaves
// out are those of the database there, in the same apply (they used to stay
// the old server's until the next refresh). The plan says they are known
// only after the apply; nothing is altered.
func TestAccTenantDatabase_settingsReadAfterMove(t *testing.T) {
	a := testAccServerOnly(t, "mariadb", "a MariaDB database carries its claim mark in its comment, so a copy of it (a dump, a replica) carries it to another server")
	b := secondServer(t, a)
	name := uniqueName("mvset")
	t.Cleanup(func() { a.dropDatabase(t, name); b.dropDatabase(t, name) })
	bundle := a.CAPEM + b.CAPEM
	w := newCLIWorkspace(t)
	w.write(a.serverBlock(a.Port, bundle, "") + tenantDatabaseHCL(name, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "create on the first server")
	comment := a.schemaComment(t, name)
	// The copy on b: the same mark, other settings.
	b.exec(t, "", fmt.Sprintf("CREATE DATABASE %s CHARACTER SET latin1 COLLATE latin1_swedish_ci COMMENT '%s'", b.ident(name), comment))

	w.write(a.serverBlock(b.Port, bundle, "") + tenantDatabaseHCL(name, ""))
	var proof noSQLProof
	b.beforeRefusal(t, &proof, "")
	w.run("apply", "-auto-approve").mustSucceed(t, "move to the copy")
	proof.assert(t, "a move that reads the settings alters nothing")
	if cs, co := w.stateAttr("tenantdb_tenant_database", "character_set"), w.stateAttr("tenantdb_tenant_database", "collation"); cs != "latin1" || co != "latin1_swedish_ci" {
		t.Fatalf("state after the move says %v/%v, want the copy's latin1/latin1_swedish_ci", cs, co)
	}
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "the plan after the move is empty")
}

// TestAccTenantDatabase_claimErrorNamesTheDatabase (PostgreSQL): a create
// the server refuses (a locale it does not have) names the tenant
// database, not only the claim's scratch database its statement names.
func TestAccTenantDatabase_claimErrorNamesTheDatabase(t *testing.T) {
	s := testAccServer(t, "postgres")
	name := uniqueName("nolocale")
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + tenantDatabaseHCL(name, `collation = "xx_XX.UTF-8"`))
	d := w.run("apply", "-auto-approve").mustFail(t, "a locale the server lacks").requireDiag(t, "error", "Could not")
	if !strings.Contains(d.Detail, fmt.Sprintf("create database %q (made first under the scratch name", name)) {
		t.Fatalf("the error does not name database %q first:\n%s", name, d.Detail)
	}
	if s.databaseExists(t, name) {
		t.Fatal("the database exists after a refused create")
	}
}
