// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Issue 33's PostgreSQL owner items: what a second configuration, a
// superuser or the tenant itself may do never turns the owner against the
// first promise. Every check reads the server.

// secondOwnerHCL is a second tenantdb_tenant_owner ("o2") declaring the
// same database and username as the first, with its own password: another
// workspace, or a copy-pasted resource.
func secondOwnerHCL(user, pw string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o2" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.db.name
  username            = %q
  password_wo         = %q
  password_wo_version = 1
}
`, user, pw)
}

// roleComment is the comment on a PostgreSQL role (its owner mark).
func (s accServer) roleComment(t *testing.T, role string) string {
	t.Helper()
	var c string
	if err := s.super(t, "").QueryRow(`SELECT COALESCE(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = $1`, role).Scan(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// databaseOwner is pg_database.datdba of db, by name.
func (s accServer) databaseOwner(t *testing.T, db string) string {
	t.Helper()
	var o string
	if err := s.super(t, "").QueryRow(`SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1`, db).Scan(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestAccOwnerTrust_secondStateRefused (item 2): a second resource declaring
// a working owner's database and username is refused PreExistingOwnerUser
// and changes nothing: the first configuration's password still logs in,
// the second's does not, the database stays the owner's. The same holds
// for an owner a finished rotation made (its old login gone): its mark
// names a predecessor no one else has, yet it is finished work.
func TestAccOwnerTrust_secondStateRefused(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user, user2 := uniqueName("trs"), uniqueName("app"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user, user2)
	})
	pw, intruder := "Trust-pw-1", "Intruder-pw-2"
	untouched := func(login string) func() error {
		return func() error {
			if c := s.roleComment(t, login); !strings.HasSuffix(c, " status=done") {
				return fmt.Errorf("the mark of %s is %q, want a finished one", login, c)
			}
			if err := s.as(login, pw, db, "CREATE TABLE IF NOT EXISTS kept (v int)", "INSERT INTO kept VALUES (1)"); err != nil {
				return fmt.Errorf("the first configuration's password no longer works: %v", err)
			}
			if err := s.as(login, intruder, db, "SELECT 1"); err == nil {
				return fmt.Errorf("the second configuration's password logs in as %s: its password was reset", login)
			}
			if o := s.databaseOwner(t, db); o != login {
				return fmt.Errorf("database %s is owned by %q, want %q", db, o, login)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, ""), Check: s.check(untouched(user))},
			{
				Config:      s.serverHCL("") + ownerHCL(db, user, pw, 1, "") + secondOwnerHCL(user, intruder),
				ExpectError: regexp.MustCompile(`PreExistingOwnerUser(.|\n)*finished(.|\n)*import \{`),
			},
			{
				Config:           s.serverHCL("") + ownerHCL(db, user, pw, 1, ""),
				Check:            s.check(untouched(user)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			// A rotation finishes (the old login is dropped); its login is
			// as much someone's working owner as a created one.
			{Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""), Check: s.check(untouched(user2))},
			{
				Config:      s.serverHCL("") + ownerHCL(db, user2, pw, 1, "") + secondOwnerHCL(user2, intruder),
				ExpectError: regexp.MustCompile(`PreExistingOwnerUser`),
			},
			{
				Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
				Check: s.check(func() error {
					if s.loginExists(t, user) {
						return fmt.Errorf("the rotated-out login %s still exists", user)
					}
					return untouched(user2)()
				}),
			},
		},
	})
}

// literalOwnerHCL is an owner of a database named literally (not a
// tenantdb_tenant_database of this configuration).
func literalOwnerHCL(db, user, pw string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = %q
  username            = %q
  password_wo         = %q
  password_wo_version = 1
}
`, db, user, pw)
}

