// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestCancel_killAfterRestart (issue 43, suspicion a): a statement's
// operation times out after the server restarted. The restarted server
// numbers its connections from 1 again, so the statement's connection id
// now names another session of the same admin (here one running SLEEP, as
// another tenant's apply would run a statement). The cancel must not
// interrupt it: the kill is not sent (errServerRestarted) and the other
// session's statement runs on. On e3febed KILL QUERY <id> interrupted it.
// A dedicated server: it is crashed.
func TestCancel_killAfterRestart(t *testing.T) {
	for _, kind := range engines {
		t.Run(kind, func(t *testing.T) {
			if kind == testserver.KindPostgres {
				t.Skip("MySQL/MariaDB only: PostgreSQL cancels with pg_cancel_backend on the backend's pid and secret key, which a restart does not hand to another session")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			ts, err := testserver.StartKind(ctx, kind)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.Stop() })
			reg := newRegistry()
			t.Cleanup(reg.Close)
			s, err := reg.Server(ctx, adminSpec(t, ts, ts.Admin))
			if err != nil {
				t.Fatal(err)
			}
			admin := func() *sql.DB {
				db, err := ts.Open(ts.Admin, "")
				if err != nil {
					t.Fatal(err)
				}
				db.SetMaxOpenConns(1)
				t.Cleanup(func() { db.Close() })
				return db
			}
			// Some connections first, so the statement's id is one a
			// restarted server reaches again.
			for range 5 {
				if err := admin().PingContext(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A server that ran a few seconds before the statement (its
			// start is known to the second: one restarted within a second
			// of its previous start reads as the same run).
			time.Sleep(3 * time.Second)
			conn, sess, done, err := s.sess.StatementConn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			done()
			if sess.Start == 0 {
				t.Fatalf("the server's start time is unknown (%+v): the check would prove nothing", sess)
			}

			if err := ts.Crash(); err != nil {
				t.Fatal(err)
			}
			if err := ts.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			// Another session of the admin takes the statement's old id.
			var other *sql.DB
			for range 200 {
				db := admin()
				var id int64
				if err := db.QueryRowContext(ctx, `SELECT CONNECTION_ID()`).Scan(&id); err != nil {
					t.Fatal(err)
				}
				if id == sess.ID {
					other = db
					break
				}
				if id > sess.ID {
					t.Fatalf("the restarted server's ids passed %d (now %d) without reaching it", sess.ID, id)
				}
			}
			if other == nil {
				t.Fatalf("no session of the restarted server got id %d", sess.ID)
			}
			var now session.ConnSession
			if err := admin().QueryRowContext(ctx, session.SessionQuery(s.info.Flavor)).Scan(&now.ID, &now.Start); err != nil {
				t.Fatal(err)
			}
			t.Logf("the statement's session %+v; after the restart %+v", sess, now)
			slept := make(chan int64, 1)
			go func() {
				var r int64 = -1
				_ = other.QueryRowContext(context.WithoutCancel(ctx), `SELECT SLEEP(6)`).Scan(&r)
				slept <- r
			}()
			time.Sleep(time.Second) // the SLEEP is running

			kerr := s.sess.KillQuery(ctx, sess)
			if !errors.Is(kerr, session.ErrServerRestarted) {
				t.Errorf("killQuery after a restart = %v, want errServerRestarted", kerr)
			}
			// SLEEP returns 0 when it ran its full time; interrupted by KILL
			// QUERY, 1 (MySQL) or an error (MariaDB: -1 here).
			if r := <-slept; r != 0 {
				t.Fatalf("the other session's SLEEP returned %d: the cancel interrupted a statement that was not its own", r)
			}

			// The same server run, same id: the kill goes through.
			conn, sess, done, err = s.sess.StatementConn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer done()
			go func() {
				var r int64 = -1
				_ = conn.QueryRowContext(context.WithoutCancel(ctx), `SELECT SLEEP(20)`).Scan(&r)
				slept <- r
			}()
			time.Sleep(time.Second)
			if err := s.sess.KillQuery(ctx, sess); err != nil {
				t.Fatalf("killQuery on the statement's own session: %v", err)
			}
			select {
			case r := <-slept:
				if r == 0 {
					t.Fatal("the statement's SLEEP ran its full time: the kill did not reach it")
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the kill did not interrupt the statement's own session")
			}
		})
	}
}
