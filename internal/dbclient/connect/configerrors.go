// SPDX-License-Identifier: MPL-2.0

package connect

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
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Configuration errors: the server cannot be reached as configured, and
// trying again in a second will not change that (a certificate that does
// not verify, a host name that does not exist, a port where the other
// engine listens). They are never retried and never reported as
// PrimaryUnavailable; the message says what is wrong and what to change.

// ConfigError is a connection failure caused by the configuration.
type ConfigError struct {
	Kind string // "TLS", "DNS", "protocol", "SSH" or "SOCKS5"
	Msg  string // what is wrong and what to change; no secrets
	err  error  // the driver's error, for errors.As
	// hostKey: a bastion host key its pins do not accept
	// (IsHostKeyRefusal).
	hostKey bool
}

func (e *ConfigError) Error() string {
	if e.err == nil {
		return e.Kind + ": " + e.Msg
	}
	return fmt.Sprintf("%s: %s (%v)", e.Kind, e.Msg, e.err)
}

func (e *ConfigError) Unwrap() error { return e.err }

// ConfigErrorOf recognises a configuration error in a connection failure
// and words it for spec, or returns nil. It needs no network access; the
// protocol check that does is sniffProtocol.
func ConfigErrorOf(spec Spec, err error) *ConfigError {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce
	}
	if IsServerError(err) {
		return nil
	}
	if msg := TLSProblem(spec, err); msg != "" {
		return &ConfigError{Kind: "TLS", Msg: msg, err: err}
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return &ConfigError{Kind: "DNS", Msg: fmt.Sprintf("host %s not found: check host (written without port or brackets)", dns.Name), err: err}
	}
	return nil
}

// IsConfigError is the part of Classify that needs no spec.
func IsConfigError(err error) bool { return ConfigErrorOf(Spec{}, err) != nil }

func IsServerError(err error) bool {
	var me *mysql.MySQLError
	var pe *pgconn.PgError
	return errors.As(err, &me) || errors.As(err, &pe)
}

// errPGRefusedTLS is pgx's text when a PostgreSQL server answers an
// SSLRequest with anything but 'S' (pgx has no exported error for it).
const errPGRefusedTLS = "server refused TLS connection"

// TLSProblem words a TLS failure, or returns "".
func TLSProblem(spec Spec, err error) string {
	signedBy := fmt.Sprintf("by the CA the provider's ca_certs gives server %q", spec.Name)
	if spec.CAPEM == "" {
		signedBy = fmt.Sprintf("by a CA in the system roots (give the PEM of the CA that signs it in the provider block: "+
			"ca_certs = { %s = file(\"ca.pem\") })", spec.Name)
	}
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var roots x509.SystemRootsError
	var verify *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	var op *net.OpError
	switch {
	case errors.As(err, &unknown):
		return "the server certificate is not signed " + signedBy
	case errors.As(err, &host):
		return fmt.Sprintf("host name does not match: the server certificate is not valid for %s%s; connect with a name "+
			"the certificate lists, or use tls = \"verify-ca\" to check the chain only", host.Host, certNames(host))
	case errors.As(err, &invalid):
		return "the server certificate is not valid: " + invalid.Error()
	case errors.As(err, &roots):
		return fmt.Sprintf("no CA to check the server certificate with: set ca_certs = { %s = file(\"ca.pem\") } in the provider block", spec.Name)
	case errors.As(err, &verify):
		return "the server certificate does not verify: " + verify.Err.Error()
	case errors.Is(err, mysql.ErrNoTLS), chainContains(err, errPGRefusedTLS):
		return "the server does not accept TLS connections: enable TLS on the server, or set tls = \"disable\""
	case errors.As(err, &op) && op.Op == "remote error":
		// An alert from the server during the handshake.
		return "the server refused the TLS handshake (" + op.Err.Error() + "): check tls, the provider's ca_certs and the server's TLS settings"
	case errors.As(err, &rec):
		return "the server did not answer with TLS: is engine/port right?"
	}
	return ""
}

// certNames says what a certificate that did not match names instead, for
// the one case a reader cannot guess: an IP address asked of a certificate
// that names no IP at all (MySQL's auto-generated server certificate, for
// one), which no host setting but a DNS name it lists can satisfy.
func certNames(e x509.HostnameError) string {
	c := e.Certificate
	if c == nil || net.ParseIP(e.Host) == nil || len(c.IPAddresses) > 0 {
		return ""
	}
	if len(c.DNSNames) == 0 {
		return " (it names no IP address and no DNS name)"
	}
	return fmt.Sprintf(" (it names no IP address, only the DNS names %s)", strings.Join(c.DNSNames, ", "))
}