// TestAccOwnerTrust_recreatedDatabaseNotHandedOver (item 8): a superuser
// drops the owner's database and creates another of that name, owned by the
// admin, which adds a table. Neither the owner's next apply nor a username
// rotation hands it over: IdentityMismatch naming the database, and the
// database, its owner and its rows stay as they are.
func TestAccOwnerTrust_recreatedDatabaseNotHandedOver(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user, user2 := uniqueName("trd"), uniqueName("app"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user, user2)
	})
	pw := "Trust-pw-1"
	s.exec(t, "", fmt.Sprintf("CREATE DATABASE %s OWNER %s", s.ident(db), s.ident(s.Admin.Username)))
	notHandedOver := s.check(func() error {
		if o := s.databaseOwner(t, db); o != s.Admin.Username {
			return fmt.Errorf("the re-created database %s was handed to %q", db, o)
		}
		if n := s.count(t, db, `SELECT count(*) FROM admin_data`); n != 2 {
			return fmt.Errorf("admin_data holds %d rows, want 2", n)
		}
		if s.loginExists(t, user2) {
			return fmt.Errorf("the rotation created %s", user2)
		}
		return nil
	})
	mismatch := regexp.MustCompile(`IdentityMismatch(.|\n)*database "` + db + `"`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{
				Config: s.serverHCL("") + literalOwnerHCL(db, user, pw),
				Check: s.check(func() error {
					if o := s.databaseOwner(t, db); o != user {
						return fmt.Errorf("database %s is owned by %q after the owner's create", db, o)
					}
					return nil
				}),
			},
			{
				PreConfig: func() {
					s.dropDatabase(t, db)
					s.exec(t, "", fmt.Sprintf("CREATE DATABASE %s OWNER %s", s.ident(db), s.ident(s.Admin.Username)))
					if err := s.as(s.Admin.Username, s.Admin.Password, db, "CREATE TABLE admin_data (v int)", "INSERT INTO admin_data VALUES (1), (2)"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      s.serverHCL("") + literalOwnerHCL(db, user, pw),
				ExpectError: mismatch,
			},
			{
				Config:      s.serverHCL("") + literalOwnerHCL(db, user2, pw),
				ExpectError: mismatch,
			},
			{
				// Nothing changed: still the admin's database with its rows.
				PreConfig: func() {
					if err := notHandedOver(nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:             s.serverHCL("") + literalOwnerHCL(db, user, pw),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // the owner does not own it: the refused update stays planned
			},
		},
	})
}

// TestAccOwnerTrust_createMovesOnlyGrantDefaults (item 9): when an owner is
// created after a grant, the grant's default privileges (FOR ROLE the
// admin, per schema, to a grantee with CONNECT) move to the owner; what the
// admin had set for another role stays the admin's, database-wide and per
// schema.
func TestAccOwnerTrust_createMovesOnlyGrantDefaults(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user, reader, other := uniqueName("tdp"), uniqueName("app"), uniqueName("rdr"), uniqueName("oth")
	s.principal(t, reader)
	s.principal(t, other)
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	pw := "Trust-pw-1"
	dbHCL := fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, db)
	grant := grantHCL("g", "tenantdb_tenant_database.db.name", reader, `["SELECT"]`, "")
	// entries counts pg_default_acl entries FOR ROLE role naming grantee.
	entries := func(role, grantee string) int {
		return s.count(t, db, `SELECT count(*) FROM pg_default_acl d, aclexplode(d.defaclacl) a
			WHERE d.defaclrole = $1::regrole AND a.grantee = $2::regrole`, s.ident(role), s.ident(grantee))
	}
	admin := s.ident(s.Admin.Username)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{Config: s.serverHCL("") + dbHCL + grant},
			{
				PreConfig: func() {
					s.exec(t, db,
						"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" GRANT SELECT ON TABLES TO "+s.ident(other),
						"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" IN SCHEMA public GRANT INSERT ON TABLES TO "+s.ident(other))
				},
				Config: s.serverHCL("") + dbHCL + grant + ownerBlockHCL(user, pw, 1, ""),
				Check: s.check(func() error {
					if n := entries(s.Admin.Username, other); n != 2 {
						return fmt.Errorf("the admin's default privileges for %s: %d entries left, want 2 (they are not the owner's to take)", other, n)
					}
					if n := entries(user, other); n != 0 {
						return fmt.Errorf("the owner was given %d default privileges for %s that the admin set", n, other)
					}
					if n := entries(user, reader); n != 1 {
						return fmt.Errorf("the grant's default privileges for %s FOR ROLE the owner: %d, want 1", reader, n)
					}
					if n := entries(s.Admin.Username, reader); n != 0 {
						return fmt.Errorf("the admin kept %d default privileges for %s", n, reader)
					}
					if err := s.as(user, pw, db, "CREATE TABLE later (v int)", "INSERT INTO later VALUES (1)"); err != nil {
						return err
					}
					return s.as(reader, principalPW, db, "SELECT v FROM later")
				}),
			},
			{
				Config:   s.serverHCL("") + dbHCL + grant + ownerBlockHCL(user, pw, 1, ""),
				PlanOnly: true,
			},
		},
	})
}

// TestAccOwnerTrust_adminNameOutsideOwnerPattern (item 13a): an admin role
// whose name no owner could have ("adm@…", a character outside the owner
// pattern) grants on a database it still owns.
func TestAccOwnerTrust_adminNameOutsideOwnerPattern(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, reader := uniqueName("tan"), uniqueName("rdr")
	admin := s.CreateAdminLogin(t, "adm@srv_"+uniqueName("x"))
	s.principal(t, reader)
	t.Cleanup(func() { s.dropDatabase(t, db) })
	envMu.Lock()
	os.Setenv(AdminPasswordEnv("pgadm"), admin.Password)
	envMu.Unlock()
	cfg := caCertsHCL(map[string]string{"pgadm": s.CAPEM}) + fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name     = "pgadm"
  engine   = "postgres"
  host     = %q
  port     = %d
  username = %q
  tls      = "verify-full"
}

