// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"
	"time"
)

// TestAccOperationTimeout_dropDatabaseCancelled (MySQL/MariaDB, issue 34
// item 3c): a destroy under deletion_policy = "delete" whose DROP DATABASE
// waits past operation_timeout for a superuser's LOCK TABLES on one of the
// tenant's tables. The DROP is killed on the server (KILL QUERY) while it
// waits for the tables' metadata locks, which it takes for every table
// before it drops any: nothing is dropped (every table and row is still
// there), nothing completes after the lock goes, the database stays in
// state with an error saying so, and the next destroy finishes.
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
			w.write(withProviderArg(withLockTimeout(cfg, "1h"), "operation_timeout", "10s"))
			w.run("apply", "-auto-approve").mustSucceed(t, "database")
			s.exec(t, db, "CREATE TABLE t1 (v int)", "INSERT INTO t1 VALUES (1), (2), (3)", "CREATE TABLE t2 (v int)")

			release := s.holdTableLock(t, fmt.Sprintf("`%s`.t2", db))
			r := w.run("destroy", "-auto-approve").mustFail(t, "destroy whose DROP DATABASE is blocked past operation_timeout")
			r.requireDiag(t, "error", "Operation timed out")
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
