// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// hopBound is what "does not hang" means here: one connect timeout (10 s)
// and a retry's redial, far below the 54 s that five retries of a bastion
// that never answers took on MariaDB. Not a speed assertion.
const hopBound = 30 * time.Second

// TestSSHBastion_hopNamed: a connection through a bastion or proxy that
// fails names the hop that failed (the bastion, the proxy, or the database
// behind them), on every engine, and ends in bounded time (issue 60 item
// 6). pgx replaced a timed-out dial's text by its own "timeout: context
// deadline exceeded" naming only the database's address; go-sql-driver's
// i/o timeout was retried as a lost connection (five connect timeouts);
// a refused bastion port was told to check that "the primary is reachable
// and writable". A link that went silent (its sshd session stopped) after
// the first connection is dialled again by the next connection's retry,
// which succeeds.
func TestSSHBastion_hopNamed(t *testing.T) {
	t.Parallel()
	for _, kind := range engines {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ts := testserver.SharedKind(t, kind)
			d := testserver.StartSSHD(t)
			base := adminSpec(t, ts, ts.Admin)
			bastion := func(t *testing.T, port int) *connect.SSHBastion {
				t.Helper()
				// d's own key, pinned for whatever port is dialled.
				line := "[127.0.0.1]:" + strconv.Itoa(port) + strings.TrimPrefix(d.KnownHosts, "[127.0.0.1]:"+strconv.Itoa(d.Port))
				b, err := connect.NewSSHBastion(connect.SSHBastionConfig{Host: "127.0.0.1", Port: port, User: d.User, PrivateKey: d.ClientKeyPEM,
					KnownHosts: line, Server: base.Name})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			// connect opens a fresh registry on spec and returns its
			// error (nil: connected), checking the bound.
			dialThrough := func(t *testing.T, spec connect.Spec) error {
				t.Helper()
				reg := newRegistry()
				t.Cleanup(reg.Close)
				start := time.Now()
				_, err := reg.Server(t.Context(), spec)
				if took := time.Since(start); took > hopBound {
					t.Errorf("the connection took %s (over %s): %v", took.Round(time.Second), hopBound, err)
				}
				return err
			}
			for _, c := range []struct {
				name string
				spec func(t *testing.T) (connect.Spec, string)
			}{
				{"bastion silent", func(t *testing.T) (connect.Spec, string) {
					s, port := base, testserver.MuteListener(t)
					s.Bastion = bastion(t, port)
					return s, "the SSH bastion 127.0.0.1:" + strconv.Itoa(port) + " did not answer in time"
				}},
				{"bastion port closed", func(t *testing.T) (connect.Spec, string) {
					s, port := base, testserver.ClosedPort(t)
					s.Bastion = bastion(t, port)
					return s, "the SSH bastion 127.0.0.1:" + strconv.Itoa(port) + " cannot be reached"
				}},
				{"proxy silent", func(t *testing.T) (connect.Spec, string) {
					port := testserver.MuteListener(t)
					p, err := connect.NewSOCKS5Proxy("socks5://127.0.0.1:"+strconv.Itoa(port), "", "")
					if err != nil {
						t.Fatal(err)
					}
					s := base
					s.Proxy = p
					return s, "the SOCKS5 proxy 127.0.0.1:" + strconv.Itoa(port) + " did not answer in time"
				}},
				{"database port closed", func(t *testing.T) (connect.Spec, string) {
					s := base
					s.Port = testserver.ClosedPort(t)
					s.Bastion = bastion(t, d.Port)
					return s, "the SSH bastion 127.0.0.1:" + strconv.Itoa(d.Port) + " could not connect to the database at " + s.Addr()
				}},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					spec, want := c.spec(t)
					err := dialThrough(t, spec)
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("got %v\nwant the hop named: %q", err, want)
					}
					if strings.Contains(err.Error(), "reachable and writable") {
						t.Errorf("a hop's failure is told to check the primary: %v", err)
					}
				})
			}
			t.Run("link silent after connecting", func(t *testing.T) {
				// Not parallel with the cases above: it stops every session
				// of d, theirs included.
				spec := base
				spec.Bastion = bastion(t, d.Port)
				if err := dialThrough(t, spec); err != nil {
					t.Fatal(err)
				}
				d.FreezeSessions(t)
				// A new pool's first connection opens a channel on the
				// silent link, times out, and its retry dials the bastion
				// again.
				if err := dialThrough(t, spec); err != nil {
					t.Fatalf("a connection after the link went silent: %v", err)
				}
			})
		})
	}
}
