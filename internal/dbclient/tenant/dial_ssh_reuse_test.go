// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
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
			seen := map[int64]bool{}
			for range 4 {
				var id int64
				if err := s.sess.AdminPool().QueryRowContext(t.Context(), q).Scan(&id); err != nil {
					t.Fatal(err)
				}
				seen[id] = true
			}
			if len(seen) != 1 {
				t.Fatalf("4 statements in a row through the bastion ran on %d connections (%v), want 1: the pool does not reuse them", len(seen), seen)
			}
		})
	}
}
