// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
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
		want connect.ErrClass
	}{
		{"nil", nil, connect.ClassTerminal},
		{"mysql read-only 1290", &mysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --read-only option so it cannot execute this statement"}, connect.ClassTransient},
		{"mysql super-read-only 1290", &mysql.MySQLError{Number: 1290, Message: "The MySQL server is running with the --super-read-only option so it cannot execute this statement"}, connect.ClassTransient},
		{"mariadb strict password validation 1290", &mysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --strict-password-validation option so it cannot execute this statement"}, connect.ClassTerminal},
		{"mysql read-only 1836", my(1836), connect.ClassTransient},
		{"mysql lock wait 1205: not retried (lockwait.go)", my(1205), connect.ClassTerminal},
		{"mysql deadlock 1213", my(1213), connect.ClassTransient},
		{"mysql too many connections 1040", my(1040), connect.ClassTransient},
		{"mysql gone away 2006", my(2006), connect.ClassOutcomeUnknown},
		{"mysql lost connection 2013", my(2013), connect.ClassOutcomeUnknown},
		{"mariadb connection killed 1927", my(1927), connect.ClassOutcomeUnknown},
		{"mysql access denied 1045", my(1045), connect.ClassTerminal},
		{"mysql db access denied 1044", my(1044), connect.ClassTerminal},
		{"mysql needs SUPER 1227", my(1227), connect.ClassTerminal},
		{"mysql syntax 1064", my(1064), connect.ClassTerminal},
		{"mysql user exists 1396", my(1396), connect.ClassTerminal},
		{"mysql database exists 1007", my(1007), connect.ClassTerminal},
		{"pg read-only 25006", pg("25006", "cannot execute CREATE DATABASE in a read-only transaction"), connect.ClassTransient},
		{"pg cannot connect now 57P03", pg("57P03", "the database system is starting up"), connect.ClassTransient},
		{"pg too many connections 53300", pg("53300", "too many"), connect.ClassTransient},
		{"pg serialization 40001", pg("40001", "x"), connect.ClassTransient},
		{"pg deadlock 40P01", pg("40P01", "x"), connect.ClassTransient},
		{"pg lock timeout 55P03: not retried (lockwait.go)", pg("55P03", "x"), connect.ClassTerminal},
		{"pg tuple concurrently updated", pg("XX000", "tuple concurrently updated"), connect.ClassTransient},
		{"pg other internal error", pg("XX000", "cache lookup failed"), connect.ClassTerminal},
		{"pg terminated 57P01", pg("57P01", "terminating connection due to administrator command"), connect.ClassOutcomeUnknown},
		{"pg connection failure 08006", pg("08006", "x"), connect.ClassOutcomeUnknown},
		{"pg insufficient privilege 42501", pg("42501", "x"), connect.ClassTerminal},
		{"pg role exists 42710", pg("42710", "x"), connect.ClassTerminal},
		{"pg database exists 42P04", pg("42P04", "x"), connect.ClassTerminal},
		{"context canceled", context.Canceled, connect.ClassTerminal},
		{"deadline", context.DeadlineExceeded, connect.ClassTerminal},
		{"unexpected EOF", io.ErrUnexpectedEOF, connect.ClassOutcomeUnknown},
		{"driver bad conn", driver.ErrBadConn, connect.ClassOutcomeUnknown},
		{"mysql invalid conn", mysql.ErrInvalidConn, connect.ClassOutcomeUnknown},
		{"connection refused", &netOpError{syscall.ECONNREFUSED}, connect.ClassTransient},
		{"connection reset", &netOpError{syscall.ECONNRESET}, connect.ClassOutcomeUnknown},
		{"plain error", errors.New("boom"), connect.ClassTerminal},

		// Configuration errors: never retried, never PrimaryUnavailable.
		{"tls unknown authority (verify-ca callback)", x509.UnknownAuthorityError{}, connect.ClassConfiguration},
		{"tls unknown authority (verify-full)", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, connect.ClassConfiguration},
		{"tls host name mismatch", &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "db.example"}}, connect.ClassConfiguration},
		{"tls expired", x509.CertificateInvalidError{Reason: x509.Expired}, connect.ClassConfiguration},
		{"tls error inside a pgx write", fmt.Errorf("failed to write startup message: write failed: %w",
			&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), connect.ClassConfiguration},
		{"tls alert from the server", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}, connect.ClassConfiguration},
		{"mysql server without TLS", mysql.ErrNoTLS, connect.ClassConfiguration},
		{"postgres server without TLS", fmt.Errorf("tls error: %w", errors.New("server refused TLS connection")), connect.ClassConfiguration},
		{"dns not found", &net.OpError{Op: "dial", Err: &net.DNSError{Name: "db.invalid", Err: "no such host", IsNotFound: true}}, connect.ClassConfiguration},
		{"dns not found (pgx)", fmt.Errorf("hostname resolving error: %w", &net.DNSError{Name: "db.invalid", IsNotFound: true}), connect.ClassConfiguration},
		{"wrong engine's port", &connect.ConfigError{Kind: "protocol", Msg: "x"}, connect.ClassConfiguration},
		{"dns timeout: retried", &net.DNSError{Name: "db", Err: "i/o timeout", IsTimeout: true}, connect.ClassTransient},
		{"dns server failure: retried", &net.DNSError{Name: "db", Err: "server misbehaving", IsTemporary: true}, connect.ClassTransient},
		{"silent server: retried", &connect.NoGreetingError{Addr: "h:1"}, connect.ClassTransient},
		// A server's verdict is never reread as configuration.
		{"mysql access denied mentioning TLS", &mysql.MySQLError{Number: 1045, Message: "server refused TLS connection"}, connect.ClassTerminal},
	}
	for _, c := range cases {
		for _, wrapped := range []bool{false, true} {
			err := c.err
			if wrapped && err != nil {
				err = fmt.Errorf("outer: %w", &session.StatementError{Statement: "X", Err: err, Code: session.CodeOf(err)})
			}
			if got := session.Classify(err); got != c.want {
				t.Errorf("%s (wrapped %v): classify = %s, want %s", c.name, wrapped, got, c.want)
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
		if session.IsDatabaseExists(err) != c.exists || session.IsUserExists(err) != c.userExists || session.IsMissing(err) != c.missing || session.IsAccessDenied(err) != c.denied {
			t.Errorf("%v: exists/userExists/missing/denied = %v/%v/%v/%v", c.err,
				session.IsDatabaseExists(err), session.IsUserExists(err), session.IsMissing(err), session.IsAccessDenied(err))
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

// TestConfigErrorMessages: a configuration error says what is wrong in the
// user's terms (the provider's ca_certs, host, engine/port), not the driver's.
func TestConfigErrorMessages(t *testing.T) {
	t.Parallel()
	withCA := connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db.example", Port: 3306, CAPEM: "pem"}
	noCA := withCA
	noCA.CAPEM = ""
	pg := connect.Spec{Name: "s", Engine: ddl.EnginePostgres, Host: "127.0.0.1", Port: 3306}
	cases := []struct {
		name string
		spec connect.Spec
		err  error
		want string
	}{
		{"unknown CA, ca_certs set", withCA, &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}},
			`TLS: the server certificate is not signed by the CA the provider's ca_certs gives server "s"`},
		{"unknown CA, system roots", noCA, x509.UnknownAuthorityError{}, `not signed by a CA in the system roots (give the PEM of the CA that signs it in the provider block: ca_certs = { s = file("ca.pem") })`},
		{"host name", withCA, &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "db.example", Certificate: &x509.Certificate{}}},
			`TLS: host name does not match: the server certificate is not valid for db.example`},
		{"no TLS on the server", withCA, mysql.ErrNoTLS, `TLS: the server does not accept TLS connections: enable TLS on the server, or set tls = "disable"`},
		{"dns", withCA, &net.OpError{Op: "dial", Err: &net.DNSError{Name: "db.invalid", Err: "no such host", IsNotFound: true}},
			"DNS: host db.invalid not found"},
		{"protocol", pg, connect.ProtocolError(pg, connect.ProtoMySQL, nil),
			"protocol: the server at 127.0.0.1:3306 does not speak the PostgreSQL protocol (it answers like a MySQL server): is engine/port right?"},
	}
	for _, c := range cases {
		ce := connect.ConfigErrorOf(c.spec, fmt.Errorf("wrapped: %w", c.err))
		if ce == nil {
			t.Errorf("%s: not recognised as a configuration error", c.name)
			continue
		}
		if !strings.Contains(ce.Error(), c.want) {
			t.Errorf("%s: %q does not say %q", c.name, ce.Error(), c.want)
		}
		if session.Classify(ce) != connect.ClassConfiguration {
			t.Errorf("%s: Classify = %s", c.name, session.Classify(ce))
		}
	}
	for _, notConfig := range []error{
		&netOpError{syscall.ECONNREFUSED}, io.ErrUnexpectedEOF, &mysql.MySQLError{Number: 1045, Message: "denied"},
		&net.DNSError{Name: "db", IsTimeout: true}, errors.New("boom"),
	} {
		if ce := connect.ConfigErrorOf(withCA, notConfig); ce != nil {
			t.Errorf("%v: reported as a configuration error: %v", notConfig, ce)
		}
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

// TestAddressJoinsHostAndPort: both drivers get the host and port joined
// with net.JoinHostPort, so an IPv6 host (written bare, ::1) is bracketed
// exactly once ([::1]:3306), and host names and IPv4 are unchanged.
func TestAddressJoinsHostAndPort(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"::1":          "[::1]:%d",
		"2001:db8::42": "[2001:db8::42]:%d",
		"127.0.0.1":    "127.0.0.1:%d",
		"db.internal":  "db.internal:%d",
	} {
		my := connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306, TLS: connect.TLSDisable}
		cfg, err := my.MySQLConfig("")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Addr != fmt.Sprintf(want, 3306) || cfg.Net != "tcp" {
			t.Errorf("mysql %q: Net %q Addr %q, want tcp %q", host, cfg.Net, cfg.Addr, fmt.Sprintf(want, 3306))
		}
		pg := connect.Spec{Name: "s", Engine: ddl.EnginePostgres, Host: host, Port: 5432, TLS: connect.TLSDisable}
		pcfg, err := pg.PgxConfig("")
		if err != nil {
			t.Fatal(err)
		}
		network, addr := pgconn.NetworkAddress(pcfg.Host, pcfg.Port)
		if pcfg.Host != host || network != "tcp" || addr != fmt.Sprintf(want, 5432) {
			t.Errorf("postgres %q: Host %q dials %s %q, want tcp %q", host, pcfg.Host, network, addr, fmt.Sprintf(want, 5432))
		}
		if got := pg.Addr(); got != fmt.Sprintf(want, 5432) {
			t.Errorf("Spec.addr() = %q", got)
		}
	}
	// The spec refuses what the provider refuses at plan time, before any dial.
	for _, host := range []string{"[::1]", "db:3306", " db", ""} {
		_, err := newRegistry().Server(context.Background(), connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306})
		if ddl.ReasonOf(err) != ddl.InvalidIdentifier {
			t.Errorf("host %q: %v, want InvalidIdentifier", host, err)
		}
	}
	for _, port := range []int{0, -1, 65536} {
		_, err := newRegistry().Server(context.Background(), connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db", Port: port})
		if err == nil || !strings.Contains(err.Error(), "outside 1-65535") {
			t.Errorf("port %d: %v", port, err)
		}
	}
}
