// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestStatementErrorWithholdsSecrets: a server message quoting a statement
// that carries a password (a MySQL syntax error does) never reaches the
// error text, neither directly nor through exhausted retries. Serial: it
// lowers the retry budget.
func TestStatementErrorWithholdsSecrets(t *testing.T) {
	savedBase := session.RetryBase
	session.RetryBase = time.Millisecond
	t.Cleanup(func() { session.RetryBase = savedBase })
	const pw = "s3cr3t-'pw'"
	for _, info := range []ddl.ServerInfo{
		{Flavor: ddl.FlavorMariaDB, Version: ddl.Version{Major: 10, Minor: 11}},
		{Flavor: ddl.FlavorPostgres, Version: ddl.Version{Major: 15}},
	} {
		d := ddl.NewDialect(info)
		u, _ := ddl.NewUsername(info.Flavor.Engine(), "acme_app")
		st := d.SetPassword(u, mustPassword(t, pw), false).Statements[0]
		if !strings.Contains(st.SQL(), "PASSWORD") && !strings.Contains(st.SQL(), "IDENTIFIED") {
			t.Fatalf("unexpected statement %s", st)
		}
		quoting := st.SQL() // what a server quoting the statement would echo
		for _, driverErr := range []error{
			&mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax near '" + quoting + "'"},
			&mysql.MySQLError{Number: 1290, Message: "read-only: " + quoting},
			&pgconn.PgError{Code: "42601", Message: "syntax error at " + quoting},
			&pgconn.PgError{Code: "25006", Message: "read-only: " + quoting},
		} {
			se := session.NewStatementError("srv", st, driverErr)
			assertNoSecret(t, se, pw)
			if session.CodeOf(se) == "" {
				t.Errorf("%v: the code is no longer reachable", driverErr)
			}
			// Transient errors are retried and end as PrimaryUnavailable,
			// whose text includes the last error.
			spec := connect.Spec{Name: "srv", Engine: info.Flavor.Engine()}
			err := session.Retry(context.Background(), spec, func(context.Context) error { return se })
			assertNoSecret(t, err, pw)
		}
	}
}

// TestKilledConnection: a connection killed by an administrator while a
// statement runs is OutcomeUnknown (the statement may or may not have
// taken effect).
func TestKilledConnection(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		conn, err := e.s.sess.AdminPool().Conn(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var id int64
		idQuery, sleep, kill := `SELECT CONNECTION_ID()`, `SELECT SLEEP(5)`, `KILL %d`
		if e.isPG() {
			idQuery, sleep, kill = `SELECT pg_backend_pid()`, `SELECT pg_sleep(5)`, `SELECT pg_terminate_backend(%d)`
		}
		if err := conn.QueryRowContext(e.ctx, idQuery).Scan(&id); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			time.Sleep(300 * time.Millisecond)
			_, err := e.superDB().ExecContext(context.Background(), fmt.Sprintf(kill, id))
			done <- err
		}()
		start := time.Now()
		_, err = conn.ExecContext(e.ctx, sleep)
		if kerr := <-done; kerr != nil {
			t.Fatalf("kill: %v", kerr)
		}
		if err == nil {
			t.Fatalf("the killed statement succeeded after %v", time.Since(start))
		}
		t.Logf("killed after %v: %v (%T, code %q)", time.Since(start).Round(time.Millisecond), err, err, session.CodeOf(err))
		if got := session.Classify(err); got != connect.ClassOutcomeUnknown {
			t.Errorf("classify(%v) = %s, want %s", err, got, connect.ClassOutcomeUnknown)
		}
		// The pool recovers: the next operation gets a fresh connection.
		if _, err := e.s.proof.CheckAdminRights(e.ctx); err != nil {
			t.Errorf("after the kill: %v", err)
		}
	})
}

