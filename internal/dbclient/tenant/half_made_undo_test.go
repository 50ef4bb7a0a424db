// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestFinishHalfMade_failureLeavesAdoptedLogin (PostgreSQL, issue 34 item
// 3a): an apply killed after the owner create handed the database over
// and before it marked the login done leaves a live login: it owns the
// database, and the tenant may already have made tables with it. The next
// apply adopts it (its mark proves it ours) and finishes; when that finish
// fails at a later step (here the done mark, blocked by a superuser's open
// transaction past lock_timeout), nothing may be taken from the login. The
// finish used to carry the create's undo (REASSIGN OWNED to the admin,
// DROP OWNED, DROP ROLE): the tenant's table went to the admin and the
// login lost its rights on it. Now a failed finish leaves the login as it
// found it, the error says so, and the apply after the lock goes finishes.
func TestFinishHalfMade_failureLeavesAdoptedLogin(t *testing.T) {
	t.Parallel()
	e, s := newPostgresEnvLockTimeout(t, "logins carry a mark there")
	db, user, pw := e.newDB("hmu"), e.newUser("hmuo"), "Half-made-1"
	privs := mustPrivileges(t, e.engine, "ALL PRIVILEGES")
	if _, _, err := s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}

	// The killed apply: every statement of the create but its last (the
	// done mark) ran, as ClaimOwner builds them.
	d := s.dialect()
	mark, err := s.proof.OwnerMark(e.ctx, db, "")
	if err != nil {
		t.Fatal(err)
	}
	create := ddl.MarkOwnerLogin(d, ddl.CreateMarkedOwner(d, db, user, mustPassword(t, pw), privs, ddl.NewClaimMark()), user, mark)
	if err := s.sess.Exec(e.ctx, ddl.Plan{Statements: create.Statements}); err != nil {
		t.Fatal(err)
	}

	// The tenant uses the login before the next apply.
	tenant := e.mustOpenAs(user.String(), pw, db.String())
	exec(t, tenant, `CREATE TABLE t (v int)`, `INSERT INTO t SELECT generate_series(1, 1000)`)
	tenant.Close()

	// A superuser's open transaction holds the login's object lock: the
	// finish's done mark (COMMENT ON ROLE) waits past lock_timeout.
	release := holdPostgresTx(t, e.superDB(), fmt.Sprintf(`COMMENT ON ROLE %q IS 'held'`, user.String()))
	_, err = s.ClaimOwner(e.ctx, db, user, mustPassword(t, pw), privs, ddl.ConnectionLimit{})
	if err == nil {
		t.Fatal("the finish succeeded although its done mark was blocked")
	}
	if !strings.Contains(err.Error(), "left as found") {
		t.Errorf("the error does not say the adopted login was left as found:\n%v", err)
	}
	requireTenantKeeps(t, e, db, user, pw, "after the failed finish")
	release()

	if _, err := s.ClaimOwner(e.ctx, db, user, mustPassword(t, pw), privs, ddl.ConnectionLimit{}); err != nil {
		t.Fatalf("the next apply does not finish the adopted login: %v", err)
	}
	requireTenantKeeps(t, e, db, user, pw, "after the finish")
	if got, ok, err := s.proof.LoginMark(e.ctx, user); err != nil || !ok || !got.Finished {
		t.Fatalf("mark after the finish = %+v, %v, %v; want a done mark", got, ok, err)
	}
}

// requireTenantKeeps fails unless user still logs in to db, owns it, and
// reads all 1,000 rows of its table t.
func requireTenantKeeps(t *testing.T, e *env, db ddl.DatabaseName, user ddl.Username, pw, when string) {
	t.Helper()
	tenant, err := e.openAs(user.String(), pw, db.String())
	if err != nil {
		t.Fatalf("%s: the adopted login cannot log in: %v", when, err)
	}
	defer tenant.Close()
	var n int
	if err := tenant.QueryRowContext(e.ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 1000 {
		t.Fatalf("%s: the tenant reads %d rows of its table (%v), want 1000", when, n, err)
	}
	owner := superScalar[string](e, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1`, db.String())
	if owner != user.String() {
		t.Fatalf("%s: the database is owned by %q, want the adopted login %q", when, owner, user)
	}
}

// holdPostgresTx runs stmt in a superuser transaction left open (holding
// its locks) until the returned function rolls it back.
func holdPostgresTx(t *testing.T, db *sql.DB, stmt string) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback()
		}
	}
	t.Cleanup(release)
	return release
}
