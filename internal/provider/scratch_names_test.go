// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Scratch names are the provider's (issue 33, item 1): a PostgreSQL claim
// makes its database under a nonce name in the tenantdb_claim_ namespace
// and renames it; a database named like one that is not a leftover of a
// claim (no mark, not the admin's, or holding anything) is never dropped,
// and no tenant may take such a name.

// scratchLookalike is a database named exactly like a nonce of a claim of
// db (ddl.NoncePrefixFor plus 24 hex digits), made by the superuser and
// owned by owner; marked gives it the OID a claim's CREATE gives its nonce
// (ddl.NonceOID), withRows a table holding rows. Dropped at cleanup.
func (s accServer) scratchLookalike(t *testing.T, db, random, owner string, marked, withRows bool) string {
	t.Helper()
	name := ddl.NoncePrefixFor(must(ddl.NewDatabaseName(ddl.EnginePostgres, db))) + random
	t.Cleanup(func() { s.dropDatabase(t, name) })
	q := fmt.Sprintf("CREATE DATABASE %s OWNER %s TEMPLATE template0", s.ident(name), s.ident(owner))
	if marked {
		q += fmt.Sprintf(" OID %d", ddl.NonceOID(name))
	}
	s.exec(t, "", q)
	if withRows {
		// As the admin, on a connection closed afterwards: a session left in
		// it would make any DROP fail, and the test would not show whether
		// the claim tried one.
		if owner != s.Admin.Username {
			t.Fatal("rows are written as the admin: the look-alike must be the admin's")
		}
		if err := s.as(owner, s.Admin.Password, name, "CREATE TABLE tenant_rows (v int)", "INSERT INTO tenant_rows VALUES (1), (2), (3)"); err != nil {
			t.Fatal(err)
		}
	}
	return name
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestAccPostgresClaim_scratchLookalikesSurvive reproduces the issue: a
// database named like a claim's scratch database of <name> holds rows (a
// tenant database from before such names were refused looks the same);
// creating the tenant database <name> drops it. Now the claim drops only
// a leftover it can prove (its mark, owned by the admin, holding nothing):
// the rows survive, a look-alike owned by another role neither fails the
// claim (no raw 42501) nor is touched, and a real leftover is dropped.
func TestAccPostgresClaim_scratchLookalikesSurvive(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, other := uniqueName("scr"), uniqueName("scr_other")
	s.CreateLogin(t, other, "Other-pw-1")
	admin := s.Admin.Username
	withRows := s.scratchLookalike(t, db, "0123456789abcdef01234567", admin, false, true)  // the scenario
	markedRows := s.scratchLookalike(t, db, "1123456789abcdef01234567", admin, true, true) // a mark, but it holds rows
	theirs := s.scratchLookalike(t, db, "2123456789abcdef01234567", other, true, false)    // the variant: another role's
	unmarked := s.scratchLookalike(t, db, "3123456789abcdef01234567", admin, false, false) // empty, but no mark
	leftover := s.scratchLookalike(t, db, "4123456789abcdef01234567", admin, true, false)  // a killed claim's leftover
	t.Cleanup(func() { s.dropDatabase(t, db) })

	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + tenantDatabaseHCL(db, `deletion_policy = "delete"`))
	w.run("apply", "-auto-approve").mustSucceed(t, "the claim of "+db+" beside databases named like its scratch databases")
	if !s.databaseExists(t, db) {
		t.Fatalf("%s was not created", db)
	}
	for _, name := range []string{withRows, markedRows} {
		if n := s.count(t, name, "SELECT COUNT(*) FROM tenant_rows"); n != 3 {
			t.Errorf("%s holds %d rows after the claim, want 3", name, n)
		}
	}
	for _, name := range []string{theirs, unmarked} {
		if !s.databaseExists(t, name) {
			t.Errorf("%s was dropped: it is not a leftover this claim can prove its own", name)
		}
	}
	if s.databaseExists(t, leftover) {
		t.Errorf("%s, a leftover of a killed claim of %s (marked, the admin's, empty), was not dropped", leftover, db)
	}
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "the plan after the claim is empty")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	// The variant again, now alone: every later claim of the name works.
	w.run("apply", "-auto-approve").mustSucceed(t, "a second claim of "+db+" beside another role's look-alike")
	if !s.databaseExists(t, theirs) || s.count(t, withRows, "SELECT COUNT(*) FROM tenant_rows") != 3 {
		t.Error("a second claim touched a look-alike")
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

// TestAccScratchNames_refusedAtPlan: on both engines every way a database
// name reaches the server (a tenant database's name, the database of an
// owner or a grant, an import ID of each) refuses the scratch namespace in
// any case, InvalidIdentifier, at plan time, and the admin runs no DDL or
// DCL (statement log, unchanged catalog).
func TestAccScratchNames_refusedAtPlan(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipOnStandIn(t, engine, "refused at plan, before any SQL")
			s := testAccServer(t, engine)
			user := uniqueName("scr_u")
			s.CreateLogin(t, user, principalPW)
			scratch := "tenantdb_claim_0123456789abcdef_0123456789abcdef01234567"
			mixed := "Tenantdb_Claim_" + uniqueName("x")
			imp := func(typ, label, id string) string {
				return fmt.Sprintf("import {\n  to = %s.%s\n  id = %s\n}\n", typ, label, id)
			}
			cases := map[string]string{
				"tenant database":       tenantDatabaseHCL(scratch, ""),
				"tenant database, case": tenantDatabaseHCL(mixed, ""),
				"owner's database": fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = %q
  username            = %q
  password_wo         = "Owner-pw-1"
  password_wo_version = 1
}
`, mixed, user),
				"grant's database": grantHCL("g", fmt.Sprintf("%q", strings.ToUpper(scratch)), user, `["SELECT"]`, ""),
				"database import": imp("tenantdb_tenant_database", "i", fmt.Sprintf("%q", s.importID(map[string]any{"name": scratch}))) +
					fmt.Sprintf("resource \"tenantdb_tenant_database\" \"i\" {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n}\n", "i_"+user),
				"owner import": imp("tenantdb_tenant_owner", "o",
					fmt.Sprintf("jsonencode({ server = tenantdb_db_server.main.ref, database = %q, username = %q })", mixed, user)) +
					ownerHCL("i_"+user, user, "Owner-pw-1", 1, ""),
				"grant import": imp("tenantdb_tenant_grant", "g",
					fmt.Sprintf("jsonencode({ server = tenantdb_db_server.main.ref, database = %q, username = %q })", scratch, user)) +
					grantHCL("g", fmt.Sprintf("%q", "i_"+user), user, `["SELECT"]`, ""),
			}
			for what, body := range cases {
				t.Run(strings.ReplaceAll(what, " ", "_"), func(t *testing.T) {
					w := newCLIWorkspace(t)
					w.write(s.serverHCL("") + body)
					var proof noSQLProof
					s.beforeRefusal(t, &proof, "")
					r := w.run("plan").mustFail(t, what+" in the scratch namespace")
					d := r.requireDiag(t, "error", "InvalidIdentifier")
					if !strings.Contains(d.Summary+d.Detail, ddl.NonceDatabasePrefix) {
						t.Errorf("the refusal does not name the namespace: %s\n%s", d.Summary, d.Detail)
					}
					proof.assert(t, "InvalidIdentifier (scratch namespace, "+what+")")
				})
			}
		})
	}
}
