// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// onStatement installs fn as the statement hook (session.StatementHook, statement.go) for
// the rest of the test. Tests that use it run alone (not t.Parallel): the
// hook sees every statement of the package's servers.
func onStatement(t *testing.T, fn func(ctx context.Context, st ddl.Statement)) {
	t.Helper()
	session.StatementHook.Store(&fn)
	t.Cleanup(func() { session.StatementHook.Store(nil) })
}

// TestTimeout_undoKeepsTenantLock (MySQL/MariaDB, issue 34 item 3b): the
// operation's deadline passes while an owner create's GRANT waits for a
// superuser's LOCK TABLES on the grant tables; the GRANT is killed (KILL
// QUERY) and the undo (DROP USER) runs. Closing the connection would have
// released the tenant's GET_LOCK, letting another apply of the same
// tenant run between the timeout and the undo; the connection is kept, so
// while the undo waits, the session that runs it is the one holding the
// tenant's lock (IS_USED_LOCK). After the lock goes the undo finishes: no
// login left.
func TestTimeout_undoKeepsTenantLock(t *testing.T) {
	for _, kind := range engines {
		if kind == "postgres" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			spec := e.s.spec
			spec.LockTimeout = 30 * time.Second
			s, err := e.reg.Server(e.ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			db, user := e.newDB("tul"), e.newUser("tulo")
			if _, _, err := s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
				t.Fatal(err)
			}
			grantTables := "mysql.db"
			super, err := e.superDB().Conn(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer super.Close()

			ctx, cancel := context.WithCancel(e.ctx)
			defer cancel()
			locked := false
			onStatement(t, func(_ context.Context, st ddl.Statement) {
				if locked || !strings.Contains(st.String(), "GRANT ") || !strings.Contains(st.String(), user.String()) {
					return
				}
				// The GRANT (second statement) is about to run: the
				// grant tables are locked, so it waits, and the
				// operation's time runs out while it does.
				locked = true
				if _, err := super.ExecContext(context.Background(), "LOCK TABLES "+grantTables+" READ"); err != nil {
					t.Errorf("LOCK TABLES: %v", err)
				}
				time.AfterFunc(time.Second, cancel)
			})

			result := make(chan error, 1)
			go func() {
				_, err := s.ClaimOwner(ctx, db, user, mustPassword(t, "Undo-lock-1"), mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
				result <- err
			}()

			// The undo's DROP USER waits for the same lock: the session
			// running it must hold the tenant's GET_LOCK.
			var undoID, holder sql.NullInt64
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) && !undoID.Valid {
				time.Sleep(100 * time.Millisecond)
				_ = e.superDB().QueryRowContext(e.ctx, `SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'DROP USER%' AND INFO LIKE ?`,
					"%"+user.String()+"%").Scan(&undoID)
			}
			if !undoID.Valid {
				_, _ = super.ExecContext(e.ctx, "UNLOCK TABLES")
				t.Fatalf("the undo's DROP USER never ran (or did not wait for the lock); the operation: %v", <-result)
			}
			if err := e.superDB().QueryRowContext(e.ctx, `SELECT IS_USED_LOCK(?)`, session.LockName("tenantdb:"+db.String())).Scan(&holder); err != nil {
				t.Fatal(err)
			}
			if !holder.Valid || holder.Int64 != undoID.Int64 {
				t.Errorf("the undo runs on session %d, but the tenant's lock is held by %v: the undo runs without the tenant's lock",
					undoID.Int64, holder)
			}
			if _, err := super.ExecContext(e.ctx, "UNLOCK TABLES"); err != nil {
				t.Fatal(err)
			}
			err = <-result
			var cancelled *session.CancelledError
			if !errors.As(err, &cancelled) {
				t.Errorf("ClaimOwner = %v, want the GRANT cancelled on the server", err)
			}
			if exists, lerr := s.LoginExists(e.ctx, user); lerr != nil || exists {
				t.Errorf("login exists after the undo = %v (%v), want it dropped", exists, lerr)
			}
		})
	}
}
