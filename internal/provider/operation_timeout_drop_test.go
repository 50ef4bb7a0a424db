// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"
	"time"
)

// TestAccOperationTimeout_dropDatabaseCancelled (MySQL/MariaDB, issue 34
// item 3c, changed by issue 48): a destroy under deletion_policy =
// "delete" whose DROP DATABASE waits for a superuser's LOCK TABLES on one
// of the tenant's tables past operation_timeout. Issue 34 killed the DROP
// at the deadline (KILL QUERY); issue 48 never stops a DROP DATABASE once
// sent, because a kill after its metadata locks were granted leaves some
// tables dropped (MariaDB drops them one by one). What bounds the wait is
// lock_timeout (here 20 s, past the 10 s operation_timeout): the drop is
// not killed at the deadline (it is still waiting after it), fails on its
// own at lock_timeout having dropped nothing (it takes every table's
// metadata lock before it drops any: every table and row is still there),
// nothing completes after the lock goes, the database stays in state with
// an error and a warning saying the drop ran past the deadline, and the
// next destroy finishes.
func TestAccOperationTimeout_dropDatabaseCancelled(t *testing.T) {
	for _, kind := range engines() {
		if providerEngine(kind) != "mysql" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db := uniqueName("kqd")
			t.Cleanup(func() { s.dropDatabase(t, db) })
			w := newCLIWorkspace(t)
			cfg := s.serverHCL("") + tenantDatabaseHCL(db, `  deletion_policy = "delete"`)
			w.write(withProviderArg(withLockTimeout(cfg, "20s"), "operation_timeout", "10s"))
			w.run("apply", "-auto-approve").mustSucceed(t, "database")
			s.exec(t, db, "CREATE TABLE t1 (v int)", "INSERT INTO t1 VALUES (1), (2), (3)", "CREATE TABLE t2 (v int)")

			release := s.holdTableLock(t, fmt.Sprintf("`%s`.t2", db))
			done := make(chan cliResult, 1)
			go func() { done <- w.run("destroy", "-auto-approve") }()
			time.Sleep(14 * time.Second) // past the deadline, before lock_timeout
			if !s.adminStatementRunning(t, "DROP DATABASE") {
				t.Error("the DROP DATABASE is no longer running after operation_timeout: it was stopped at the deadline")
			}
			r := (<-done).mustFail(t, "destroy whose DROP DATABASE is blocked past lock_timeout")
			r.requireDiag(t, "error", "Operation timed out")
			r.requireDiag(t, "warning", "Ran past operation_timeout")
			for _, d := range r.Diagnostics {
				t.Logf("%s: %s\n%s", d.Severity, d.Summary, d.Detail)
			}
			s.requireNoAdminStatementRunning(t, "DROP DATABASE")
			release()
			time.Sleep(2 * time.Second) // what a lingering DROP would need to land
			if !s.databaseExists(t, db) {
				t.Fatal("the DROP DATABASE completed after the operation reported it stopped")
			}
			var n int
			if err := s.super(t, db).QueryRow("SELECT COUNT(*) FROM t1").Scan(&n); err != nil || n != 3 {
				t.Fatalf("t1 holds %d rows (%v) after the stopped drop, want 3: a partial drop", n, err)
			}
			if err := s.super(t, db).QueryRow("SELECT COUNT(*) FROM t2").Scan(&n); err != nil {
				t.Fatalf("t2 is gone after the stopped drop (a partial drop): %v", err)
			}
			if !w.stateHas("tenantdb_tenant_database") {
				t.Fatal("the database left state although it is still on the server")
			}
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy once the lock is gone")
			if s.databaseExists(t, db) {
				t.Fatal("the database is still there after the second destroy")
			}
		})
	}
}
