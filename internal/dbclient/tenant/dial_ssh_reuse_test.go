// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// throughBastion runs fn as a parallel subtest per kind with the admin's
// spec for the kind's shared server reached through a real OpenSSH bastion
// of the subtest's own, and the query that names the connection a
// statement ran on.
func throughBastion(t *testing.T, fn func(t *testing.T, spec connect.Spec, q string)) {
	t.Parallel()
	for _, kind := range engines {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			spec, q := bastionSpec(t, testserver.SharedKind(t, kind))
			fn(t, spec, q)
		})
	}
}

func bastionSpec(t *testing.T, ts *testserver.Server) (connect.Spec, string) {
	t.Helper()
	d := testserver.StartSSHD(t)
	spec := adminSpec(t, ts, ts.Admin)
	b, err := connect.NewSSHBastion(connect.SSHBastionConfig{Host: "127.0.0.1", Port: d.Port, User: d.User,
		PrivateKey: d.ClientKeyPEM, KnownHosts: d.KnownHosts, Server: spec.Name})
	if err != nil {
		t.Fatal(err)
	}
	spec.Bastion = b
	if ts.Engine == "postgres" {
		return spec, "SELECT pg_backend_pid()"
	}
	return spec, "SELECT CONNECTION_ID()"
}

// TestSSHBastion_poolReuse: through a real OpenSSH bastion, statements in
// a row run on one pooled connection (the server's connection id or
// backend pid stays the same), as they do directly. The MySQL driver took
// an SSH channel for a dead socket (its idle liveness check asked the
// greeting wrapper for a socket it does not have) and dialled a new
// connection, TLS and login included, for every statement: 4 connections
// here, 4x the direct count in the bench (BENCHMARKS.md).
func TestSSHBastion_poolReuse(t *testing.T) {
	throughBastion(t, func(t *testing.T, spec connect.Spec, q string) {
		reg := newRegistry()
		t.Cleanup(reg.Close)
		s, err := reg.Server(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
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

// TestSSHBastion_closingARegistryKeepsAnothers: two registries reach a
// server through one bastion (one SSH connection, shared); closing one
// leaves the other's connection working, the same connection. Before,
// every registry's Close ended every SSH connection of the process: a
// statement of another registry then read EOF ("invalid connection" on
// MySQL 9.7, seen once in a loaded full run of this package, where tests
// close their registries while others run).
func TestSSHBastion_closingARegistryKeepsAnothers(t *testing.T) {
	throughBastion(t, func(t *testing.T, spec connect.Spec, q string) {
		closed, kept := newRegistry(), newRegistry()
		t.Cleanup(kept.Close)
		for _, reg := range []*Registry{closed, kept} {
			if _, err := reg.Server(t.Context(), spec); err != nil {
				t.Fatal(err)
			}
		}
		s, err := kept.Server(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := s.sess.AdminPool().Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var before, after int64
		if err := conn.QueryRowContext(t.Context(), q).Scan(&before); err != nil {
			t.Fatal(err)
		}
		closed.Close()
		if err := conn.QueryRowContext(t.Context(), q).Scan(&after); err != nil {
			t.Fatalf("after another registry closed, a statement on this one's connection failed: %v", err)
		}
		if after != before {
			t.Errorf("the statement ran on connection %d, want %d (the one opened before)", after, before)
		}
	})
}
