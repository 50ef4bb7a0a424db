// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestAccOwnerTransaction_rotationBlockedKeepsTable (PostgreSQL, issue 34
// item 1): a username rotation's handover is one transaction. Twice it is
// blocked:
//
//  1. after its REASSIGN OWNED ran: a superuser transaction holds
//     pg_default_acl, so the statement carrying the old login's default
//     privileges waits past lock_timeout ("3s"), and meanwhile another
//     session starts reading the tenant's table. When the handover
//     committed statement by statement, that reader got its lock on the
//     table the REASSIGN had already given the new login, the undo's
//     REASSIGN back failed on it, and (before the undo stopped at its first
//     failure) DROP OWNED BY the new login dropped the table with its rows;
//     with the guard, the undo still stopped part way, the table the new
//     login's. Now the reader waits for the handover's transaction, which
//     rolls back whole;
//  2. at its REASSIGN OWNED, past operation_timeout ("10s", its least;
//     lock_timeout an hour, so the deadline's cancel request ends it): the
//     tenant itself reads its table in an open transaction.
//
// Each time the server is as before the apply: the table, its 1,000 rows
// and its default privileges are the old login's, the old login owns the
// database and works, no new login exists, state names the old login. The
// next apply, with the locks gone, converges: the new login owns all of it.
func TestAccOwnerTransaction_rotationBlockedKeepsTable(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, a, b, pw := uniqueName("otx"), uniqueName("otxa"), uniqueName("otxb"), "Rot-pw-1"
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, a, b)
	})
	cfg := func(user, lockTimeout string) string {
		c := withLockTimeout(s.serverHCL("")+ownerHCL(db, user, pw, 1, ""), lockTimeout)
		return withProviderArg(c, "operation_timeout", "10s")
	}
	w := newCLIWorkspace(t)
	w.write(cfg(a, "1h"))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	if err := s.as(a, pw, db, "CREATE TABLE t (v int)", "INSERT INTO t SELECT generate_series(1, 1000)",
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO PUBLIC"); err != nil {
		t.Fatal(err)
	}

	// tenantIs fails unless owner owns the database, table t with its
	// 1,000 rows and the default privileges, and reads t.
	tenantIs := func(owner, when string) {
		t.Helper()
		if got := s.databaseOwner(t, db); got != owner {
			t.Fatalf("%s: the database is owned by %q, want %q", when, got, owner)
		}
		if n := s.count(t, db, `SELECT count(*) FROM pg_class WHERE relname = 't' AND relnamespace = 'public'::regnamespace AND pg_get_userbyid(relowner) = $1`, owner); n != 1 {
			t.Fatalf("%s: table t is not owned by %q, or is gone", when, owner)
		}
		if n := s.count(t, db, `SELECT count(*) FROM t`); n != 1000 {
			t.Fatalf("%s: table t has %d rows, want 1000", when, n)
		}
		if n := s.count(t, db, `SELECT count(*) FROM pg_default_acl WHERE pg_get_userbyid(defaclrole) = $1`, owner); n != 1 {
			t.Fatalf("%s: %q has %d default privilege entries, want 1", when, owner, n)
		}
		if err := s.as(owner, pw, db, "SELECT v FROM t LIMIT 1"); err != nil {
			t.Fatalf("%s: the owner login does not work: %v", when, err)
		}
	}
	asBefore := func(why string) {
		t.Helper()
		if s.loginExists(t, b) {
			t.Fatalf("blocked %s: the new login %q was left", why, b)
		}
		if got := w.stateAttr("tenantdb_tenant_owner", "username"); got != a {
			t.Fatalf("blocked %s: state names %v, want %q", why, got, a)
		}
		tenantIs(a, "after the rotation blocked "+why)
	}

	// 1. Blocked after its REASSIGN OWNED, a reader arriving meanwhile.
	releaseACL := s.holdLock(t, db, "LOCK TABLE pg_catalog.pg_default_acl IN EXCLUSIVE MODE")
	w.write(cfg(b, "3s"))
	applied := make(chan cliResult, 1)
	go func() { applied <- w.run("apply", "-auto-approve") }()
	s.waitAdminWaits(t, "ALTER DEFAULT PRIVILEGES")
	releaseReader := s.holdLockAsync(t, db, "SELECT count(*) FROM t")
	r := <-applied
	r.mustFail(t, "rotation blocked after its REASSIGN OWNED")
	requireDetail(t, r, "(lock_timeout)", "rolled back")
	releaseReader()
	releaseACL()
	asBefore("after its REASSIGN OWNED")

	// 2. Blocked at its REASSIGN OWNED by the tenant's own read, until
	// operation_timeout.
	release := s.holdTenantRead(t, a, pw, db)
	w.write(cfg(b, "1h"))
	r = w.run("apply", "-auto-approve").mustFail(t, "rotation blocked at its REASSIGN OWNED")
	r.requireDiag(t, "error", "Operation timed out")
	requireDetail(t, r, "rolled back")
	release()
	asBefore("at its REASSIGN OWNED")

	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the locks are gone")
	if s.loginExists(t, a) {
		t.Fatalf("the old login %q survived the rotation", a)
	}
	tenantIs(b, "after the rotation")
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "no changes after the rotation")
}

// requireDetail fails unless one error diagnostic's detail holds every
// text in wants.
func requireDetail(t *testing.T, r cliResult, wants ...string) {
	t.Helper()
	for _, d := range r.Diagnostics {
		found := d.Severity == "error"
		for _, want := range wants {
			found = found && strings.Contains(d.Detail, want)
		}
		if found {
			return
		}
	}
	t.Fatalf("no error diagnostic says all of %q:\n%+v", wants, r.Diagnostics)
}

// waitAdminWaits waits (up to a minute) until a statement of the admin
// that starts with prefix waits for a lock.
func (s accServer) waitAdminWaits(t *testing.T, prefix string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s.count(t, "", `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock' AND query LIKE $2`,
			s.Admin.Username, prefix+"%") > 0 {
			return
		}
	}
	t.Fatalf("no statement of the admin starting %q waited for a lock within a minute", prefix)
}

// holdLockAsync is holdLock for a statement that may itself wait for a
// lock: it runs in the background; the returned function ends its
// transaction (after the statement got its lock).
func (s accServer) holdLockAsync(t *testing.T, db, stmt string) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := s.super(t, db).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() {
		_, err := tx.ExecContext(ctx, stmt)
		ran <- err
	}()
	done := false
	release = func() {
		if !done {
			done = true
			if err := <-ran; err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
			_ = tx.Rollback()
			conn.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// holdTenantRead opens a transaction as login user in db that reads table
// t (ACCESS SHARE, held until the returned function ends it): an ordinary
// reader, not a superuser.
func (s accServer) holdTenantRead(t *testing.T, user, pw, db string) (release func()) {
	t.Helper()
	conn, err := s.Open(testserver.Login{Username: user, Password: pw}, db)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin()
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(fmt.Errorf("the tenant's read: %w", err))
	}
	return releaseOnce(t, tx, conn)
}
