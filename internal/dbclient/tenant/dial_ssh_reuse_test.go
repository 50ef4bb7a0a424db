// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestSSHBastion_poolReuse: through a real OpenSSH bastion, statements in
// a row run on one pooled connection (the server's connection id or
// backend pid stays the same), as they do directly. The MySQL driver took
// an SSH channel for a dead socket (its idle liveness check asked the
// greeting wrapper for a socket it does not have) and dialled a new
// connection, TLS and login included, for every statement: 4 connections
// here, 4x the direct count in the bench (BENCHMARKS.md).
func TestSSHBastion_poolReuse(t *testing.T) {
	t.Parallel()
	for _, kind := range engines {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ts := testserver.SharedKind(t, kind)
			d := testserver.StartSSHD(t)
			spec := adminSpec(t, ts, ts.Admin)
			b, err := connect.NewSSHBastion(connect.SSHBastionConfig{Host: "127.0.0.1", Port: d.Port, User: d.User,
				PrivateKey: d.ClientKeyPEM, KnownHosts: d.KnownHosts, Server: spec.Name})
			if err != nil {
				t.Fatal(err)
			}
			spec.Bastion = b
			reg := newRegistry()
			t.Cleanup(reg.Close)
			s, err := reg.Server(t.Context(), spec)
			if err != nil {
				t.Fatal(err)
			}
			q := "SELECT CONNECTION_ID()"
			if ts.Engine == "postgres" {
				q = "SELECT pg_backend_pid()"
			}
			// A connection lost under a statement (seen twice in full
			// runs on a loaded machine, MySQL 9.7: the driver's "invalid
			// connection", which operations retry as OutcomeUnknown) is
			// not what this test is about: the row starts again, at most
			// twice, and each loss is logged.
			var seen map[int64]bool
			for try := 1; ; try++ {
				seen = map[int64]bool{}
				var err error
				for range 4 {
					var id int64
					if err = s.sess.AdminPool().QueryRowContext(t.Context(), q).Scan(&id); err != nil {
						break
					}
					seen[id] = true
				}
				if err == nil {
					break
				}
				if try == 3 || session.Classify(err) != connect.ClassOutcomeUnknown {
					t.Fatal(err)
				}
				t.Logf("the connection was lost under a statement (try %d), the row starts again: %v", try, err)
			}
			if len(seen) != 1 {
				t.Fatalf("4 statements in a row through the bastion ran on %d connections (%v), want 1: the pool does not reuse them", len(seen), seen)
			}
		})
	}
}
