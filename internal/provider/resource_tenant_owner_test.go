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
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// ownerHCL declares a tenant database db and its owner. extra goes inside
// the owner block.
func ownerHCL(db, user, pw string, version int, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, db) + ownerBlockHCL(user, pw, version, extra)
}

// ownerBlockHCL is the owner block alone, of tenantdb_tenant_database.db.
func ownerBlockHCL(user, pw string, version int, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.db.name
  username            = %q
  password_wo         = %q
  password_wo_version = %d
%s
}
`, user, pw, version, extra)
}

// as runs statements as a login over TCP with TLS, in database db.
func (s accServer) as(user, pw, db string, stmts ...string) error {
	conn, err := s.Open(testserver.Login{Username: user, Password: pw}, db)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.Exec(q); err != nil {
			return fmt.Errorf("%s as %s: %w", q, user, err)
		}
	}
	return nil
}

// table names a table of the tenant database for statements run inside it.
func (s accServer) table(db, name string) string {
	if s.Engine == "postgres" {
		return name
	}
	return s.ident(db) + "." + name
}

func (s accServer) loginExists(t *testing.T, user string) bool {
	t.Helper()
	q := `SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host = '%'`
	if s.Engine == "postgres" {
		q = `SELECT COUNT(*) FROM pg_roles WHERE rolname = $1`
	}
	var n int
	if err := s.super(t, "").QueryRow(q, user).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func (s accServer) dropLogins(t *testing.T, users ...string) {
	t.Helper()
	for _, u := range users {
		if s.Engine == "postgres" {
			s.exec(t, "", "DROP ROLE IF EXISTS "+s.ident(u))
		} else {
			s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", u))
		}
	}
}

// TestAccTenantOwner_lifecycle: create, log in and write; password
// rotation; username rotation create-before-drop; import; destroy keeps
// the database and its rows and removes the login.
func TestAccTenantOwner_lifecycle(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user, user2 := uniqueName("own"), uniqueName("app"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user, user2)
			})
			pw1, pw2 := `p1-'q"\%$`+"\n"+`ü`, `p2-''\\z`
			addr := "tenantdb_tenant_owner.o"
			tbl := s.table(db, "t")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				CheckDestroy: s.check(func() error {
					if s.loginExists(t, user2) {
						return fmt.Errorf("login %s survived destroy", user2)
					}
					if !s.databaseExists(t, db) {
						return fmt.Errorf("destroying the owner took the database %s with it", db)
					}
					var n int
					if err := s.super(t, db).QueryRow("SELECT COUNT(*) FROM " + tbl).Scan(&n); err != nil || n != 1 {
						return fmt.Errorf("the tenant's rows are gone after destroy: %d, %v", n, err)
					}
					return nil
				}),
				Steps: []resource.TestStep{
					{
						Config: s.serverHCL("") + ownerHCL(db, user, pw1, 1, ""),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("user_created"), knownvalue.Bool(true)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.Null()),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("password_wo"), knownvalue.Null()),
						},
						Check: s.check(func() error {
							return s.as(user, pw1, db, "CREATE TABLE "+tbl+" (v int)", "INSERT INTO "+tbl+" VALUES (1)")
						}),
					},
					{
						Config:   s.serverHCL("") + ownerHCL(db, user, pw1, 1, ""),
						PlanOnly: true,
					},
					{
						// Changing only the write-only password changes nothing.
						Config:   s.serverHCL("") + ownerHCL(db, user, pw2, 1, ""),
						PlanOnly: true,
					},
					{
						Config: s.serverHCL("") + ownerHCL(db, user, pw2, 2, ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						}},
						Check: s.check(func() error {
							if err := s.as(user, pw1, db, "SELECT 1"); err == nil {
								return fmt.Errorf("the old password still works after rotation")
							}
							return s.as(user, pw2, db, "SELECT v FROM "+tbl)
						}),
					},
					{
						// Username rotation: in place, create-before-drop.
						Config: s.serverHCL("") + ownerHCL(db, user2, pw2, 2, ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						}},
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.Null()),
						},
						Check: s.check(func() error {
							if s.loginExists(t, user) {
								return fmt.Errorf("the old login %s survived the rotation", user)
							}
							return s.as(user2, pw2, db, "INSERT INTO "+tbl+" VALUES (2)", "DELETE FROM "+tbl+" WHERE v = 2",
								"CREATE TABLE "+s.table(db, "t2")+" (v int)", "DROP TABLE "+s.table(db, "t2"))
						}),
					},
					{
						Config:   s.serverHCL("") + ownerHCL(db, user2, pw2, 2, ""),
						PlanOnly: true,
					},
					{
						ResourceName:            addr,
						ImportState:             true,
						ImportStateId:           s.importID(map[string]any{"database": db, "username": user2}),
						ImportStateVerify:       true,
						ImportStateVerifyIgnore: []string{"password_wo_version", "user_created"},
					},
				},
			})
		})
	}
}

