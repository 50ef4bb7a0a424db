// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// Connection failures against the real servers. Each case counts the
// connection attempts the registry made: a configuration error is tried
// once (no retries), a refused connection the whole retry budget. Timings
// are logged for the record, never asserted.

// connectOnce opens spec in a fresh registry and returns the error and the
// number of connection attempts.
func connectOnce(t *testing.T, spec connect.Spec) (error, int64) {
	t.Helper()
	reg := newRegistry()
	defer reg.Close()
	start := time.Now()
	_, err := reg.Server(t.Context(), spec)
	t.Logf("%s after %v, %d attempt(s): %v", spec.Describe(), time.Since(start).Round(time.Millisecond), reg.ConnectionAttempts(), err)
	return err, reg.ConnectionAttempts()
}

// wantConfigError asserts a configuration error that says each of want,
// after exactly one attempt, not PrimaryUnavailable, without the password.
func wantConfigError(t *testing.T, spec connect.Spec, err error, attempts int64, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("connected, want a configuration error")
	}
	assertNoSecret(t, err, spec.Password.Reveal())
	var ce *connect.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("%v (%T): not a *configError", err, err)
	}
	if c := session.Classify(err); c != connect.ClassConfiguration {
		t.Errorf("Classify = %s, want %s", c, connect.ClassConfiguration)
	}
	if r := ddl.ReasonOf(err); r == ddl.PrimaryUnavailable {
		t.Errorf("reported as %s: %v", r, err)
	}
	if attempts != 1 {
		t.Errorf("%d connection attempts, want 1 (no retries)", attempts)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// localSpec is adminSpec for the local backend (the tests below need our
// CA and a loopback address).
func localSpec(t *testing.T, kind string) (*testserver.Server, connect.Spec) {
	t.Helper()
	ts := testserver.SharedKind(t, kind)
	if ts.CAPEM == "" || ts.Host != "127.0.0.1" {
		t.Skipf("%s backend at %s without our CA: these cases need the local servers", ts.Backend, ts.Host)
	}
	return ts, adminSpec(t, ts, ts.Admin)
}

// TestConnectWrongCA: a CA that did not sign the server certificate is an
// immediate TLS error naming the provider's ca_certs, in both verifying modes.
func TestConnectWrongCA(t *testing.T) {
	t.Parallel()
	other := testserver.UnrelatedCAPEM(t)
	for _, engine := range engines {
		for _, mode := range []connect.TLSMode{connect.TLSVerifyFull, connect.TLSVerifyCA} {
			t.Run(engine+"/"+string(mode), func(t *testing.T) {
				t.Parallel()
				_, spec := localSpec(t, engine)
				spec.CAPEM, spec.TLS = other, mode
				err, attempts := connectOnce(t, spec)
				wantConfigError(t, spec, err, attempts, "TLS: the server certificate is not signed by the CA the provider's ca_certs gives server", spec.Addr())
			})
		}
	}
}

// TestConnectHostNameMismatch: verify-full to an address the certificate
// does not name (127.0.0.2, forwarded to the server) is a TLS host name
// error; verify-ca, which checks the chain only, connects.
func TestConnectHostNameMismatch(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ts, spec := localSpec(t, engine)
			host, port, _ := forward(t, "127.0.0.2:0", ts.Addr())
			spec.Host, spec.Port = host, port
			err, attempts := connectOnce(t, spec)
			wantConfigError(t, spec, err, attempts, "TLS: host name does not match", "127.0.0.2")

			spec.TLS = connect.TLSVerifyCA
			if err, _ := connectOnce(t, spec); err != nil {
				t.Errorf("verify-ca through 127.0.0.2: %v", err)
			}
		})
	}
}

// TestConnectDNSNotFound: a host name that does not resolve is a DNS error
// at once.
func TestConnectDNSNotFound(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			_, spec := localSpec(t, engine)
			spec.Host = "nonexistent.invalid"
			err, attempts := connectOnce(t, spec)
			wantConfigError(t, spec, err, attempts, "DNS: host nonexistent.invalid not found")
		})
	}
}

