// SPDX-License-Identifier: MPL-2.0

package dbclient

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
		want errClass
	}{
		{"nil", nil, classTerminal},
		{"mysql read-only 1290", &mysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --read-only option so it cannot execute this statement"}, classTransient},
		{"mysql super-read-only 1290", &mysql.MySQLError{Number: 1290, Message: "The MySQL server is running with the --super-read-only option so it cannot execute this statement"}, classTransient},
		{"mariadb strict password validation 1290", &mysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --strict-password-validation option so it cannot execute this statement"}, classTerminal},
		{"mysql read-only 1836", my(1836), classTransient},
		{"mysql lock wait 1205: not retried (lockwait.go)", my(1205), classTerminal},
		{"mysql deadlock 1213", my(1213), classTransient},
		{"mysql too many connections 1040", my(1040), classTransient},
		{"mysql gone away 2006", my(2006), classOutcomeUnknown},
		{"mysql lost connection 2013", my(2013), classOutcomeUnknown},
		{"mariadb connection killed 1927", my(1927), classOutcomeUnknown},
		{"mysql access denied 1045", my(1045), classTerminal},
		{"mysql db access denied 1044", my(1044), classTerminal},
		{"mysql needs SUPER 1227", my(1227), classTerminal},
		{"mysql syntax 1064", my(1064), classTerminal},
		{"mysql user exists 1396", my(1396), classTerminal},
		{"mysql database exists 1007", my(1007), classTerminal},
		{"pg read-only 25006", pg("25006", "cannot execute CREATE DATABASE in a read-only transaction"), classTransient},
		{"pg cannot connect now 57P03", pg("57P03", "the database system is starting up"), classTransient},
		{"pg too many connections 53300", pg("53300", "too many"), classTransient},
		{"pg serialization 40001", pg("40001", "x"), classTransient},
		{"pg deadlock 40P01", pg("40P01", "x"), classTransient},
		{"pg lock timeout 55P03: not retried (lockwait.go)", pg("55P03", "x"), classTerminal},
		{"pg tuple concurrently updated", pg("XX000", "tuple concurrently updated"), classTransient},
		{"pg other internal error", pg("XX000", "cache lookup failed"), classTerminal},
		{"pg terminated 57P01", pg("57P01", "terminating connection due to administrator command"), classOutcomeUnknown},
		{"pg connection failure 08006", pg("08006", "x"), classOutcomeUnknown},
		{"pg insufficient privilege 42501", pg("42501", "x"), classTerminal},
		{"pg role exists 42710", pg("42710", "x"), classTerminal},
		{"pg database exists 42P04", pg("42P04", "x"), classTerminal},
		{"context canceled", context.Canceled, classTerminal},
		{"deadline", context.DeadlineExceeded, classTerminal},
		{"unexpected EOF", io.ErrUnexpectedEOF, classOutcomeUnknown},
		{"driver bad conn", driver.ErrBadConn, classOutcomeUnknown},
		{"mysql invalid conn", mysql.ErrInvalidConn, classOutcomeUnknown},
		{"connection refused", &netOpError{syscall.ECONNREFUSED}, classTransient},
		{"connection reset", &netOpError{syscall.ECONNRESET}, classOutcomeUnknown},
		{"plain error", errors.New("boom"), classTerminal},

		// Configuration errors: never retried, never PrimaryUnavailable.
		{"tls unknown authority (verify-ca callback)", x509.UnknownAuthorityError{}, classConfiguration},
		{"tls unknown authority (verify-full)", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, classConfiguration},
		{"tls host name mismatch", &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "db.example"}}, classConfiguration},
		{"tls expired", x509.CertificateInvalidError{Reason: x509.Expired}, classConfiguration},
		{"tls error inside a pgx write", fmt.Errorf("failed to write startup message: write failed: %w",
			&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), classConfiguration},
		{"tls alert from the server", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}, classConfiguration},
		{"mysql server without TLS", mysql.ErrNoTLS, classConfiguration},
		{"postgres server without TLS", fmt.Errorf("tls error: %w", errors.New("server refused TLS connection")), classConfiguration},
		{"dns not found", &net.OpError{Op: "dial", Err: &net.DNSError{Name: "db.invalid", Err: "no such host", IsNotFound: true}}, classConfiguration},
		{"dns not found (pgx)", fmt.Errorf("hostname resolving error: %w", &net.DNSError{Name: "db.invalid", IsNotFound: true}), classConfiguration},
		{"wrong engine's port", &configError{Kind: "protocol", Msg: "x"}, classConfiguration},
		{"dns timeout: retried", &net.DNSError{Name: "db", Err: "i/o timeout", IsTimeout: true}, classTransient},
		{"dns server failure: retried", &net.DNSError{Name: "db", Err: "server misbehaving", IsTemporary: true}, classTransient},
		{"silent server: retried", &noGreetingError{addr: "h:1"}, classTransient},
		// A server's verdict is never reread as configuration.
		{"mysql access denied mentioning TLS", &mysql.MySQLError{Number: 1045, Message: "server refused TLS connection"}, classTerminal},
	}
	for _, c := range cases {
		for _, wrapped := range []bool{false, true} {
			err := c.err
			if wrapped && err != nil {
				err = fmt.Errorf("outer: %w", &statementError{Statement: "X", err: err, Code: codeOf(err)})
			}
			if got := classify(err); got != c.want {
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
		if isDatabaseExists(err) != c.exists || isUserExists(err) != c.userExists || isMissing(err) != c.missing || isAccessDenied(err) != c.denied {
			t.Errorf("%v: exists/userExists/missing/denied = %v/%v/%v/%v", c.err,
				isDatabaseExists(err), isUserExists(err), isMissing(err), isAccessDenied(err))
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
		conn, err := e.s.sess.db.Conn(e.ctx)
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
		if got := classify(err); got != classOutcomeUnknown {
			t.Errorf("classify(%v) = %s, want %s", err, got, classOutcomeUnknown)
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
	savedAttempts, savedBase := retryAttempts, retryBase
	retryAttempts, retryBase = 3, 20*time.Millisecond
	t.Cleanup(func() { retryAttempts, retryBase = savedAttempts, savedBase })
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
			rawErr := e.s.sess.run(e.ctx, st)
			if rawErr == nil {
				t.Fatal("CREATE DATABASE succeeded on a read-only server")
			}
			if c := classify(rawErr); c != classTransient {
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
	withCA := Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db.example", Port: 3306, CAPEM: "pem"}
	noCA := withCA
	noCA.CAPEM = ""
	pg := Spec{Name: "s", Engine: ddl.EnginePostgres, Host: "127.0.0.1", Port: 3306}
	cases := []struct {
		name string
		spec Spec
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
		{"protocol", pg, protocolError(pg, protoMySQL, nil),
			"protocol: the server at 127.0.0.1:3306 does not speak the PostgreSQL protocol (it answers like a MySQL server): is engine/port right?"},
	}
	for _, c := range cases {
		ce := configErrorOf(c.spec, fmt.Errorf("wrapped: %w", c.err))
		if ce == nil {
			t.Errorf("%s: not recognised as a configuration error", c.name)
			continue
		}
		if !strings.Contains(ce.Error(), c.want) {
			t.Errorf("%s: %q does not say %q", c.name, ce.Error(), c.want)
		}
		if classify(ce) != classConfiguration {
			t.Errorf("%s: Classify = %s", c.name, classify(ce))
		}
	}
	for _, notConfig := range []error{
		&netOpError{syscall.ECONNREFUSED}, io.ErrUnexpectedEOF, &mysql.MySQLError{Number: 1045, Message: "denied"},
		&net.DNSError{Name: "db", IsTimeout: true}, errors.New("boom"),
	} {
		if ce := configErrorOf(withCA, notConfig); ce != nil {
			t.Errorf("%v: reported as a configuration error: %v", notConfig, ce)
		}
	}
}

// TestConfigErrorNotRetried: retry returns a configuration error after one
// call, as it is (no PrimaryUnavailable), for statements and claims alike.
func TestConfigErrorNotRetried(t *testing.T) {
	t.Parallel()
	spec := Spec{Name: "unit", Engine: ddl.EnginePostgres, Host: "db.invalid", Port: 5432}
	for _, idempotent := range []bool{true, false} {
		calls := 0
		cfgErr := &configError{Kind: "DNS", Msg: "host db.invalid not found"}
		err := retryIf(context.Background(), spec, idempotent, func(context.Context) error {
			calls++
			return &statementError{Statement: "X", errClass: classify(cfgErr), err: cfgErr}
		})
		if calls != 1 || ddl.ReasonOf(err) == ddl.PrimaryUnavailable || !errors.As(err, new(*configError)) {
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
		my := Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306, TLS: TLSDisable}
		cfg, err := my.mysqlConfig("")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Addr != fmt.Sprintf(want, 3306) || cfg.Net != "tcp" {
			t.Errorf("mysql %q: Net %q Addr %q, want tcp %q", host, cfg.Net, cfg.Addr, fmt.Sprintf(want, 3306))
		}
		pg := Spec{Name: "s", Engine: ddl.EnginePostgres, Host: host, Port: 5432, TLS: TLSDisable}
		pcfg, err := pg.pgxConfig("")
		if err != nil {
			t.Fatal(err)
		}
		network, addr := pgconn.NetworkAddress(pcfg.Host, pcfg.Port)
		if pcfg.Host != host || network != "tcp" || addr != fmt.Sprintf(want, 5432) {
			t.Errorf("postgres %q: Host %q dials %s %q, want tcp %q", host, pcfg.Host, network, addr, fmt.Sprintf(want, 5432))
		}
		if got := pg.addr(); got != fmt.Sprintf(want, 5432) {
			t.Errorf("Spec.addr() = %q", got)
		}
	}
	// The spec refuses what the provider refuses at plan time, before any dial.
	for _, host := range []string{"[::1]", "db:3306", " db", ""} {
		_, err := newRegistry().Server(context.Background(), Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306})
		if ddl.ReasonOf(err) != ddl.InvalidIdentifier {
			t.Errorf("host %q: %v, want InvalidIdentifier", host, err)
		}
	}
	for _, port := range []int{0, -1, 65536} {
		_, err := newRegistry().Server(context.Background(), Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db", Port: port})
		if err == nil || !strings.Contains(err.Error(), "outside 1-65535") {
			t.Errorf("port %d: %v", port, err)
		}
	}
}
