// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestClassifyUnit classifies constructed driver errors, bare and wrapped.
func TestClassifyUnit(t *testing.T) {
	t.Parallel()
	my := func(n uint16) error { return &mysql.MySQLError{Number: n, Message: "m"} }
	pg := func(code, msg string) error { return &pgconn.PgError{Code: code, Message: msg} }
	cases := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, Terminal},
		{"mysql read-only 1290", my(1290), Transient},
		{"mysql read-only 1836", my(1836), Transient},
		{"mysql lock wait 1205", my(1205), Transient},
		{"mysql deadlock 1213", my(1213), Transient},
		{"mysql too many connections 1040", my(1040), Transient},
		{"mysql gone away 2006", my(2006), OutcomeUnknown},
		{"mysql lost connection 2013", my(2013), OutcomeUnknown},
		{"mariadb connection killed 1927", my(1927), OutcomeUnknown},
		{"mysql access denied 1045", my(1045), Terminal},
		{"mysql db access denied 1044", my(1044), Terminal},
		{"mysql needs SUPER 1227", my(1227), Terminal},
		{"mysql syntax 1064", my(1064), Terminal},
		{"mysql user exists 1396", my(1396), Terminal},
		{"mysql database exists 1007", my(1007), Terminal},
		{"pg read-only 25006", pg("25006", "cannot execute CREATE DATABASE in a read-only transaction"), Transient},
		{"pg cannot connect now 57P03", pg("57P03", "the database system is starting up"), Transient},
		{"pg too many connections 53300", pg("53300", "too many"), Transient},
		{"pg serialization 40001", pg("40001", "x"), Transient},
		{"pg deadlock 40P01", pg("40P01", "x"), Transient},
		{"pg lock not available 55P03", pg("55P03", "x"), Transient},
		{"pg tuple concurrently updated", pg("XX000", "tuple concurrently updated"), Transient},
		{"pg other internal error", pg("XX000", "cache lookup failed"), Terminal},
		{"pg terminated 57P01", pg("57P01", "terminating connection due to administrator command"), OutcomeUnknown},
		{"pg connection failure 08006", pg("08006", "x"), OutcomeUnknown},
		{"pg insufficient privilege 42501", pg("42501", "x"), Terminal},
		{"pg role exists 42710", pg("42710", "x"), Terminal},
		{"pg database exists 42P04", pg("42P04", "x"), Terminal},
		{"context canceled", context.Canceled, Terminal},
		{"deadline", context.DeadlineExceeded, Terminal},
		{"unexpected EOF", io.ErrUnexpectedEOF, OutcomeUnknown},
		{"driver bad conn", driver.ErrBadConn, OutcomeUnknown},
		{"mysql invalid conn", mysql.ErrInvalidConn, OutcomeUnknown},
		{"connection refused", &netOpError{syscall.ECONNREFUSED}, Transient},
		{"connection reset", &netOpError{syscall.ECONNRESET}, OutcomeUnknown},
		{"plain error", errors.New("boom"), Terminal},
	}
	for _, c := range cases {
		for _, wrapped := range []bool{false, true} {
			err := c.err
			if wrapped && err != nil {
				err = fmt.Errorf("outer: %w", &StatementError{Statement: "X", err: err, Code: codeOf(err)})
			}
			if got := Classify(err); got != c.want {
				t.Errorf("%s (wrapped %v): Classify = %s, want %s", c.name, wrapped, got, c.want)
			}
		}
	}

	// Claims, missing objects and access denials, through the same chains.
	for _, c := range []struct {
		err                                 error
		exists, userExists, missing, denied bool
	}{
		{my(1007), true, false, false, false},
		{pg("42P04", ""), true, false, false, false},
		{my(1396), false, true, false, false},
		{pg("42710", ""), false, true, false, false},
		{pg("23505", ""), false, true, false, false},
		{my(1141), false, false, true, false},
		{my(1269), false, false, true, false},
		{pg("42704", ""), false, false, true, false},
		{my(1045), false, false, false, true},
		{pg("42501", ""), false, false, false, true},
	} {
		err := fmt.Errorf("w: %w", c.err)
		if IsDatabaseExists(err) != c.exists || IsUserExists(err) != c.userExists || IsMissing(err) != c.missing || IsAccessDenied(err) != c.denied {
			t.Errorf("%v: exists/userExists/missing/denied = %v/%v/%v/%v", c.err,
				IsDatabaseExists(err), IsUserExists(err), IsMissing(err), IsAccessDenied(err))
		}
	}
}