// TestAccTenantOwner_refusals: every owner refusal before any SQL, with
// the server's accounts and the foreign account's password untouched.
func TestAccTenantOwner_refusals(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, foreign := uniqueName("ownref"), uniqueName("foreign")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, foreign)
			})
			s.CreateLogin(t, foreign, "foreign-Pw-1")
			chain := refusalChain{t: t, s: s}
			refusal := func(hcl, want, what string) resource.TestStep {
				return chain.refusal(s.serverHCL(`reserved_usernames = ["app_group"]`)+hcl, want, what, nil)
			}
			dbHCL := fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name = %q\n}\n", db)
			owner := func(user, privs string) string {
				return dbHCL + fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o" {
  server      = tenantdb_db_server.main.ref
  database    = tenantdb_tenant_database.db.name
  username    = %q
  password_wo = "Some-pw-1"
  password_wo_version = 1
  %s
}
`, user, privs)
			}
			steps := []resource.TestStep{
				{Config: s.serverHCL(`reserved_usernames = ["app_group"]`) + dbHCL},
				refusal(owner("root", ""), `OwnerUserReserved`, "OwnerUserReserved (system account)"),
				refusal(owner(s.Admin.Username, ""), `OwnerUserReserved`, "OwnerUserReserved (the admin)"),
				refusal(owner("app_group", ""), `OwnerUserReserved`, "OwnerUserReserved (reserved_usernames)"),
				refusal(owner("bad name", ""), `InvalidIdentifier`, "InvalidIdentifier"),
				refusal(owner("ok_user", `privileges = ["ALL PRIVILEGES", "SELECT"]`), `PrivilegeNotAllowed`, "PrivilegeNotAllowed (ALL with others)"),
				refusal(owner("ok_user", `privileges = ["SUPER"]`), `PrivilegeNotAllowed`, "PrivilegeNotAllowed (not on the allowlist)"),
			}
			if engine == "postgres" {
				steps = append(steps,
					refusal(owner("ok_user", `privileges = ["SELECT"]`), `(?s)PrivilegeNotAllowed.*owns the tenant database`, "PrivilegeNotAllowed (PostgreSQL owner)"))
			}
			steps = append(steps,
				resource.TestStep{
					PreConfig: func() {
						chain.settle()
						s.beforeRefusal(t, &chain.proof, "")
					},
					Config: s.serverHCL(`reserved_usernames = ["app_group"]`) + owner(foreign, ""),
					// The fix gives both recoveries: the import block and the
					// one statement (Terraform wraps the text: \s+ between words).
					ExpectError: regexp.MustCompile(`(?s)PreExistingOwnerUser.*import\s+\{.*to\s+=\s+tenantdb_tenant_owner.*DROP\s+(USER|ROLE)`),
				},
				resource.TestStep{
					PreConfig: func() {
						chain.proof.assertOnly(t, "PreExistingOwnerUser", "CREATE USER", "CREATE ROLE")
						if err := s.as(foreign, "foreign-Pw-1", "", "SELECT 1"); err != nil {
							t.Fatalf("the foreign account's password no longer works: %v", err)
						}
					},
					Config:   s.serverHCL(`reserved_usernames = ["app_group"]`) + dbHCL,
					PlanOnly: true,
				})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				Steps:                    steps,
			})
		})
	}
}
