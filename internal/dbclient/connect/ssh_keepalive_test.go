// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestSSHBastion_silentLink: a bastion session that stops answering (its
// sshd process stopped, as when NAT state is lost) is noticed, and the
// next connection dials the bastion again: by the keepalives (the link is
// closed after the misses), and by a channel open that times out (the
// client is dropped at once, not kept for every later dial to wait on).
func TestSSHBastion_silentLink(t *testing.T) {
	interval, misses := sshKeepAliveInterval, sshKeepAliveMisses
	sshKeepAliveInterval, sshKeepAliveMisses = 100*time.Millisecond, 3
	t.Cleanup(func() { sshKeepAliveInterval, sshKeepAliveMisses = interval, misses })

	// open dials a channel to the bastion's own port through tun.
	open := func(t *testing.T, tun *tunnel, d *testserver.SSHD, timeout time.Duration) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		defer cancel()
		c, err := tun.dial(ctx, "127.0.0.1:"+strconv.Itoa(d.Port))
		if err == nil {
			c.Close()
		}
		return err
	}
	start := func(t *testing.T) (*tunnel, *testserver.SSHD) {
		t.Helper()
		d := testserver.StartSSHD(t)
		b, err := NewSSHBastion(SSHBastionConfig{Host: "127.0.0.1", Port: d.Port, User: d.User, PrivateKey: d.ClientKeyPEM,
			KnownHosts: d.KnownHosts, Server: "main"})
		if err != nil {
			t.Fatal(err)
		}
		tun := &tunnel{b: b}
		t.Cleanup(func() {
			if tun.client != nil {
				tun.client.Close()
			}
		})
		if err := open(t, tun, d, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		return tun, d
	}

	t.Run("keepalives", func(t *testing.T) {
		tun, d := start(t)
		first := tun.client
		d.FreezeSessions(t)
		select {
		case <-tun.dead:
		case <-time.After(10 * time.Second):
			t.Fatal("the silent link was not closed 10 s after it stopped answering (keepalives every 100 ms, 3 misses)")
		}
		if err := open(t, tun, d, 10*time.Second); err != nil {
			t.Fatalf("the next channel after a dead link: %v", err)
		}
		if tun.client == first {
			t.Fatal("the dead SSH connection was reused")
		}
	})
	t.Run("channel open timeout", func(t *testing.T) {
		sshKeepAliveInterval = time.Hour // only the timeout notices here
		tun, d := start(t)
		d.FreezeSessions(t)
		err := open(t, tun, d, time.Second)
		if err == nil || !strings.Contains(err.Error(), "did not open a channel") || !strings.Contains(err.Error(), "SSH bastion 127.0.0.1:") {
			t.Fatalf("a channel open on a silent link: %v; want the bastion named and the channel not opened in time", err)
		}
		if err := open(t, tun, d, 10*time.Second); err != nil {
			t.Fatalf("the next channel after a timed-out one: %v", err)
		}
	})
}
