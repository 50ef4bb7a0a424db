// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// onFinished installs fn as the finished-statement hook for the rest of
// the test (run alone, as onStatement).
func onFinished(t *testing.T, fn func(st ddl.Statement)) {
	t.Helper()
	session.FinishedHook.Store(&fn)
	t.Cleanup(func() { session.FinishedHook.Store(nil) })
}

// TestCancelAfterCommit_ownerCreateReadBack (PostgreSQL, issue 34 item
// 3d): the operation's deadline passes right after the owner create's
// transaction committed (a cancel that reaches the server after COMMIT
// finds nothing to stop). What committed is read back: ClaimOwner returns
// the new login's identity, so state records it, rather than an error
// that leaves a finished login no apply may adopt (the next create would
// refuse it as PreExistingOwnerUser).
func TestCancelAfterCommit_ownerCreateReadBack(t *testing.T) {
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only")
	}
	e := newEnv(t, "postgres")
	db, user, pw := e.newDB("cac"), e.newUser("caco"), "After-commit-1"
	if _, _, err := e.s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	var created, cancelled atomic.Bool
	onStatement(t, func(_ context.Context, st ddl.Statement) {
		if strings.HasPrefix(st.String(), "CREATE ROLE "+`"`+user.String()+`"`) {
			created.Store(true)
		}
	})
	onFinished(t, func(st ddl.Statement) {
		if created.Load() && st.String() == ddl.Commit().String() && !cancelled.Swap(true) {
			cancel()
		}
	})
	id, err := e.s.ClaimOwner(ctx, db, user, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
	if !cancelled.Load() {
		t.Fatal("the create's COMMIT was never seen: the test played nothing")
	}
	if err != nil || id == "" {
		t.Fatalf("ClaimOwner after a cancel that came once the create had committed = %q, %v; want the login's identity", id, err)
	}
	tenant := e.mustOpenAs(user.String(), pw, db.String())
	tenant.Close()
}
