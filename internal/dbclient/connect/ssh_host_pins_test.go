// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestSSHHostKeyPins: against a real OpenSSH bastion with ed25519, ecdsa
// and rsa host keys (OpenSSH's default), each key pinned alone connects,
// by fingerprint or by its known_hosts line, and the bastion presents the
// pinned one; every pin given must hold (a fingerprint with known_hosts
// that pins another key is refused; @revoked refuses a key pinned by
// fingerprint); a key the bastion does not have is refused naming every
// key it presented. With a host certificate: the plain key's pins still
// connect, @cert-authority connects through the certificate, and a
// certificate for another name or expired is refused, never with advice
// to pin the certificate's fingerprint. Every refusal is a host-key
// refusal (IsHostKeyRefusal: an error at plan and refresh too).
func TestSSHHostKeyPins(t *testing.T) {
	t.Parallel()
	d := testserver.StartSSHD(t, testserver.SSHDAllHostKeyTypes())
	other := testserver.StartSSHD(t)
	ca, err := testserver.NewSSHCA()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	withCert := func(principals []string, after, before time.Time) *testserver.SSHD {
		return testserver.StartSSHD(t, testserver.SSHDHostCertificate(ca, principals, after, before))
	}
	certified := withCert([]string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour))
	wrongName := withCert([]string{"bastion.example"}, now.Add(-time.Hour), now.Add(time.Hour))
	expired := withCert([]string{"127.0.0.1"}, now.Add(-2*time.Hour), now.Add(-time.Hour))

	// dial connects to sshd with the pins and returns the key presented.
	dial := func(t *testing.T, sd *testserver.SSHD, knownHosts, fingerprint string) (ssh.PublicKey, error) {
		t.Helper()
		b, err := NewSSHBastion(SSHBastionConfig{Host: "127.0.0.1", Port: sd.Port, User: sd.User, PrivateKey: sd.ClientKeyPEM,
			KnownHosts: knownHosts, HostKeyFingerprint: fingerprint, Server: "main"})
		if err != nil {
			t.Fatal(err)
		}
		tun := &tunnel{b: b}
		c, err := tun.connected(t.Context())
		if err != nil {
			return nil, err
		}
		c.Close()
		return tun.hostKey, nil
	}
	connects := func(t *testing.T, sd *testserver.SSHD, knownHosts, fingerprint, wantFP string) {
		t.Helper()
		key, err := dial(t, sd, knownHosts, fingerprint)
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		if got := ssh.FingerprintSHA256(key); got != wantFP {
			t.Fatalf("the bastion presented %s (%s), want the pinned %s", got, key.Type(), wantFP)
		}
	}
	refused := func(t *testing.T, sd *testserver.SSHD, knownHosts, fingerprint string, wants ...string) {
		t.Helper()
		_, err := dial(t, sd, knownHosts, fingerprint)
		if err == nil {
			t.Fatal("connected")
		}
		t.Logf("refused: %v", err)
		if !IsHostKeyRefusal(err) {
			t.Fatalf("not a host-key refusal: %v", err)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("the refusal does not say %q: %v", w, err)
			}
		}
		if strings.Contains(err.Error(), "host_key_fingerprint = ") {
			t.Fatalf("the refusal advises a fingerprint pin: %v", err)
		}
	}

	for _, k := range d.HostKeys {
		t.Run("fingerprint "+k.Type, func(t *testing.T) { connects(t, d, "", k.Fingerprint, k.Fingerprint) })
		t.Run("known_hosts "+k.Type, func(t *testing.T) { connects(t, d, k.KnownHosts, "", k.Fingerprint) })
		t.Run("revoked "+k.Type, func(t *testing.T) {
			refused(t, d, d.RevokedLine(k), k.Fingerprint, k.Fingerprint, "@revoked")
		})
	}
	t.Run("every pin holds", func(t *testing.T) {
		refused(t, d, d.HostKeys[2].KnownHosts, d.HostKeys[0].Fingerprint, "none of the pinned keys", d.HostKeys[2].Fingerprint)
	})
	t.Run("a key the bastion does not have", func(t *testing.T) {
		refused(t, d, "", other.HostKeyFingerprint, "none of the pinned keys", d.HostKeys[0].Fingerprint, d.HostKeys[1].Fingerprint,
			d.HostKeys[2].Fingerprint)
		refused(t, d, other.KnownHosts, "", "none of the pinned keys")
	})
	t.Run("certificate: plain pins", func(t *testing.T) {
		connects(t, certified, "", certified.HostKeyFingerprint, certified.HostKeyFingerprint)
		connects(t, certified, certified.KnownHosts, "", certified.HostKeyFingerprint)
	})
	t.Run("certificate: cert-authority", func(t *testing.T) {
		key, err := dial(t, certified, certified.CertAuthorityLine(ca.PublicKey()), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := key.(*ssh.Certificate); !ok {
			t.Fatalf("presented %s, want the host certificate", key.Type())
		}
	})
	t.Run("certificate: another name", func(t *testing.T) {
		refused(t, wrongName, wrongName.CertAuthorityLine(ca.PublicKey()), "", "certificate")
	})
	t.Run("certificate: expired", func(t *testing.T) {
		refused(t, expired, expired.CertAuthorityLine(ca.PublicKey()), "", "certificate")
	})
}