// TestReadOnlyServer runs serially (no t.Parallel): it makes the shared
// servers read-only for a moment. A create then fails with a transient
// error, is retried, and ends as PrimaryUnavailable; nothing was created.
func TestReadOnlyServer(t *testing.T) {
	savedAttempts, savedBase := session.RetryAttempts, session.RetryBase
	session.RetryAttempts, session.RetryBase = 3, 20*time.Millisecond
	t.Cleanup(func() { session.RetryAttempts, session.RetryBase = savedAttempts, savedBase })
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ts := testserver.SharedKind(t, engine)
			setReadOnly(t, ts, true)
			// A fresh registry, so every connection starts read-only.
			e := newEnv(t, engine)
			// Registered after newEnv, so it runs before the env's cleanup.
			t.Cleanup(func() { setReadOnly(t, ts, false) })
			db, owner := e.newDB("ro"), e.newUser("roo")

			st := e.s.dialect().CreateDatabase(db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)).Statements[0]
			rawErr := e.s.sess.Run(e.ctx, st)
			if rawErr == nil {
				t.Fatal("CREATE DATABASE succeeded on a read-only server")
			}
			if c := session.Classify(rawErr); c != connect.ClassTransient {
				t.Errorf("classify(%v) = %s, want transient", rawErr, c)
			}

			start := time.Now()
			err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
			de := wantReason(t, err, ddl.PrimaryUnavailable)
			t.Logf("after %v: %s", time.Since(start).Round(time.Millisecond), de.Summary())
			if _, _, _, found := e.dbState(db); found {
				t.Error("the database exists although the create failed")
			}

			// A create with a password fails the same way without leaking it.
			pw := hostilePasswords[0]
			err = e.s.CreateLogin(e.ctx, db, owner, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
			wantReason(t, err, ddl.PrimaryUnavailable)
			assertNoSecret(t, err, pw)
			if e.loginExists(owner) {
				t.Error("the login exists although the create failed")
			}

			// Writable again: the same create succeeds.
			setReadOnly(t, ts, false)
			if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
				t.Fatalf("after read-only ended: %v", err)
			}
		})
	}
}

// setReadOnly switches a server's read-only mode as the superuser and waits
// until new sessions see it.
func setReadOnly(t *testing.T, ts *testserver.Server, on bool) {
	t.Helper()
	super, err := ts.SuperDB("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if ts.Engine == testserver.EngineMySQL {
		v := "OFF"
		if on {
			v = "ON"
		}
		if _, err := super.ExecContext(ctx, "SET GLOBAL read_only = "+v); err != nil {
			t.Fatal(err)
		}
		return
	}
	conn, err := super.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmts := []string{"ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()"}
	if on {
		stmts[0] = "ALTER SYSTEM SET default_transaction_read_only = on"
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	want := "off"
	if on {
		want = "on"
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		probe, err := ts.Open(ts.Super, "")
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = probe.QueryRowContext(ctx, "SHOW default_transaction_read_only").Scan(&got)
		probe.Close()
		if err == nil && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("default_transaction_read_only = %q (%v), want %q", got, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConfigErrorNotRetried: retry returns a configuration error after one
// call, as it is (no PrimaryUnavailable), for statements and claims alike.
func TestConfigErrorNotRetried(t *testing.T) {
	t.Parallel()
	spec := connect.Spec{Name: "unit", Engine: ddl.EnginePostgres, Host: "db.invalid", Port: 5432}
	for _, idempotent := range []bool{true, false} {
		calls := 0
		cfgErr := &connect.ConfigError{Kind: "DNS", Msg: "host db.invalid not found"}
		err := session.RetryIf(context.Background(), spec, idempotent, func(context.Context) error {
			calls++
			return &session.StatementError{Statement: "X", ErrClass: session.Classify(cfgErr), Err: cfgErr}
		})
		if calls != 1 || ddl.ReasonOf(err) == ddl.PrimaryUnavailable || !errors.As(err, new(*connect.ConfigError)) {
			t.Errorf("idempotent %v: calls=%d err=%v; want one call and the configError", idempotent, calls, err)
		}
	}
}
