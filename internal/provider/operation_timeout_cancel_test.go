// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestAccOperationTimeout_cancelledOnServer (MySQL/MariaDB): closing a
// client connection does not stop a statement there, so operation_timeout
// must stop it on the server. A superuser holds a read lock on the table
// CREATE USER and ALTER USER write (MariaDB mysql.global_priv, MySQL
// mysql.user), so both wait. At operation_timeout the statement is killed
// (KILL QUERY), and after the lock goes nothing lands: no orphan login from
// the create, the old password still works after the rotation, and the next
// applies converge. Before, the CREATE USER / ALTER USER completed when the
// lock went, after the operation had reported it cancelled.
func TestAccOperationTimeout_cancelledOnServer(t *testing.T) {
	for _, kind := range engines() {
		if providerEngine(kind) != "mysql" {
			continue
		}
		t.Run(kind, func(t *testing.T) { testAccServer(t, kind).operationTimeoutKilled(t) })
	}
}

// operationTimeoutKilled is TestAccOperationTimeout_cancelledOnServer on
// s (direct, or through a bastion: TestAccSSHBastion_timeouts).
func (s accServer) operationTimeoutKilled(t *testing.T) {
	db, user, pw := uniqueName("kq"), uniqueName("kqo"), "Kill-pw-1"
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	aclTable := "mysql.user"
	if s.Flavor == "mariadb" {
		aclTable = "mysql.global_priv"
	}
	w := newCLIWorkspace(t)
	dbOnly := fmt.Sprintf("\nresource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n}\n", db)
	cfg := func(version int) string {
		c := s.serverHCL("") + ownerHCL(db, user, pw+fmt.Sprint(version), version, "")
		return withProviderArg(withLockTimeout(c, "1h"), "operation_timeout", "10s")
	}
	w.write(withProviderArg(s.serverHCL("")+dbOnly, "operation_timeout", "10s"))
	w.run("apply", "-auto-approve").mustSucceed(t, "database")

	// 1. An owner create blocked past operation_timeout.
	release := s.holdTableLock(t, aclTable)
	w.write(cfg(1))
	// Bounded (runWithin): a statement nothing stops on the server keeps
	// the apply waiting for the lock this test holds.
	r, _ := w.runWithin(t, blockedApplyBound, "apply", "-auto-approve")
	r.mustFail(t, "owner create blocked past operation_timeout")
	r.requireDiag(t, "error", "Operation timed out")
	s.requireNoAdminStatementRunning(t, "CREATE USER")
	release()
	time.Sleep(2 * time.Second) // what a lingering statement would need to land
	if s.loginExists(t, user) {
		t.Fatal("the CREATE USER completed after the operation reported it cancelled: an orphan login")
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "owner create once the lock is gone")
	if err := s.as(user, pw+"1", db, "SELECT 1"); err != nil {
		t.Fatalf("the owner cannot log in: %v", err)
	}

	// 2. A password rotation blocked past operation_timeout.
	release = s.holdTableLock(t, aclTable)
	w.write(cfg(2))
	r, _ = w.runWithin(t, blockedApplyBound, "apply", "-auto-approve")
	r.mustFail(t, "password rotation blocked past operation_timeout")
	r.requireDiag(t, "error", "Operation timed out")
	s.requireNoAdminStatementRunning(t, "ALTER USER")
	release()
	time.Sleep(2 * time.Second)
	if err := s.as(user, pw+"1", db, "SELECT 1"); err != nil {
		t.Fatalf("the ALTER USER landed after the operation reported it cancelled (old password refused): %v", err)
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the lock is gone")
	if err := s.as(user, pw+"2", db, "SELECT 1"); err != nil {
		t.Fatalf("the new password does not work: %v", err)
	}
	if got := w.stateAttr("tenantdb_tenant_owner", "user_created"); got != true {
		t.Fatalf("user_created = %v after the rotation, want true (the login was taken for replaced)", got)
	}
}

// holdTableLock holds LOCK TABLES table READ in a superuser session until
// the returned function ends it (UNLOCK TABLES: the pooled connection
// outlives the test's use of it).
func (s accServer) holdTableLock(t *testing.T, table string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := s.super(t, "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "LOCK TABLES "+table+" READ"); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			if _, err := conn.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
				t.Errorf("UNLOCK TABLES: %v", err)
			}
			conn.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// adminStatementRunning reports whether the admin runs a statement
// starting with prefix now.
func (s accServer) adminStatementRunning(t *testing.T, prefix string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var n int
	err := s.super(t, "").QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ? AND INFO LIKE ?`,
		s.Admin.Username, prefix+"%").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n != 0
}

// requireNoAdminStatementRunning fails when the admin still runs a
// statement starting with prefix (a statement the operation reported
// cancelled, still waiting on the server).
func (s accServer) requireNoAdminStatementRunning(t *testing.T, prefix string) {
	t.Helper()
	if s.adminStatementRunning(t, prefix) {
		t.Fatalf("%s statement(s) of the admin still run on the server after the operation timed out", strings.TrimSpace(prefix))
	}
}

// TestAccOperationTimeout_cancelledOnServerPostgres: the same on
// PostgreSQL. pgx's default on a cancelled context only closes the socket,
// and a backend waiting for a lock does not notice: the ALTER ROLE ...
// PASSWORD commits when the lock goes, after the operation reported it
// cancelled. A superuser's open transaction that altered the owner role
// holds its row, so a password rotation waits; at operation_timeout the
// provider sends a cancel request, and the old password still works after
// the transaction ends.
func TestAccOperationTimeout_cancelledOnServerPostgres(t *testing.T) {
	testAccServer(t, "postgres").operationTimeoutCancelled(t)
}

// operationTimeoutCancelled is
// TestAccOperationTimeout_cancelledOnServerPostgres on s (direct, or
// through a bastion: TestAccSSHBastion_timeouts).
func (s accServer) operationTimeoutCancelled(t *testing.T) {
	db, user, pw := uniqueName("kqp"), uniqueName("kqpo"), "Kill-pw-1"
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	cfg := func(version int) string {
		c := s.serverHCL("") + ownerHCL(db, user, pw+fmt.Sprint(version), version, "")
		return withProviderArg(withLockTimeout(c, "1h"), "operation_timeout", "10s")
	}
	w := newCLIWorkspace(t)
	w.write(cfg(1))
	w.run("apply", "-auto-approve").mustSucceed(t, "owner")
	release := s.holdLock(t, "", fmt.Sprintf(`ALTER ROLE %q CONNECTION LIMIT 50`, user))
	w.write(cfg(2))
	r, _ := w.runWithin(t, blockedApplyBound, "apply", "-auto-approve")
	r.mustFail(t, "password rotation blocked past operation_timeout").requireDiag(t, "error", "Operation timed out")
	release()
	time.Sleep(2 * time.Second) // what a lingering statement would need to commit
	if err := s.as(user, pw+"1", db, "SELECT 1"); err != nil {
		t.Fatalf("the ALTER ROLE committed after the operation reported it cancelled (old password refused): %v", err)
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the lock is gone")
	if err := s.as(user, pw+"2", db, "SELECT 1"); err != nil {
		t.Fatalf("the new password does not work: %v", err)
	}
}