resource "tenantdb_tenant_database" "db" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
`, s.Host, s.Port, admin.Username, db) + grantHCL("g", "tenantdb_tenant_database.db.name", reader, `["SELECT"]`, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: s.check(func() error {
					if o := s.databaseOwner(t, db); o != admin.Username {
						return fmt.Errorf("database %s is owned by %q, want the admin", db, o)
					}
					if err := s.as(admin.Username, admin.Password, db, "CREATE TABLE later (v int)", "INSERT INTO later VALUES (1)"); err != nil {
						return err
					}
					return s.as(reader, principalPW, db, "SELECT v FROM later")
				}),
			},
			{
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
}

// TestAccOwnerTrust_rotationBackToPendingLogin (item 13b): a rotation back
// to a login whose drop is still pending says so (not "this resource did
// not create it") and changes nothing; once what blocked the drop is gone,
// the same apply drops it and rotates back.
func TestAccOwnerTrust_rotationBackToPendingLogin(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, elsewhere, user, user2 := uniqueName("tpb"), uniqueName("else"), uniqueName("app"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db, elsewhere)
		s.dropLogins(t, user, user2)
	})
	pw := "Trust-pw-1"
	addr := "tenantdb_tenant_owner.o"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, "")},
			{
				PreConfig: func() {
					s.exec(t, "", "CREATE DATABASE "+s.ident(elsewhere))
					s.exec(t, elsewhere, "CREATE TABLE blocker (v int)", "ALTER TABLE blocker OWNER TO "+s.ident(user))
				},
				Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.StringExact(user)),
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, ""),
				ExpectError: regexp.MustCompile(`PreExistingOwnerUser(.|\n)*earlier(.|\n)*previous_username(.|\n)*retried(.|\n)*` +
					`username =\s+"` + user2 + `"`),
			},
			{
				PreConfig: func() {
					if o := s.databaseOwner(t, db); o != user2 {
						t.Fatalf("database %s is owned by %q after the refused rotation, want %q (nothing changed)", db, o, user2)
					}
					if err := s.as(user, pw, "", "SELECT 1"); err != nil {
						t.Fatalf("the pending login %s no longer logs in: %v", user, err)
					}
					s.exec(t, elsewhere, "DROP TABLE blocker")
				},
				Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.Null()),
				},
				Check: s.check(func() error {
					if o := s.databaseOwner(t, db); o != user {
						return fmt.Errorf("database %s is owned by %q, want %q", db, o, user)
					}
					if s.loginExists(t, user2) {
						return fmt.Errorf("login %s still exists", user2)
					}
					return s.as(user, pw, db, "SELECT 1")
				}),
			},
		},
	})
}

// TestAccOwnerTrust_rotationCarriesSelfRestriction (item 13c): an owner that
// restricted its own default privileges (REVOKE INSERT ... FROM itself)
// keeps the restriction through a username rotation: the new login's
// tables made later take no INSERT either.
func TestAccOwnerTrust_rotationCarriesSelfRestriction(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user, user2 := uniqueName("tsr"), uniqueName("app"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user, user2)
	})
	pw := "Trust-pw-1"
	restricted := func(login string) int {
		return s.count(t, db, `SELECT count(*) FROM pg_default_acl d WHERE d.defaclrole = $1::regrole AND d.defaclnamespace = 0
			AND d.defaclobjtype = 'r' AND NOT EXISTS (SELECT 1 FROM aclexplode(d.defaclacl) a
			WHERE a.grantee = d.defaclrole AND a.privilege_type = 'INSERT')`, s.ident(login))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{
				Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, ""),
				Check: s.check(func() error {
					if err := s.as(user, pw, db, "ALTER DEFAULT PRIVILEGES REVOKE INSERT ON TABLES FROM "+s.ident(user)); err != nil {
						return err
					}
					if restricted(user) != 1 {
						return fmt.Errorf("the owner's own restriction is not in pg_default_acl")
					}
					return nil
				}),
			},
			{
				Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
				Check: s.check(func() error {
					if n := restricted(user2); n != 1 {
						return fmt.Errorf("the new owner %s has %d restricting entries, want 1: the restriction was dropped", user2, n)
					}
					if err := s.as(user2, pw, db, "CREATE TABLE later (v int)"); err != nil {
						return err
					}
					if err := s.as(user2, pw, db, "INSERT INTO later VALUES (1)"); err == nil {
						return fmt.Errorf("the new owner may INSERT into a table it made after the rotation")
					}
					return s.as(user2, pw, db, "SELECT v FROM later")
				}),
			},
			{
				Config:   s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
				PlanOnly: true,
			},
		},
	})
}