// netOpError is a net.Error wrapping a syscall error, as dialers return.
type netOpError struct{ err error }

func (e *netOpError) Error() string   { return "dial tcp: " + e.err.Error() }
func (e *netOpError) Unwrap() error   { return e.err }
func (e *netOpError) Timeout() bool   { return false }
func (e *netOpError) Temporary() bool { return false }

// TestStatementErrorWithholdsSecrets: a server message quoting a statement
// that carries a password (a MySQL syntax error does) never reaches the
// error text, neither directly nor through exhausted retries. Serial: it
// lowers the retry budget.
func TestStatementErrorWithholdsSecrets(t *testing.T) {
	savedBase := retryBase
	retryBase = time.Millisecond
	t.Cleanup(func() { retryBase = savedBase })
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
			se := newStatementError("srv", st, driverErr)
			assertNoSecret(t, se, pw)
			if codeOf(se) == "" {
				t.Errorf("%v: the code is no longer reachable", driverErr)
			}
			// Transient errors are retried and end as PrimaryUnavailable,
			// whose text includes the last error.
			spec := Spec{Name: "srv", Engine: info.Flavor.Engine()}
			err := retry(context.Background(), spec, func(context.Context) error { return se })
			assertNoSecret(t, err, pw)
		}
	}
}

// TestKilledConnection: a connection killed by an administrator while a
// statement runs is OutcomeUnknown (the statement may or may not have
// taken effect).
func TestKilledConnection(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		conn, err := e.s.db.Conn(e.ctx)
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
		t.Logf("killed after %v: %v (%T, code %q)", time.Since(start).Round(time.Millisecond), err, err, codeOf(err))
		if got := Classify(err); got != OutcomeUnknown {
			t.Errorf("Classify(%v) = %s, want %s", err, got, OutcomeUnknown)
		}
		// The pool recovers: the next operation gets a fresh connection.
		if err := e.s.CheckAdminRights(e.ctx); err != nil {
			t.Errorf("after the kill: %v", err)
		}
	})
}

// TestReadOnlyServer runs serially (no t.Parallel): it makes the shared
// servers read-only for a moment. A create then fails with a transient
// error, is retried, and ends as PrimaryUnavailable; nothing was created.
func TestReadOnlyServer(t *testing.T) {
	savedAttempts, savedBase := retryAttempts, retryBase
	retryAttempts, retryBase = 3, 20*time.Millisecond
	t.Cleanup(func() { retryAttempts, retryBase = savedAttempts, savedBase })
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Shared(t, engine)
			setReadOnly(t, ts, true)
			// A fresh registry, so every connection starts read-only.
			e := newEnv(t, engine)
			// Registered after newEnv, so it runs before the env's cleanup.
			t.Cleanup(func() { setReadOnly(t, ts, false) })
			db, owner := e.newDB("ro"), e.newUser("roo")

			st := e.s.Dialect().CreateDatabase(db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)).Statements[0]
			rawErr := e.s.run(e.ctx, st)
			if rawErr == nil {
				t.Fatal("CREATE DATABASE succeeded on a read-only server")
			}
			if c := Classify(rawErr); c != Transient {
				t.Errorf("Classify(%v) = %s, want transient", rawErr, c)
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
