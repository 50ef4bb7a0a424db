// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"
)

// TestAccLedger_collidingOwnerMarks (issue 54, item 3): the owner limit
// mark names a database by a 28-bit hash, and t07436 and t26322 share one
// (4131154851). a_app owns t07436; a DBA gives it SELECT on t26322. The
// ledger, not the mark, says which database a login owns: declaring b_app
// as t26322's owner is no OwnerConflict naming a_app, and a grant to a_app
// on t26322 is no GrantUserReserved. Both used to be refused on MariaDB and
// MySQL alike. Asserted from mysql.db and mysql.user.
func TestAccLedger_collidingOwnerMarks(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			if s.Engine == "postgres" {
				t.Skip("a MySQL-family owner mark: PostgreSQL databases have one owner")
			}
			const dbA, dbB, ownerA, ownerB = "t07436", "t26322", "a_app", "b_app"
			if ownerMarkOf(t, kind, dbA) != ownerMarkOf(t, kind, dbB) {
				t.Fatal("t07436 and t26322 no longer share an owner limit mark: the test proves nothing")
			}
			clean := func() {
				s.dropDatabase(t, dbA, dbB)
				s.dropLogins(t, ownerA, ownerB)
			}
			clean()
			t.Cleanup(clean)
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "a" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_database" "b" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_owner" "a" {
  server      = tenantdb_db_server.main.ref
  database    = tenantdb_tenant_database.a.name
  username    = %q
  password_wo = "Owner-pw-1"
  password_wo_version = 1
}
`, dbA, dbB, ownerA)
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "a_app, owner of t07436")
			if got := s.updateLimit(t, ownerA); got != ownerMarkOf(t, kind, dbB) {
				t.Fatalf("a_app carries MAX_UPDATES_PER_HOUR %d, want the shared mark", got)
			}
			s.exec(t, "", fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", s.ident(dbB), ownerA))

			w.write(base + fmt.Sprintf(`
resource "tenantdb_tenant_owner" "b" {
  server      = tenantdb_db_server.main.ref
  database    = tenantdb_tenant_database.b.name
  username    = %q
  password_wo = "Owner-pw-2"
  password_wo_version = 1
}
`, ownerB) + grantHCL("g", "tenantdb_tenant_database.b.name", ownerA, `["SELECT", "INSERT"]`,
				""))
			w.run("apply", "-auto-approve").mustSucceed(t, "b_app owns t26322 and a_app is granted on it")
			if got := s.dbRows(t, dbB, ownerB)["%"]; got != "YYY" {
				t.Fatalf("b_app holds %q on t26322, want its owner's rights", got)
			}
			if got := s.dbRows(t, dbB, ownerA)["%"]; got != "YYN" {
				t.Fatalf("a_app holds %q on t26322, want the grant's SELECT, INSERT", got)
			}
			if got := s.dbRows(t, dbA, ownerA)["%"]; got != "YYY" {
				t.Fatalf("a_app holds %q on its own t07436, want its owner's rights", got)
			}
			if err := s.as(ownerB, "Owner-pw-2", dbB, "CREATE TABLE "+s.table(dbB, "mine")+" (v int)"); err != nil {
				t.Fatalf("b_app cannot use its database: %v", err)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			if s.loginExists(t, ownerA) || s.loginExists(t, ownerB) {
				t.Fatal("destroy left an owner login")
			}
		})
	}
}
