// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// holdDropBlocker holds, as the superuser and outside db, a lock that
// DROP DATABASE db waits for before it removes anything: PostgreSQL an
// open transaction that commented on the database (a lock on the database
// object; its pg_database row is left to the revokes a destroy runs
// before the drop); MySQL/MariaDB LOCK TABLES on its table (the drop
// takes every table's metadata lock before it drops any).
func (s accServer) holdDropBlocker(t *testing.T, db, table string) (release func()) {
	t.Helper()
	if s.Engine == "postgres" {
		return s.holdLock(t, "", fmt.Sprintf("COMMENT ON DATABASE %s IS 'tenantdb test: the drop waits'", s.ident(db)))
	}
	return s.holdTableLock(t, fmt.Sprintf("`%s`.%s", db, table))
}

// dropWaiting reports whether a DROP DATABASE of the admin waits for a
// lock on the server now (super: the superuser's pool, taken on the test's
// goroutine).
func (s accServer) dropWaiting(super *sql.DB) bool {
	query := `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ? AND INFO LIKE 'DROP DATABASE%' AND STATE LIKE 'Waiting for%'`
	if s.Engine == "postgres" {
		query = `SELECT COUNT(*) FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'DROP DATABASE%' AND wait_event_type = 'Lock'`
	}
	var n int
	return super.QueryRow(query, s.Admin.Username).Scan(&n) == nil && n > 0
}

// awaitDropWaiting waits up to limit for dropWaiting, and reports whether
// it saw it.
func (s accServer) awaitDropWaiting(super *sql.DB, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if s.dropWaiting(super) {
			return true
		}
	}
	return false
}

