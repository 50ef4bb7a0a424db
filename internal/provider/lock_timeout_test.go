// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"database/sql"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The blocked applies below run under bounds of their own (issue 38), so a
// missing guard fails the test by name, fast, and leaves no process behind:
//
//   - the lock-timeout tests set lock_timeout = "2s" and operation_timeout
//     = "30s": without the session's lock setting the statement would wait
//     until operation_timeout (or, before it existed, forever), and the
//     test fails saying so (requireEndedByLockTimeout);
//   - every blocked apply runs under blockedApplyBound: past it terraform
//     and the provider (one process group) are killed and the test fails
//     (runWithin). Without operation_timeout's deadline
//     TestAccOperationTimeout_rotationBlocked fails there instead of
//     hanging until go test's -timeout.
const (
	lockTestLockTimeout      = "2s"
	lockTestOperationTimeout = 30 * time.Second
	// blockedApplyBound covers operation_timeout (30 s at most here), the
	// undo, and terraform's own start and refresh on a loaded machine.
	blockedApplyBound = 2 * time.Minute
)

// withLockTestTimeouts is cfg with the lock-timeout tests' provider
// operation_timeout.
func withLockTestTimeouts(cfg string) string {
	return withProviderArg(cfg, "operation_timeout", lockTestOperationTimeout.String())
}

// runWithin is w.run bounded by limit: terraform runs in a process group of
// its own; if it has not ended within limit the whole group (terraform and
// the provider it started) is killed and the test fails naming the bound.
// It returns the result and how long the command took.
func (w *cliWorkspace) runWithin(t *testing.T, limit time.Duration, args ...string) (cliResult, time.Duration) {
	t.Helper()
	cmd := exec.Command(cliBinary(), append(args, "-json")...)
	cmd.Dir, cmd.Env = w.dir, append(os.Environ(), w.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return cliResultOf(out.String(), err), time.Since(start)
	case <-time.After(limit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Fatalf("terraform %s did not end within %s (this test's bound): terraform and the provider were killed. "+
			"Nothing ended the blocked statement (operation_timeout's deadline is missing?). The output's end:\n%s",
			args[0], limit, outputEnd(out.String(), 2000))
		return cliResult{}, 0
	}
}

// outputEnd is the last n bytes of s.
func outputEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// requireEndedByLockTimeout fails unless the blocked apply ended by the
// session's lock_timeout: not by operation_timeout, and well before it.
func requireEndedByLockTimeout(t *testing.T, r cliResult, took time.Duration) {
	t.Helper()
	for _, d := range r.Diagnostics {
		if strings.HasPrefix(d.Summary, "Operation timed out") {
			t.Fatalf("the blocked statement waited until operation_timeout (%s; the apply took %s), not lock_timeout (%s): "+
				"the session's lock setting is missing\n%s", lockTestOperationTimeout, took.Round(time.Second), lockTestLockTimeout, d.Detail)
		}
	}
	if took >= lockTestOperationTimeout {
		t.Fatalf("the blocked apply took %s, not about lock_timeout (%s): the session's lock setting is missing",
			took.Round(time.Second), lockTestLockTimeout)
	}
	t.Logf("the blocked apply failed after %s (lock_timeout %s)", took.Round(time.Second), lockTestLockTimeout)
}

// withProviderArg adds an argument (name = "value") to the provider block
// of a configuration built by serverHCL.
func withProviderArg(cfg, name, value string) string {
	return strings.Replace(cfg, "\nprovider \"tenantdb\" {\n", "\nprovider \"tenantdb\" {\n  "+name+" = \""+value+"\"\n", 1)
}

// withLockTimeout sets the provider's lock_timeout.
func withLockTimeout(cfg, timeout string) string {
	return withProviderArg(cfg, "lock_timeout", timeout)
}

// holdLock opens a superuser transaction in db that runs stmt (and so
// holds its locks) until the returned function ends it.
func (s accServer) holdLock(t *testing.T, db, stmt string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := s.super(t, db).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tx *sql.Tx
	if tx, err = conn.BeginTx(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		t.Fatal(err)
	}
	return releaseOnce(t, tx, conn)
}

// releaseOnce is the release of a held lock: it rolls tx back and closes
// conn the first time it is called, and at the test's end if not before.
func releaseOnce(t *testing.T, tx *sql.Tx, conn io.Closer) (release func()) {
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback()
			conn.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// blockedRotation sets up a PostgreSQL tenant whose owner a has made table
// t, in a CLI workspace whose provider has lock_timeout timeout, and a
// superuser transaction holding ACCESS SHARE on t: a rotation to b will wait
// on its REASSIGN OWNED. cfg(user) is the configuration with that owner.
func (s accServer) blockedRotation(t *testing.T, prefix, timeout string) (w *cliWorkspace, db, a, b, pw string, cfg func(string) string) {
	t.Helper()
	db, a, b, pw = uniqueName(prefix), uniqueName(prefix+"a"), uniqueName(prefix+"b"), "Rot-pw-1"
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, a, b)
	})
	w = newCLIWorkspace(t)
	cfg = func(user string) string {
		return withLockTimeout(s.serverHCL("")+ownerHCL(db, user, pw, 1, ""), timeout)
	}
	w.write(cfg(a))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	if err := s.as(a, pw, db, "CREATE TABLE t (v int)", "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	return w, db, a, b, pw, cfg
}