// Protocol sniffing. Pointed at a PostgreSQL port, the MySQL driver waits
// for a greeting that never comes (PostgreSQL waits for the client), up to
// the server's authentication_timeout (60 s) per attempt. Pointed at a
// MySQL port, pgx reads the MySQL greeting as garbage. Both are told apart
// here by what the server says first.

const (
	// greetingWait bounds the wait for a MySQL server's greeting, which a
	// MySQL/MariaDB server sends as soon as it accepts the connection.
	greetingWait = 3 * time.Second
	// probeWait bounds the wait for the answer to a PostgreSQL SSLRequest.
	probeWait = 2 * time.Second
)

// Protocols a sniff can report.
const (
	protoUnknown  = ""           // nothing conclusive (timeout, reset, dial failure)
	ProtoMySQL    = "MySQL"      // a MySQL/MariaDB greeting or error packet
	protoPostgres = "PostgreSQL" // silent until asked, then 'S' or 'N' to an SSLRequest
	protoOther    = "other"      // spoke, but neither
)

// pgSSLRequest is PostgreSQL's SSLRequest message: length 8, code 80877103.
var pgSSLRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}

// looksLikeMySQL reports a MySQL packet header with sequence 0 followed by
// protocol version 10 (a greeting) or 0xff (an error, e.g. too many
// connections or a blocked host).
func looksLikeMySQL(b []byte) bool {
	return len(b) >= 5 && b[3] == 0 && (b[4] == 0x0a || b[4] == 0xff)
}

// readPrefix reads up to len(buf) bytes before the deadline.
func readPrefix(c net.Conn, buf []byte, deadline time.Time) (int, error) {
	if err := c.SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(c, buf)
	return n, err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// deadlineFor is now+d, or the context's deadline when that is earlier.
func deadlineFor(ctx context.Context, d time.Duration) time.Time {
	t := time.Now().Add(d)
	if dl, ok := ctx.Deadline(); ok && dl.Before(t) {
		return dl
	}
	return t
}

// probePostgres sends an SSLRequest on a silent connection and reports
// whether the answer is PostgreSQL's. The connection is spent afterwards.
func probePostgres(ctx context.Context, c net.Conn) string {
	if err := c.SetWriteDeadline(deadlineFor(ctx, probeWait)); err != nil {
		return protoUnknown
	}
	if _, err := c.Write(pgSSLRequest); err != nil {
		return protoUnknown
	}
	var b [1]byte
	n, _ := readPrefix(c, b[:], deadlineFor(ctx, probeWait))
	switch {
	case n == 1 && (b[0] == 'S' || b[0] == 'N'):
		return protoPostgres
	case n == 1:
		return protoOther
	}
	return protoUnknown
}

// sniffProtocol opens a separate connection to addr and reports what
// speaks there. Used only after a connection attempt has failed.
func sniffProtocol(ctx context.Context, addr string) string {
	d := net.Dialer{Timeout: greetingWait}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return protoUnknown
	}
	defer c.Close()
	var b [5]byte
	n, err := readPrefix(c, b[:], deadlineFor(ctx, time.Second))
	switch {
	case looksLikeMySQL(b[:n]):
		return ProtoMySQL
	case n > 0 && (err == nil || n >= 4):
		return protoOther
	case n == 0 && isTimeout(err):
		return probePostgres(ctx, c)
	}
	return protoUnknown
}

func ProtocolError(spec Spec, found string, err error) *ConfigError {
	want := "MySQL"
	if spec.Engine == ddl.EnginePostgres {
		want = "PostgreSQL"
	}
	msg := fmt.Sprintf("the server at %s does not speak the %s protocol", spec.Addr(), want)
	if found == ProtoMySQL || found == protoPostgres {
		msg += fmt.Sprintf(" (it answers like a %s server)", found)
	}
	return &ConfigError{Kind: "protocol", Msg: msg + ": is engine/port right?", err: err}
}

