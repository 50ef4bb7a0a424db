// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

var writeOnlyTerraform = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)}

// TestAccTenantOwner_privilegesDesiredState (MySQL/MariaDB): narrowing
// grants the new set then revokes the surplus; widening grants; an
// out-of-band REVOKE shows as drift and is restored; checked by what the
// owner can actually do.
func TestAccTenantOwner_privilegesDesiredState(t *testing.T) {
	for _, kind := range mysqlFamily {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db, user := uniqueName("priv"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user)
			})
			pw := "Priv-pw-1"
			tbl := s.table(db, "t")
			all := s.serverHCL("") + ownerHCL(db, user, pw, 1, "")
			selectOnly := s.serverHCL("") + ownerHCL(db, user, pw, 1, `privileges = ["SELECT"]`)
			canWrite := func(want bool) resource.TestCheckFunc {
				return s.check(func() error {
					if err := s.as(user, pw, db, "SELECT COUNT(*) FROM "+tbl); err != nil {
						return fmt.Errorf("the owner cannot read: %v", err)
					}
					err := s.as(user, pw, db, "INSERT INTO "+tbl+" VALUES (9)")
					if want && err != nil {
						return fmt.Errorf("the owner cannot write: %v", err)
					}
					if !want && err == nil {
						return fmt.Errorf("the owner can still write after narrowing to SELECT")
					}
					return nil
				})
			}
			empty := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				Steps: []resource.TestStep{
					{Config: all, Check: s.check(func() error { return s.as(user, pw, db, "CREATE TABLE "+tbl+" (v int)") })},
					{Config: selectOnly, Check: canWrite(false)},
					{Config: selectOnly, ConfigPlanChecks: empty},
					{Config: all, Check: canWrite(true)},
					{Config: all, ConfigPlanChecks: empty},
					{
						// Out of band: the refresh shows the drift, the apply restores.
						PreConfig: func() {
							s.exec(t, "", fmt.Sprintf("REVOKE INSERT ON %s.* FROM '%s'@'%%'", s.ident(mysqlPattern(db)), user))
						},
						Config: all,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("tenantdb_tenant_owner.o", plancheck.ResourceActionUpdate),
						}},
						Check: canWrite(true),
					},
					{Config: all, ConfigPlanChecks: empty},
				},
			})
		})
	}
}

// mysqlPattern escapes a database name as GRANT stores it.
func mysqlPattern(db string) string {
	out := ""
	for _, r := range db {
		if r == '_' || r == '%' {
			out += `\`
		}
		out += string(r)
	}
	return out
}

// TestAccTenantOwner_ownerConflict: a second owner for one database is
// refused before any SQL. PostgreSQL: the database is owned by another
// role. MySQL/MariaDB: another account holds every database-level
// privilege on it and carries its owner mark (what an owner is there).
func TestAccTenantOwner_ownerConflict(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, other, user := uniqueName("conf"), uniqueName("other"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, other, user)
			})
			var proof noSQLProof
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				Steps: []resource.TestStep{
					{Config: s.serverHCL("") + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name = %q\n}\n", db)},
					{
						PreConfig: func() {
							s.CreateLogin(t, other, "Other-pw-1")
							if engine == "postgres" {
								s.exec(t, "", fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", s.ident(db), s.ident(other)))
							} else {
								// Another owner, as a tenantdb_tenant_owner makes one: its
								// owner mark, not its privileges, says so (item 7 of issue 33).
								s.exec(t, "", fmt.Sprintf("GRANT ALL PRIVILEGES ON %s.* TO '%s'@'%%'", s.ident(mysqlPattern(db)), other),
									fmt.Sprintf("ALTER USER '%s'@'%%' WITH MAX_UPDATES_PER_HOUR %d", other, ownerMarkOf(t, engine, db)))
							}
							s.beforeRefusal(t, &proof, "")
						},
						Config:      s.serverHCL("") + ownerHCL(db, user, "Conf-pw-1", 1, ""),
						ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)OwnerConflict.*%s`, other)),
					},
				},
			})
			proof.assert(t, "OwnerConflict")
			if s.loginExists(t, user) {
				t.Fatalf("login %s was created although the owner was refused", user)
			}
		})
	}
}

