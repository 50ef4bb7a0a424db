// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
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
				err = fmt.Errorf("outer: %w", &StatementError{Statement: "X", Err: err, Code: CodeOf(err)})
			}
			if got := Classify(err); got != c.want {
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
		if IsDatabaseExists(err) != c.exists || IsUserExists(err) != c.userExists || isMissing(err) != c.missing || IsAccessDenied(err) != c.denied {
			t.Errorf("%v: exists/userExists/missing/denied = %v/%v/%v/%v", c.err,
				IsDatabaseExists(err), IsUserExists(err), isMissing(err), IsAccessDenied(err))
		}
	}
}

// TestHopErrorClass: a hop that did not answer in time is not retried
// (each retry would wait another connect timeout), unless the retry dials
// anew; a refused hop is retried as a refused database is, and the
// refusal after retries says which hop to check.
func TestHopErrorClass(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	timedOut := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		name      string
		err       *connect.HopError
		class     connect.ErrClass
		fixPrefix string
	}{
		{"bastion refused", connect.NewHopError(t.Context(), connect.HopBastion, "b:22", "", refused, false), connect.ClassTransient, "Check that the SSH bastion b:22 "},
		{"bastion silent", connect.NewHopError(t.Context(), connect.HopBastion, "b:22", "", timedOut, false), connect.ClassTerminal, "Check that the SSH bastion b:22 "},
		{"redial next", connect.NewHopError(t.Context(), connect.HopBastion, "b:22", "", timedOut, true), connect.ClassTransient, "Check that the SSH bastion b:22 "},
		{"proxy silent", connect.NewHopError(t.Context(), connect.HopProxy, "p:1080", "", timedOut, false), connect.ClassTerminal, "Check that the SOCKS5 proxy p:1080 "},
		{"database refused", connect.NewHopError(t.Context(), connect.HopDatabase, "db:5432", "SSH bastion b:22", refused, false), connect.ClassTransient,
			"Check that the database at db:5432 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Wrapped as the drivers wrap a dial error.
			err := fmt.Errorf("dial error: %w", c.err)
			if got := Classify(err); got != c.class {
				t.Errorf("class %s, want %s", got, c.class)
			}
			if fix := connect.UnavailableFix(err); !strings.HasPrefix(fix, c.fixPrefix) {
				t.Errorf("fix %q, want it to start %q", fix, c.fixPrefix)
			}
		})
	}
	if fix := connect.UnavailableFix(errors.New("read-only")); !strings.Contains(fix, "primary") {
		t.Errorf("without a hop the fix is about the primary: %q", fix)
	}
}

// netOpError is a net.Error wrapping a syscall error, as dialers return.
type netOpError struct{ err error }

func (e *netOpError) Error() string   { return "dial tcp: " + e.err.Error() }
func (e *netOpError) Unwrap() error   { return e.err }
func (e *netOpError) Timeout() bool   { return false }
func (e *netOpError) Temporary() bool { return false }

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
		if Classify(ce) != connect.ClassConfiguration {
			t.Errorf("%s: Classify = %s", c.name, Classify(ce))
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