// dialMySQL dials for the MySQL driver and waits for the server's greeting
// before handing the connection over, so a port where PostgreSQL (or
// anything else) listens is reported at once instead of after a long
// silence.
func (s Spec) dialMySQL(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := s.dialNet(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	var b [5]byte
	n, err := readPrefix(c, b[:], deadlineFor(ctx, greetingWait))
	if n == len(b) && looksLikeMySQL(b[:]) {
		if err := c.SetReadDeadline(time.Time{}); err != nil {
			c.Close()
			return nil, err
		}
		return withPrefix(c, b[:]), nil
	}
	defer c.Close()
	switch {
	case n >= 4 || (n > 0 && err == nil):
		return nil, ProtocolError(s, protoOther, nil)
	case n == 0 && isTimeout(err) && ctx.Err() == nil:
		if found := probePostgres(ctx, c); found == protoPostgres || found == protoOther {
			return nil, ProtocolError(s, found, nil)
		}
		return nil, &NoGreetingError{Addr: s.Addr()}
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// noGreetingError: a server that accepted the connection and said nothing,
// even when asked. Nothing was sent that could have changed anything, so it
// is safe to retry (pgconn.SafeToRetry understands the method).
type NoGreetingError struct{ Addr string }

func (e *NoGreetingError) Error() string {
	return fmt.Sprintf("the server at %s accepted the connection but sent no MySQL greeting within %s", e.Addr, greetingWait)
}

func (e *NoGreetingError) SafeToRetry() bool { return true }

// prefixConn replays the bytes read while checking the greeting.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// withPrefix is c with prefix replayed first, a socketConn when c is a
// socket. The MySQL driver checks an idle connection's liveness on its
// socket when the connection has one (syscall.Conn), and takes an error
// from SyscallConn for a dead connection: a connection that is no socket
// (an SSH channel through a bastion) must not offer it, or every idle
// connection would be closed and a new one dialled for each statement.
func withPrefix(c net.Conn, prefix []byte) net.Conn {
	pc := &prefixConn{Conn: c, prefix: prefix}
	if sc, ok := c.(syscall.Conn); ok {
		return &socketConn{prefixConn: pc, sc: sc}
	}
	return pc
}

// socketConn is a prefixConn over a socket: it keeps the MySQL driver's
// liveness check of idle connections working (it needs the socket; the
// prefix is long consumed by then).
type socketConn struct {
	*prefixConn
	sc syscall.Conn
}

func (c *socketConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }

// ClassifyingConnector turns connection failures into configuration errors
// where the configuration is the cause, before retry sees them.
type ClassifyingConnector struct {
	driver.Connector
	spec    Spec
	attempt func() // counts every attempt
}

// NewClassifyingConnector wraps c so that every attempt is counted
// (attempt) and a configuration error is named before a retry sees it.
func NewClassifyingConnector(c driver.Connector, spec Spec, attempt func()) ClassifyingConnector {
	return ClassifyingConnector{c, spec, attempt}
}

func (c ClassifyingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c.attempt()
	conn, err := c.Connector.Connect(ctx)
	if err == nil {
		return conn, nil
	}
	return nil, c.spec.connectFailure(ctx, err)
}

// connectFailure explains a failed connection attempt where it can.
func (s Spec) connectFailure(ctx context.Context, err error) error {
	if ce := ConfigErrorOf(s, err); ce != nil {
		if ce.Kind == "TLS" && chainContains(err, errPGRefusedTLS) {
			// pgx says "refused TLS" for any first byte but 'S', the
			// first byte of a MySQL greeting included.
			if found := sniffProtocol(ctx, s.Addr()); found == ProtoMySQL || found == protoOther {
				return ProtocolError(s, found, err)
			}
		}
		return ce
	}
	// A hop's failure (hopError) is named already; the database was not
	// reached, so there is nothing to sniff.
	if s.Engine != ddl.EnginePostgres || IsServerError(err) || ctx.Err() != nil || isHopError(err) ||
		errors.Is(err, syscall.ECONNREFUSED) || IsDNSError(err) || isTimeout(err) || pgconn.Timeout(err) {
		return err
	}
	// pgx failed before the server said anything PostgreSQL would say:
	// find out whether PostgreSQL is there at all.
	if found := sniffProtocol(ctx, s.Addr()); found == ProtoMySQL || found == protoOther {
		return ProtocolError(s, found, err)
	}
	return err
}

func IsDNSError(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// chainContains reports whether any error in err's tree says text. Wrappers
// may withhold their inner text (statementError does), so each is asked.
func chainContains(err error, text string) bool {
	if err == nil {
		return false
	}
	if strings.Contains(err.Error(), text) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return chainContains(u.Unwrap(), text)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if chainContains(e, text) {
				return true
			}
		}
	}
	return false
}