// TestAccTenantOwner_identity: a login dropped and re-created out of band
// is not this resource's: destroy without a refresh drops nothing (on
// MySQL/MariaDB it revokes the login's privileges on the database name);
// an imported owner is never dropped.
func TestAccTenantOwner_identity(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user := uniqueName("oid"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user)
			})
			w := newCLIWorkspace(t)
			w.write(s.serverHCL("") + ownerHCL(db, user, "Oid-pw-1", 1, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			if engine == "postgres" {
				s.exec(t, db, "REASSIGN OWNED BY "+s.ident(user)+" TO "+s.ident(s.Admin.Username), "DROP OWNED BY "+s.ident(user))
			} else {
				// MariaDB tells logins apart by when their password was set,
				// to the second (the documented window): re-create it later.
				time.Sleep(1100 * time.Millisecond)
			}
			s.dropLogins(t, user)
			s.CreateLogin(t, user, "Foreign-pw-1")
			// Destroy without a refresh: the identity check before DROP.
			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			destroy := w.run("destroy", "-auto-approve", "-refresh=false", "-target=tenantdb_tenant_owner.o").mustSucceed(t, "destroy")
			if engine == "postgres" {
				proof.assert(t, "owner drop of a replaced login")
			} else {
				// MySQL/MariaDB: not dropped, but what the owner was granted on
				// the database name is revoked (revoking is always safe).
				proof.assertOnly(t, "owner drop of a replaced login", "REVOKE ")
			}
			// The summary is fixed (repeats fold); the login is in the detail.
			if d := destroy.requireDiag(t, "warning", "Login was not dropped"); !strings.Contains(d.Detail, fmt.Sprintf("Login %q", user)) {
				t.Errorf("the warning's detail does not name login %s: %q", user, d.Detail)
			}
			if err := s.as(user, "Foreign-pw-1", "", "SELECT 1"); err != nil {
				t.Fatalf("the foreign login was altered or dropped: %v", err)
			}

			// Import it, then destroy: an imported owner is never dropped.
			w.write(s.serverHCL("") + ownerHCL(db, user, "Foreign-pw-1", 1, "") + fmt.Sprintf(
				"import {\n  to = tenantdb_tenant_owner.o\n  id = %q\n}\n", s.importID(map[string]any{"database": db, "username": user})))
			if s.administersOnlyItsRoles(t) {
				// PostgreSQL 16+: the admin may not set the password of a
				// role it does not administer; refused before any SQL, with
				// the statement that fixes it.
				var proof noSQLProof
				s.beforeRefusal(t, &proof, "")
				refused := w.run("apply", "-auto-approve").mustFail(t, "import a role the admin does not administer")
				proof.assert(t, "password of a role the admin does not administer")
				d := refused.requireDiag(t, "error", "MissingAdminRights")
				if want := "GRANT " + s.ident(user) + " TO " + s.ident(s.Admin.Username) + " WITH ADMIN OPTION"; !strings.Contains(d.Detail, want) {
					t.Fatalf("the refusal does not give the fix %q:\n%s", want, d.Detail)
				}
				s.exec(t, "", "GRANT "+s.ident(user)+" TO "+s.ident(s.Admin.Username)+" WITH ADMIN OPTION")
			}
			imp := w.run("apply", "-auto-approve").mustSucceed(t, "import")
			imp.forbidDiag(t, "PreExistingOwnerUser")
			if got := w.stateAttr("tenantdb_tenant_owner", "user_created"); got != false {
				t.Fatalf("user_created = %v after import, want false", got)
			}
			var none noSQLProof
			s.beforeRefusal(t, &none, "")
			gone := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy imported")
			if engine == "postgres" {
				// Nothing runs; the warning says the login keeps the database
				// and gives the statements that hand it back.
				none.assert(t, "destroy of an imported PostgreSQL owner")
				d := gone.requireDiag(t, "warning", summaryImportedStillOwns)
				if want := "ALTER DATABASE " + s.ident(db) + " OWNER TO CURRENT_USER;"; !strings.Contains(d.Detail, want) {
					t.Errorf("the warning does not give %q:\n%s", want, d.Detail)
				}
				if s.count(t, "", "SELECT count(*) FROM pg_database WHERE datname = $1 AND pg_get_userbyid(datdba) = $2", db, user) != 1 {
					t.Errorf("database %s is not %s's after the imported owner's destroy: it keeps it", db, user)
				}
			}
			if err := s.as(user, "Foreign-pw-1", "", "SELECT 1"); err != nil {
				t.Fatalf("destroy dropped or changed an imported login: %v", err)
			}
		})
	}
}

// TestAccTenantOwner_postgresOwnershipDrift: the database handed to another
// role out of band shows as drift and the next apply hands it back.
func TestAccTenantOwner_postgresOwnershipDrift(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user := uniqueName("odrift"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	cfg := s.serverHCL("") + ownerHCL(db, user, "Odrift-pw-1", 1, "")
	owner := func() string {
		var o string
		if err := s.super(t, "").QueryRow(`SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1`, db).Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					s.exec(t, "", fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", s.ident(db), s.ident(s.Admin.Username)))
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("tenantdb_tenant_owner.o", plancheck.ResourceActionUpdate),
				}},
				Check: s.check(func() error {
					if o := owner(); o != user {
						return fmt.Errorf("database owner = %s after the apply, want %s", o, user)
					}
					return nil
				}),
			},
			{Config: cfg, PlanOnly: true},
		},
	})
}