// invalidDatabases counts PostgreSQL databases marked invalid.
func (s accServer) invalidDatabases(t *testing.T) int {
	t.Helper()
	if s.Engine != "postgres" {
		return 0
	}
	var n int
	if err := s.super(t, "").QueryRow(`SELECT COUNT(*) FROM pg_database WHERE datconnlimit = -2`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAccDropDatabase_runsPastDeadline (issue 48): a destroy under
// deletion_policy = "delete" whose DROP DATABASE is still running when
// operation_timeout passes. The drop waits for a superuser's lock that is
// released only after the deadline, so it is running at the deadline on
// every run, however fast the server. It is not cancelled: it finishes,
// the destroy succeeds, the database is gone (never invalid on
// PostgreSQL), and a warning says it ran past operation_timeout and how
// long. Going back (the configuration keeps the tenant again) creates it
// anew and converges. On the code before (e3febed) the drop was cancelled
// at the deadline and the destroy failed.
func TestAccDropDatabase_runsPastDeadline(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db := uniqueName("dpd")
			t.Cleanup(func() { s.dropDatabase(t, db) })
			w := newCLIWorkspace(t)
			cfg := withProviderArg(withLockTimeout(s.serverHCL("")+tenantDatabaseHCL(db, `  deletion_policy = "delete"`), "60s"),
				"operation_timeout", "10s") // the least it may be
			w.write(cfg)
			w.run("apply", "-auto-approve").mustSucceed(t, "database")
			// On a connection closed after: a session left in the database
			// would be refused as DatabaseInUse.
			if err := s.as(s.Super.Username, s.Super.Password, db, "CREATE TABLE "+s.table(db, "t1")+" (v int)",
				"INSERT INTO "+s.table(db, "t1")+" VALUES (1)", "CREATE TABLE "+s.table(db, "t2")+" (v int)"); err != nil {
				t.Fatal(err)
			}

			release := s.holdDropBlocker(t, db, "t2")
			super := s.super(t, "")
			done := make(chan cliResult, 1)
			start := time.Now()
			go func() { done <- w.run("destroy", "-auto-approve") }()
			// However long terraform takes to get there on a loaded
			// machine: once the drop waits for the lock, 13 s more is
			// past the operation's 10 s deadline (it began before).
			if !s.awaitDropWaiting(super, 3*time.Minute) {
				t.Error("the DROP DATABASE was not seen waiting for the held lock")
			}
			time.Sleep(13 * time.Second)
			release()
			r := <-done
			took := time.Since(start)
			r.mustSucceed(t, "destroy whose DROP DATABASE ran past operation_timeout")
			d := r.requireDiag(t, "warning", "Ran past operation_timeout")
			t.Logf("destroy took %s: %s", took.Round(time.Millisecond), d.Detail)
			if !regexp.MustCompile(`DROP DATABASE IF EXISTS .*` + db + `.* ran [0-9.]+m?s past the deadline, [0-9.]+m?s in all, and finished`).MatchString(d.Detail) {
				t.Errorf("the warning does not say the drop ran past the deadline and how long: %s", d.Detail)
			}
			if s.databaseExists(t, db) {
				t.Fatal("the database is still on the server after the destroy succeeded")
			}
			if n := s.invalidDatabases(t); n != 0 {
				t.Errorf("%d invalid databases on the server", n)
			}
			if w.stateHas("tenantdb_tenant_database") {
				t.Error("the dropped database is still in state")
			}

			// Back: the configuration keeps the tenant again.
			w.write(cfg)
			w.run("apply", "-auto-approve").mustSucceed(t, "the configuration with the database again")
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "plan after going back")
			if !s.databaseExists(t, db) {
				t.Fatal("going back did not create the database again")
			}
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}

// TestAccDropDatabase_invalid (PostgreSQL, issue 48): a tenant whose
// database PostgreSQL marks invalid (datconnlimit = -2, what a DROP
// DATABASE stopped part way by someone else leaves; set here by the
// superuser, as the server itself sets it). A refresh reports it as
// DriftDetected with the statement that finishes it, for the database, the
// owner and the grant alike, and never fails trying to connect into it
// (e3febed: the grant's refresh failed, "cannot connect to invalid
// database"); a change (here the grant's privileges) is refused
// DatabaseInvalid with that statement and runs no SQL; destroy of a
// database this resource created (deletion_policy = "delete") finishes
// the drop. After the refusal's statement, run as written, the rest of
// the tenant is destroyed cleanly.
func TestAccDropDatabase_invalid(t *testing.T) {
	for _, kind := range engines() {
		if kind != "postgres" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			s.RequireStatementLog(t)
			n := killNames{db: uniqueName("inv"), ownerA: uniqueName("inva"), grantee: uniqueName("invg")}
			s.principal(t, n.grantee)
			t.Cleanup(func() {
				s.dropDatabase(t, n.db)
				s.dropLogins(t, n.ownerA)
			})
			full := func(privileges string) string {
				return s.serverHCL("") + killDatabaseHCL(n) + killOwnerHCL(n.ownerA, killPW1, 1) + killGrantHCL(n, privileges)
			}
			w := newCLIWorkspace(t)
			w.write(full(`["SELECT"]`))
			w.run("apply", "-auto-approve").mustSucceed(t, "the tenant")
			s.exec(t, "", "UPDATE pg_database SET datconnlimit = -2 WHERE datname = '"+n.db+"'")
			drop := fmt.Sprintf("DROP DATABASE %s;", s.ident(n.db))

			r := w.run("plan").mustSucceed(t, "plan of a tenant whose database is invalid")
			r.forbidDiag(t, "Could not")
			drift := 0
			for _, d := range r.Diagnostics {
				if d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected") && strings.Contains(d.Detail, "invalid") {
					drift++
					if !strings.Contains(d.Detail, drop) || !strings.Contains(d.Detail, "data is gone") {
						t.Errorf("the warning does not give %q and say the data is gone: %s", drop, d.Detail)
					}
				}
			}
			if drift != 3 {
				t.Errorf("%d DriftDetected warnings naming the invalid database, want 3 (database, owner, grant): %+v", drift, r.Diagnostics)
			}

			mark := s.MarkLog(t)
			w.write(full(`["SELECT", "INSERT"]`))
			r = w.run("apply", "-auto-approve").mustFail(t, "a grant change on an invalid database")
			d := r.requireDiag(t, "error", "DatabaseInvalid")
			if !strings.Contains(d.Detail, drop) {
				t.Errorf("the refusal does not give %q: %s", drop, d.Detail)
			}
			if ran := s.adminDDLSince(t, mark); len(ran) != 0 {
				t.Errorf("the refused change ran %d statements: %+v", len(ran), ran)
			}

			// Offboarding: the owner and the grant are refused with the
			// same statement; it is run as written, then they go.
			w.write(full(`["SELECT"]`))
			r = w.run("destroy", "-auto-approve").mustFail(t, "destroy of the owner and grant of an invalid database")
			d = r.requireDiag(t, "error", "DatabaseInvalid")
			m := recoveryStatement.FindStringSubmatch(d.Detail)
			if m == nil {
				t.Fatalf("the refusal gives no statement to run: %s", d.Detail)
			}
			s.exec(t, "", m[1])
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy after the drop was finished by hand")
			if s.databaseExists(t, n.db) || s.loginExists(t, n.ownerA) {
				t.Error("the destroy left the database or the owner login")
			}

			// A database alone: its own destroy finishes the drop.
			n2 := uniqueName("inv")
			t.Cleanup(func() { s.dropDatabase(t, n2) })
			w2 := newCLIWorkspace(t)
			w2.write(s.serverHCL("") + killDatabaseHCL(killNames{db: n2}))
			w2.run("apply", "-auto-approve").mustSucceed(t, "a database")
			s.exec(t, "", "UPDATE pg_database SET datconnlimit = -2 WHERE datname = '"+n2+"'")
			w2.run("destroy", "-auto-approve").mustSucceed(t, "destroy of an invalid database this resource created")
			if s.databaseExists(t, n2) {
				t.Error("the invalid database is still on the server after its destroy")
			}
		})
	}
}