// TestAccLockTimeout_rotationBlocked (PostgreSQL): a session of someone
// else's holds ACCESS SHARE on a tenant table in an open transaction, so a
// username rotation's REASSIGN OWNED waits. With lock_timeout = "2s" the
// apply fails in about that time with an error naming the session, the
// handover is undone (the old login owns the database and connects, no new
// login is left, state still names the old one), and once the session ends
// the same apply succeeds. operation_timeout is 30s: a failure by it
// instead, or after it, is a missing session lock setting (named so).
func TestAccLockTimeout_rotationBlocked(t *testing.T) {
	testAccServer(t, "postgres").lockTimeoutRotationBlocked(t)
}

// lockTimeoutRotationBlocked is TestAccLockTimeout_rotationBlocked on s
// (direct, or through a bastion: TestAccSSHBastion_timeouts).
func (s accServer) lockTimeoutRotationBlocked(t *testing.T) {
	w, db, a, b, pw, cfg := s.blockedRotation(t, "lkt", lockTestLockTimeout)
	release := s.holdLock(t, db, "SELECT v FROM t")

	w.write(withLockTestTimeouts(cfg(b)))
	r, took := w.runWithin(t, blockedApplyBound, "apply", "-auto-approve")
	r.mustFail(t, "rotation blocked by a lock")
	requireEndedByLockTimeout(t, r, took)
	var found bool
	for _, d := range r.Diagnostics {
		if d.Severity == "error" && strings.Contains(d.Detail, "lock_timeout") && strings.Contains(d.Detail, s.Super.Username) {
			found = true
			t.Logf("the refusal:\n%s\n%s", d.Summary, d.Detail)
		}
	}
	if !found {
		t.Fatalf("no error names the lock timeout and the session holding the lock (user %q):\n%+v", s.Super.Username, r.Diagnostics)
	}
	if s.loginExists(t, b) {
		t.Fatal("the new login was left behind after the undo")
	}
	if got := w.stateAttr("tenantdb_tenant_owner", "username"); got != a {
		t.Fatalf("state names %v after the failed rotation, want %q", got, a)
	}
	if err := s.as(a, pw, db, "SELECT v FROM t", "CREATE TABLE t2 (v int)"); err != nil {
		t.Fatalf("the old login does not work after the undo: %v", err)
	}

	release()
	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the lock is gone")
	if s.loginExists(t, a) {
		t.Fatal("the old login survived the rotation")
	}
	if err := s.as(b, pw, db, "SELECT v FROM t", "SELECT v FROM t2"); err != nil {
		t.Fatalf("the new login does not own the tenant's tables: %v", err)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

// TestAccLockTimeout_dropBlocked (MariaDB, MySQL 9.7): a session of someone else's
// has read a tenant table in an open transaction (a metadata lock), so a
// destroy under deletion_policy = "delete" waits on DROP DATABASE. With
// lock_timeout = "2s" it fails with a lock-timeout error, the database and
// its rows stay (and in state), and the destroy succeeds once the session
// ends. As above, operation_timeout is 30s and must not be what ends it.
func TestAccLockTimeout_dropBlocked(t *testing.T) {
	for _, kind := range mysqlFamily {
		t.Run(kind, func(t *testing.T) { testAccServer(t, kind).lockTimeoutDropBlocked(t) })
	}
}

// lockTimeoutDropBlocked is TestAccLockTimeout_dropBlocked on s (direct,
// or through a bastion: TestAccSSHBastion_timeouts). It returns the
// blocked destroy's output.
func (s accServer) lockTimeoutDropBlocked(t *testing.T) string {
	db := uniqueName("lkd")
	t.Cleanup(func() { s.dropDatabase(t, db) })
	w := newCLIWorkspace(t)
	w.write(withLockTestTimeouts(withLockTimeout(s.serverHCL("")+tenantDatabaseHCL(db, `  deletion_policy = "delete"`), lockTestLockTimeout)))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	s.exec(t, "", "CREATE TABLE "+s.ident(db)+".t (v int)", "INSERT INTO "+s.ident(db)+".t VALUES (1)")
	release := s.holdLock(t, "", "SELECT v FROM "+s.ident(db)+".t")

	r, took := w.runWithin(t, blockedApplyBound, "destroy", "-auto-approve")
	r.mustFail(t, "drop blocked by a metadata lock")
	requireEndedByLockTimeout(t, r, took)
	if !strings.Contains(r.Output, "lock_timeout") {
		t.Fatalf("the error does not say the statement hit lock_timeout:\n%s", r.Output)
	}
	if !w.stateHas("tenantdb_tenant_database") {
		t.Fatal("the database left state although it was not dropped")
	}
	var n int
	if err := s.super(t, "").QueryRow("SELECT COUNT(*) FROM " + s.ident(db) + ".t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the tenant's rows: %d, %v", n, err)
	}
	release()
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy once the session ended")
	return r.Output
}

// TestAccOperationTimeout_rotationBlocked (PostgreSQL): with a lock_timeout
// longer than the operation may take, the provider's operation_timeout is
// what ends a rotation blocked on someone else's lock: the apply fails
// saying so, the handover is undone (the old login owns and connects, no
// new login is left, state names the old one), and the apply succeeds
// once the session ends. The blocked apply must end within
// blockedApplyBound (2 minutes): without the deadline the test fails there,
// naming the bound, and kills terraform and the provider.
func TestAccOperationTimeout_rotationBlocked(t *testing.T) {
	s := testAccServer(t, "postgres")
	w, db, a, b, pw, cfg := s.blockedRotation(t, "opt", "1h")
	release := s.holdLock(t, db, "SELECT v FROM t")

	w.write(withProviderArg(cfg(b), "operation_timeout", "10s"))
	r, took := w.runWithin(t, blockedApplyBound, "apply", "-auto-approve")
	r.mustFail(t, "rotation blocked past operation_timeout")
	t.Logf("the blocked apply failed after %s (operation_timeout 10s)", took.Round(time.Second))
	d := r.requireDiag(t, "error", "Operation timed out")
	if !strings.Contains(d.Detail, "operation_timeout (10s)") {
		t.Fatalf("the error does not name the limit:\n%s", d.Detail)
	}
	if s.loginExists(t, b) {
		t.Fatal("the new login was left behind after the undo")
	}
	if got := w.stateAttr("tenantdb_tenant_owner", "username"); got != a {
		t.Fatalf("state names %v after the timed-out rotation, want %q", got, a)
	}
	if err := s.as(a, pw, db, "SELECT v FROM t", "CREATE TABLE t2 (v int)"); err != nil {
		t.Fatalf("the old login does not work after the undo: %v", err)
	}
	release()
	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the lock is gone")
	if err := s.as(b, pw, db, "SELECT v FROM t", "SELECT v FROM t2"); err != nil {
		t.Fatalf("the new login does not own the tenant's tables: %v", err)
	}
}
