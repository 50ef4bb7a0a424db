// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// Plan and refresh only read (issue 33, item 10): `terraform plan` with
// import blocks for every resource type, `terraform plan -refresh-only`
// and a normal plan's refresh send the server nothing but reads from the
// admin, proven from the server's own statement log; what an import needs
// on the server (PostgreSQL: the admin's membership in the owner role)
// happens in the apply that follows, which then works.

// readOnlyStatement: what a plan or a refresh may send. Reads (SELECT,
// WITH, SHOW; PostgreSQL's advisory lock functions are SELECTs), session
// settings (SET, but not SET PASSWORD / ROLE / DEFAULT ROLE / GLOBAL,
// which change more than the session or act as someone else) and
// transaction control.
var readOnlyStatement = regexp.MustCompile(`(?is)^\s*(?:(?:/\*.*?\*/|--[^\n]*\n)\s*)*` +
	`(?:SELECT|WITH|SHOW|BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK|RESET|DISCARD|DEALLOCATE|` +
	`SET\s+(?:SESSION\s+|LOCAL\s+)?(?:[A-Za-z_.@]+\s*(?:=|TO)|NAMES|TRANSACTION|STATEMENT\s))`)

var writingSet = regexp.MustCompile(`(?i)^\s*SET\s+(?:PASSWORD|ROLE|DEFAULT\s+ROLE|GLOBAL|PERSIST|@@GLOBAL|SESSION\s+AUTHORIZATION)`)

// requireOnlyReads fails unless every statement the admin sent since mark
// is a read (readOnlyStatement), and none is DDL/DCL (testserver's own
// classification, MariaDB's account commands included). It returns how
// many statements it checked, so a test can tell it saw the plan at all.
func (s accServer) requireOnlyReads(t *testing.T, mark testserver.LogMark, what string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stmts, err := s.StatementsSince(ctx, mark, s.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	sqlKinds := map[string]bool{"Query": true, "Prepare": true, "Execute": true}
	n := 0
	for _, st := range stmts {
		if s.Engine == "mysql" && !sqlKinds[st.Kind] {
			continue // Connect, Init DB, Quit...: checked by DDLSince below
		}
		n++
		if !readOnlyStatement.MatchString(st.Text) || writingSet.MatchString(st.Text) {
			t.Errorf("%s: the admin ran a statement that is not a read: %s", what, st)
		}
	}
	ddl, err := s.DDLSince(ctx, mark, s.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ddl {
		t.Errorf("%s: the admin ran DDL/DCL: %s", what, st)
	}
	return n
}

// TestReadOnlyStatement: the classifier of requireOnlyReads.
func TestReadOnlyStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1": true, "  select datname FROM pg_database": true, "WITH g AS (SELECT 1) SELECT * FROM g": true,
		"SHOW GRANTS FOR 'a'@'%'": true, "SET lock_timeout = '5s'": true, "SET SESSION sql_mode = ''": true,
		"SET NAMES utf8mb4": true, "SELECT pg_advisory_lock(hashtextextended($1, 0))": true, "/* x */ SELECT 1": true,
		"BEGIN": true, "COMMIT": true,
		`GRANT "o" TO CURRENT_USER`: false, "SET ROLE o": false, "SET PASSWORD FOR 'a'@'%' = PASSWORD('x')": false,
		"SET DEFAULT ROLE ALL TO 'a'": false, "SET GLOBAL x = 1": false, "COMMENT ON DATABASE d IS 'x'": false,
		"ALTER DATABASE d OWNER TO o": false, "CREATE DATABASE d": false, "DO $$ BEGIN END $$": false,
		"REVOKE ALL ON DATABASE d FROM PUBLIC": false, "INSERT INTO t VALUES (1)": false,
	} {
		if got := readOnlyStatement.MatchString(q) && !writingSet.MatchString(q); got != want {
			t.Errorf("%q read-only = %v, want %v", q, got, want)
		}
	}
}

