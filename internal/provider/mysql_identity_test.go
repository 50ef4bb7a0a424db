// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// A MySQL database's identity is its mark: an empty procedure
// tenantdb_mark_<nonce> the admin creates in it right after CREATE
// DATABASE (ddl/claim_mark_mysql.go). These tests change the server as a
// superuser or as the tenant's own login would, and check what destroy
// does to the server itself: rows in the tenant's table, privilege rows,
// logins, the mark procedures.

// markProcedure is one procedure of ours in a MySQL database, as the
// superuser reads it.
type markProcedure struct {
	Name, Definer string
	Created       int64
}

// markProcedures lists db's procedures named with tenantdb's mark prefix,
// whoever made them.
func (s accServer) markProcedures(t *testing.T, db string) []markProcedure {
	t.Helper()
	rows, err := s.super(t, "").Query(`SELECT ROUTINE_NAME, DEFINER, UNIX_TIMESTAMP(CREATED) FROM information_schema.ROUTINES
		WHERE ROUTINE_SCHEMA = ? AND LEFT(ROUTINE_NAME, ?) = ? ORDER BY ROUTINE_NAME`, db, len(ddl.MySQLMarkPrefix), ddl.MySQLMarkPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []markProcedure
	for rows.Next() {
		var p markProcedure
		if err := rows.Scan(&p.Name, &p.Definer, &p.Created); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// requireMark fails unless db holds exactly one mark procedure, made by
// the admin login, and returns it.
func (s accServer) requireMark(t *testing.T, db string) markProcedure {
	t.Helper()
	marks := s.markProcedures(t, db)
	if len(marks) != 1 || marks[0].Definer != s.Admin.Username+"@%" {
		t.Fatalf("want one mark procedure in %s with DEFINER %s@%%, got %+v", db, s.Admin.Username, marks)
	}
	return marks[0]
}

// requireUnprovenPlan runs a plan and requires the DriftDetected warning
// that says the database's mark is not the recorded one, and why (phrase).
func requireUnprovenPlan(t *testing.T, w *cliWorkspace, phrase string) cliResult {
	t.Helper()
	plan := w.run("plan").mustSucceed(t, "plan")
	d := plan.requireDiag(t, "warning", "DriftDetected: ")
	if !strings.Contains(plan.Output, ddl.MySQLMarkPrefix) || !strings.Contains(plan.Output, phrase) {
		t.Fatalf("the plan does not say the database's mark is gone and why (%q): %q", phrase, d.Detail)
	}
	return plan
}

// requireDropSkipped runs destroy and checks that the database is kept
// with its data, that DatabaseDropSkipped names it and gives its DROP
// DATABASE for a human to judge, and that the owner and the grantee have
// nothing left on it.
func (s accServer) requireDropSkipped(t *testing.T, w *cliWorkspace, db, owner, grantee string) {
	t.Helper()
	destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	d := destroy.requireDiag(t, "warning", "DatabaseDropSkipped: ")
	if !strings.Contains(d.Detail, db) || !strings.Contains(d.Detail, "DROP DATABASE `"+db+"`;") {
		t.Fatalf("DatabaseDropSkipped does not name the database and give its DROP statement: %q", d.Detail)
	}
	if n := s.tableRows(t, db); n != 1 {
		t.Fatalf("the database's table has %d rows after destroy, want 1 (never dropped)", n)
	}
	s.requireOffboarded(t, db, owner, trustOwnerPW, grantee)
	if s.loginExists(t, owner) {
		t.Fatal("destroy left the owner login it made (its identity is the login's own, not the database's)")
	}
}

// TestAccMySQLIdentity_recreatedBySuperuser: a superuser drops a tenant
// database under deletion_policy = "delete" and creates another of the same
// name with a row of its own (it inherits the owner's and the grantee's
// privilege rows). The plan shows it (DriftDetected, and the grant and
// owner planned to lose what the new database inherited); destroy never
// drops it, keeps its row, and revokes: no row of the owner or grantee is
// left on the name. This lost the other party's database before marks.
func TestAccMySQLIdentity_recreatedBySuperuser(t *testing.T) {
	s := testAccServerOnly(t, testserver.KindMySQL, "a MySQL database's identity is its mark procedure (MariaDB's is its comment, PostgreSQL's its OID)")
	w, db, owner, grantee := s.trustTenant(t, "myre", "delete")
	s.requireMark(t, db)
	s.dropDatabase(t, db)
	s.foreignDatabase(t, db)
	if err := s.as(grantee, principalPW, db, "SELECT * FROM "+s.table(db, "t")); err != nil {
		t.Fatalf("the re-created database did not inherit the grantee's row (what the revoke below is about): %v", err)
	}

	plan := requireUnprovenPlan(t, w, "re-created outside Terraform")
	for addr, act := range plannedActions(plan) {
		if act != "no-op" {
			t.Fatalf("the plan %ss %s: a database without its mark is unproven, never replaced (no change)", act, addr)
		}
	}
	s.requireDropSkipped(t, w, db, owner, grantee)
}

// TestAccMySQLIdentity_tenantForgesMark: the tenant's login tries to put
// the mark back itself: it cannot name the admin as DEFINER (1227), so it
// drops the mark and creates one of the same name at the same CREATED time
// (SET timestamp needs no privilege). Its DEFINER is the tenant, so it is
// no mark: the plan warns, and destroy, with the forgery in place, drops
// nothing and revokes the grant. The owner login is left out of the
// destroy (state rm): MySQL 8.0.22+ refuses DROP USER of a login that is
// the DEFINER of a stored object (4006) unless the dropper holds
// SET_ANY_DEFINER, which README's admin does not: a separate finding.
func TestAccMySQLIdentity_tenantForgesMark(t *testing.T) {
	s := testAccServerOnly(t, testserver.KindMySQL, "a MySQL database's identity is its mark procedure (MariaDB's is its comment, PostgreSQL's its OID)")
	w, db, owner, grantee := s.trustTenant(t, "myforge", "delete")
	mark := s.requireMark(t, db)
	proc := s.ident(db) + "." + s.ident(mark.Name)
	err := s.as(owner, trustOwnerPW, db, fmt.Sprintf("CREATE DEFINER = '%s'@'%%' PROCEDURE %s.%s() BEGIN END",
		s.Admin.Username, s.ident(db), s.ident(ddl.MySQLMarkPrefix+"0000000000000000")))
	if err == nil || !strings.Contains(err.Error(), "1227") {
		t.Fatalf("the tenant made a procedure with the admin as DEFINER (want 1227): %v", err)
	}
	s.asOneSession(t, owner, trustOwnerPW, db, "DROP PROCEDURE "+proc, fmt.Sprintf("SET timestamp = %d", mark.Created),
		"CREATE PROCEDURE "+proc+"() SQL SECURITY INVOKER BEGIN END", "SET timestamp = DEFAULT")
	forged := s.markProcedures(t, db)
	if len(forged) != 1 || forged[0].Name != mark.Name || forged[0].Created != mark.Created || forged[0].Definer == mark.Definer {
		t.Fatalf("the forgery is not the same name and time with the tenant as DEFINER: %+v (was %+v)", forged, mark)
	}
	requireUnprovenPlan(t, w, "tenant's own login may have dropped it")
	w.editState(func(st map[string]any) { // terraform state rm tenantdb_tenant_owner.o
		var kept []any
		for _, r := range st["resources"].([]any) {
			if r.(map[string]any)["type"] != "tenantdb_tenant_owner" {
				kept = append(kept, r)
			}
		}
		st["resources"] = kept
	})
	destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	destroy.requireDiag(t, "warning", "DatabaseDropSkipped: ")
	if n := s.tableRows(t, db); n != 1 {
		t.Fatalf("the database's table has %d rows after destroy, want 1 (never dropped)", n)
	}
	if got := s.grantResidue(t, db, grantee); len(got) > 0 {
		t.Fatalf("after destroy the grantee %s still holds %v on %s", grantee, got, db)
	}
}

// asOneSession runs statements as a login on one connection (SET
// timestamp holds for the session).
func (s accServer) asOneSession(t *testing.T, user, pw, db string, stmts ...string) {
	t.Helper()
	pool, err := s.Open(testserver.Login{Username: user, Password: pw}, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s as %s: %v", q, user, err)
		}
	}
}

// TestAccMySQLIdentity_importGetsMark: an imported MySQL database has no
// mark. The import's plan says the apply will write one and runs no SQL;
// the apply creates it (DEFINER the admin), and the plan after is empty.
// From then on it is proven by the mark: dropped and re-created by a
// superuser, it reads as not the recorded one.
func TestAccMySQLIdentity_importGetsMark(t *testing.T) {
	s := testAccServerOnly(t, testserver.KindMySQL, "a MySQL database's identity is its mark procedure (MariaDB's is its comment, PostgreSQL's its OID)")
	db := uniqueName("myimp")
	t.Cleanup(func() { s.dropDatabase(t, db) })
	s.exec(t, "", "CREATE DATABASE "+s.ident(db))
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + fmt.Sprintf(`
import {
  to = tenantdb_tenant_database.t
  id = jsonencode({ server = tenantdb_db_server.main.ref, name = %q })
}
resource "tenantdb_tenant_database" "t" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, db, db))
	var proof noSQLProof
	s.beforeRefusal(t, &proof, "")
	plan := w.run("plan").mustSucceed(t, "the import's plan")
	proof.assert(t, "the import's plan writes no mark")
	d := plan.requireDiag(t, "warning", summaryMarkPlanned)
	if !strings.Contains(d.Detail, ddl.MySQLMarkPrefix) {
		t.Fatalf("the planned-mark warning does not say what the apply will create: %q", d.Detail)
	}
	if m := s.markProcedures(t, db); len(m) != 0 {
		t.Fatalf("the plan wrote a mark: %+v", m)
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "import and mark")
	s.requireMark(t, db)
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "an empty plan after the mark")

	s.dropDatabase(t, db)
	s.foreignDatabase(t, db)
	w.run("plan").mustSucceed(t, "plan").requireDiag(t, "warning", "DriftDetected: ")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	s.requireForeignIntact(t, db)
}

// restoreMarkStatement finds, in a diagnostic, the statements that give a
// MySQL database its recorded mark back (run as the admin login).
var restoreMarkStatement = regexp.MustCompile("(SET timestamp = [0-9]+); (CREATE PROCEDURE `[^`]+`\\.`" + ddl.MySQLMarkPrefix +
	"[0-9a-f]{16}`\\(\\) COMMENT '[^']*' SQL SECURITY INVOKER BEGIN END); (SET timestamp = DEFAULT);")

// TestAccMySQLIdentity_markRestoredByDBA: the mark is dropped, and an
// in-place change is refused (IdentityMismatch) with no SQL and the
// collation untouched; the refusal gives the statements that recreate the
// recorded mark. Run as the admin login (a DBA who knows it is the same
// database), they prove it again: the change applies, and destroy drops
// the database. A test that the restore really is the recorded identity.
func TestAccMySQLIdentity_markRestoredByDBA(t *testing.T) {
	s := testAccServerOnly(t, testserver.KindMySQL, "a MySQL database's identity is its mark procedure (MariaDB's is its comment, PostgreSQL's its OID)")
	w, db := s.createdDatabase(t, "myrest")
	mark := s.requireMark(t, db)
	s.exec(t, "", "DROP PROCEDURE "+s.ident(db)+"."+s.ident(mark.Name))
	_, before := s.charsetCollation(t, db)

	w.write(s.serverHCL("") + deleteDatabaseHCL(db, `collation = "utf8mb4_bin"`))
	var proof noSQLProof
	s.beforeRefusal(t, &proof, "")
	alter := w.run("apply", "-auto-approve")
	proof.assert(t, "IdentityMismatch (alter of a database without its mark)")
	if alter.Err == nil {
		t.Fatalf("altering a database without its mark succeeded:\n%s", alter.Output)
	}
	d := alter.requireDiag(t, "error", "IdentityMismatch: ")
	if _, after := s.charsetCollation(t, db); after != before {
		t.Fatalf("the collation changed from %s to %s", before, after)
	}
	m := restoreMarkStatement.FindStringSubmatch(d.Detail)
	if m == nil {
		t.Fatalf("the refusal does not give the statements that restore the mark: %q", d.Detail)
	}
	s.asOneSession(t, s.Admin.Username, s.Admin.Password, "", m[1], m[2], m[3])
	if got := s.requireMark(t, db); got != mark {
		t.Fatalf("the restored mark %+v is not the recorded one %+v", got, mark)
	}

	w.run("apply", "-auto-approve").mustSucceed(t, "the change, once the mark is back")
	if _, after := s.charsetCollation(t, db); after != "utf8mb4_bin" {
		t.Fatalf("collation = %s after the apply, want utf8mb4_bin", after)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy").forbidDiag(t, "DatabaseDropSkipped")
	if s.databaseExists(t, db) {
		t.Fatal("destroy kept a database whose mark was restored (its identity is proven again)")
	}
}

// TestAccMySQLIdentity_importedTenantFollowsMark: a tenant adopted with
// import blocks (database, owner, grant) is recorded without a mark; the
// first apply marks the database, and the owner and the grant take the mark
// as their database's identity. A superuser re-creating the database later
// is then seen by all three: the plan warns (the mark is gone: unproven)
// and, a missing proof being no replacement, plans no revoke.
func TestAccMySQLIdentity_importedTenantFollowsMark(t *testing.T) {
	s := testAccServerOnly(t, testserver.KindMySQL, "a MySQL database's identity is its mark procedure (MariaDB's is its comment, PostgreSQL's its OID)")
	dbs, owners := s.fleet(t, uniqueName("myfol"), "Peer-pw-1", 1)
	db, owner := dbs[0], owners[0]
	reader := uniqueName("myfol_r")
	s.principal(t, reader)
	s.exec(t, "", fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", s.ident(strings.ReplaceAll(db, "_", `\_`)), reader))
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, owner, "Peer-pw-1", 1, "") +
		grantHCL("g", "tenantdb_tenant_database.db.name", reader, `["SELECT"]`, "") + s.tenantImportBlocks(db, owner, reader))
	w.run("apply", "-auto-approve").mustSucceed(t, "import the tenant")
	s.requireMark(t, db)
	w.run("apply", "-auto-approve").mustSucceed(t, "a second apply records what the first one made")

	s.recreateDatabase(t, db)
	plan := w.run("plan").mustSucceed(t, "plan")
	unproven := 0
	for _, d := range plan.Diagnostics {
		if d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected: ") && strings.Contains(d.Detail, ddl.MySQLMarkPrefix) {
			unproven++
		}
	}
	if unproven < 3 {
		t.Fatalf("want the database, the owner and the grant warned unproven by the mark:\n%+v", plan.Diagnostics)
	}
	for addr, act := range plannedActions(plan) {
		if act != "no-op" {
			t.Fatalf("the plan %ss %s: a database without its mark is unproven, never replaced (no change)", act, addr)
		}
	}
}

// tenantImportBlocks are the import blocks that adopt database db, its
// owner login and the grant to grantee into tenantdb_tenant_database.db,
// tenantdb_tenant_owner.o and tenantdb_tenant_grant.g.
func (s accServer) tenantImportBlocks(db, owner, grantee string) string {
	return fmt.Sprintf(`
import {
  to = tenantdb_tenant_database.db
  id = %q
}
import {
  to = tenantdb_tenant_owner.o
  id = %q
}
import {
  to = tenantdb_tenant_grant.g
  id = %q
}
`, s.importID(map[string]any{"name": db}), s.importID(map[string]any{"database": db, "username": owner}),
		s.importID(map[string]any{"database": db, "username": grantee}))
}