// TestConnectWrongEnginePort: each engine pointed at the other's port is a
// protocol error after one attempt, whatever the TLS mode (pgx negotiates
// TLS first, or sends its startup message in the clear).
func TestConnectWrongEnginePort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ engine, at, speaks string }{
		{testserver.KindMariaDB, testserver.KindPostgres, "does not speak the MySQL protocol (it answers like a PostgreSQL server)"},
		{testserver.KindPostgres, testserver.KindMariaDB, "does not speak the PostgreSQL protocol (it answers like a MySQL server)"},
	} {
		for _, mode := range []connect.TLSMode{connect.TLSVerifyFull, connect.TLSDisable} {
			t.Run(c.engine+"/"+string(mode), func(t *testing.T) {
				t.Parallel()
				_, spec := localSpec(t, c.engine)
				other, _ := localSpec(t, c.at)
				spec.Port, spec.TLS = other.Port, mode
				err, attempts := connectOnce(t, spec)
				wantConfigError(t, spec, err, attempts, "protocol: the server at "+spec.Addr()+" "+c.speaks, "is engine/port right?")
			})
		}
	}
}

// TestConnectRefused: nothing listening is not a configuration error (a
// server restarting looks the same): it is retried through the whole budget
// and reported as PrimaryUnavailable.
func TestConnectRefused(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			_, spec := localSpec(t, engine)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			spec.Port = l.Addr().(*net.TCPAddr).Port
			l.Close() // nothing listens there now
			err, attempts := connectOnce(t, spec)
			wantReason(t, err, ddl.PrimaryUnavailable)
			if session.Classify(errors.Unwrap(err)) == connect.ClassConfiguration || errors.As(err, new(*connect.ConfigError)) {
				t.Errorf("a refused connection was reported as a configuration error: %v", err)
			}
			if attempts != int64(session.RetryAttempts) {
				t.Errorf("%d attempts, want the retry budget (%d)", attempts, session.RetryAttempts)
			}
		})
	}
}

// TestConnectIPv6: host = "::1" (the one documented IPv6 form) reaches both
// servers. The test servers listen on 127.0.0.1 only, so a forwarder on
// [::1] stands in front of them; the server certificate names ::1, so
// verify-full checks the host name too.
func TestConnectIPv6(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ts, spec := localSpec(t, engine)
			host, port, accepted := forward(t, "[::1]:0", ts.Addr())
			if host != "::1" {
				t.Fatalf("forwarder host %q", host)
			}
			spec.Host, spec.Port = host, port
			reg := newRegistry()
			t.Cleanup(reg.Close)
			s, err := reg.Server(t.Context(), spec)
			if err != nil {
				t.Fatalf("host ::1: %v", err)
			}
			if _, err := s.proof.CheckAdminRights(t.Context()); err != nil {
				t.Fatalf("host ::1: %v", err)
			}
			if accepted.Load() == 0 {
				t.Fatal("the connection did not go through [::1]")
			}
			if !strings.Contains(spec.Describe(), "[::1]:") {
				t.Errorf("describe() = %s, want the bracketed address", spec.Describe())
			}
		})
	}
}

// TestDetectLowerCaseTableNames: detect reads @@lower_case_table_names on
// MySQL/MariaDB (0 on PostgreSQL), as the superuser sees it.
func TestDetectLowerCaseTableNames(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		want := 0
		if !e.isPG() {
			want = superScalar[int](e, "SELECT @@lower_case_table_names")
		}
		if got := e.s.Info().LowerCaseTableNames; got != want {
			t.Errorf("LowerCaseTableNames = %d, want %d", got, want)
		}
	})
}

// forward listens on listen and relays every connection to target. It
// returns the listening host and port and a count of accepted connections.
// Skips the test when the address cannot be bound here.
func forward(t *testing.T, listen, target string) (string, int, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", listen)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", listen, err)
	}
	var accepted atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			track(c)
			track(up)
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(up, c); closeWrite(up) }()
			go func() { defer wg.Done(); _, _ = io.Copy(c, up); closeWrite(c) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	host, p, _ := net.SplitHostPort(l.Addr().String())
	port, _ := strconv.Atoi(p)
	return host, port, &accepted
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	c.Close()
}