// TestAccPlanOnlyReads: a tenant made elsewhere (a database, its owner
// login, a grant to another login) is imported with import blocks for all
// four resource types. The plan, and the plans after the apply (normal and
// -refresh-only), run only reads; on PostgreSQL the admin is still no
// member of the owner role after the plan. The apply joins it, sets the
// owner's password and changes the grant; then a password rotation of the
// imported owner works and the grantee holds the new privilege.
func TestAccPlanOnlyReads(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			dbs, owners := s.fleet(t, uniqueName("pro"), "Peer-pw-1", 1)
			db, owner := dbs[0], owners[0]
			reader := uniqueName("pro_r")
			s.principal(t, reader)
			if err := s.as(owner, "Peer-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (v int)", "INSERT INTO "+s.table(db, "t")+" VALUES (7)"); err != nil {
				t.Fatal(err)
			}
			if engine == "postgres" {
				s.exec(t, "", fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", s.ident(db), s.ident(reader)))
				if err := s.as(owner, "Peer-pw-1", db, "GRANT SELECT ON "+s.table(db, "t")+" TO "+s.ident(reader)); err != nil {
					t.Fatal(err)
				}
			} else {
				s.exec(t, "", fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", s.ident(strings.ReplaceAll(db, "_", `\_`)), reader))
			}
			server, _ := json.Marshal(map[string]any{"name": s.name, "engine": s.Engine, "host": s.Host, "port": s.Port,
				"username": s.Admin.Username, "tls": "verify-full"})
			imports := fmt.Sprintf(`
import {
  to = tenantdb_db_server.main
  id = %q
}
`, string(server)) + s.tenantImportBlocks(db, owner, reader)
			body := func(pw string, version int) string {
				return s.serverHCL("") + ownerHCL(db, owner, pw, version, "") + grantHCL("g", "tenantdb_tenant_database.db.name", reader, `["SELECT", "INSERT"]`, "")
			}
			adminActsAsOwner := func() bool {
				return s.count(t, "", `SELECT COUNT(*) FROM pg_roles WHERE rolname = $1 AND pg_has_role($2, oid, 'USAGE')`,
					owner, s.Admin.Username) == 1
			}
			w := newCLIWorkspace(t)
			w.write(body("Tenantdb-pw-2", 1) + imports)
			// PostgreSQL 16+: the adoption guide's superuser step (fleet)
			// already made the admin a member; the plan must change nothing.
			actedBefore := engine == "postgres" && adminActsAsOwner()

			mark := s.MarkLog(t)
			r := w.run("plan", "-no-color").mustSucceed(t, "plan with import blocks for every resource type")
			if n := s.requireOnlyReads(t, mark, "plan with import blocks"); n == 0 {
				t.Fatal("the statement log shows no statement of the plan: it proves nothing")
			}
			if !strings.Contains(r.Output, "4 to import") {
				t.Errorf("the plan does not import all four resources:\n%s", r.Output)
			}
			if engine == "postgres" && adminActsAsOwner() != actedBefore {
				t.Fatalf("after the plan the admin acts as %s: %v, before %v: the plan changed the server", owner, !actedBefore, actedBefore)
			}

			w.run("apply", "-auto-approve").mustSucceed(t, "apply the imports")
			if engine == "postgres" && !adminActsAsOwner() {
				t.Errorf("after the apply the admin does not act as %s: the import's join did not happen", owner)
			}
			w.write(body("Tenantdb-pw-2", 1))
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "the plan after the import apply is empty")
			for _, args := range [][]string{{"plan"}, {"plan", "-refresh-only"}, {"apply", "-refresh-only", "-auto-approve"}} {
				mark := s.MarkLog(t)
				w.run(args...).mustSucceed(t, strings.Join(args, " "))
				if n := s.requireOnlyReads(t, mark, strings.Join(args, " ")); n == 0 {
					t.Fatalf("%s: the statement log shows no statement: it proves nothing", strings.Join(args, " "))
				}
			}

			// The apply after the import works: the grant's change is on the
			// server, and a password rotation of the imported owner.
			if err := s.as(reader, principalPW, db, "INSERT INTO "+s.table(db, "t")+" VALUES (8)"); err != nil {
				t.Errorf("the imported grant's change (INSERT) is not on the server: %v", err)
			}
			if err := s.as(owner, "Tenantdb-pw-2", db, "SELECT v FROM "+s.table(db, "t")); err != nil {
				t.Errorf("the imported owner does not log in with the password its import's apply set: %v", err)
			}
			w.write(body("Tenantdb-pw-3", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "rotate the imported owner's password")
			if err := s.as(owner, "Tenantdb-pw-3", db, "SELECT v FROM "+s.table(db, "t")); err != nil {
				t.Errorf("the imported owner does not log in with its new password: %v", err)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "the plan after the rotation is empty")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy (retain: the imported tenant stays)")
			if !s.databaseExists(t, db) || !s.loginExists(t, owner) {
				t.Error("destroy dropped the imported database or owner")
			}
		})
	}
}
