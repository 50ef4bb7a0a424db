// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHHostKey is one of an SSHD's host keys: its type ("ssh-ed25519",
// "ecdsa-sha2-nistp256", "ssh-rsa"), "SHA256:…" fingerprint and
// known_hosts line for [127.0.0.1]:Port.
type SSHHostKey struct {
	Type, Fingerprint, KnownHosts string
}

// SSHDAllHostKeyTypes gives sshd an ecdsa (P-256) and an rsa host key
// besides its ed25519 one, as OpenSSH's own installation does: a client
// is presented the first of its host-key algorithms the server has.
// SSHD.HostKeys lists the three, ed25519 first.
func SSHDAllHostKeyTypes() SSHDOption {
	return func(o *sshdOptions) { o.allKeyTypes = true }
}

// SSHDHostCertificate gives sshd's ed25519 host key a host certificate
// signed by ca, for principals, valid from validAfter to validBefore
// (OpenSSH's HostCertificate). CertAuthorityLine is the known_hosts line
// that trusts ca.
func SSHDHostCertificate(ca ssh.Signer, principals []string, validAfter, validBefore time.Time) SSHDOption {
	return func(o *sshdOptions) {
		o.cert = &hostCert{ca: ca, principals: principals, after: validAfter, before: validBefore}
	}
}

type hostCert struct {
	ca            ssh.Signer
	principals    []string
	after, before time.Time
}

// CertAuthorityLine is the known_hosts line that trusts ca for the SSHD's
// host certificates ([127.0.0.1]:Port).
func (d *SSHD) CertAuthorityLine(ca ssh.PublicKey) string {
	return "@cert-authority [127.0.0.1]:" + strconv.Itoa(d.Port) + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ca)))
}

// RevokedLine is the known_hosts line that revokes key k.
func (d *SSHD) RevokedLine(k SSHHostKey) string { return "@revoked " + k.KnownHosts }

// NewSSHCA makes an ed25519 signer to sign host certificates with.
func NewSSHCA() (ssh.Signer, error) {
	_, key, err := ed25519Key()
	if err != nil {
		return nil, err
	}
	return ssh.NewSignerFromKey(key)
}

// extraHostKeys writes the ecdsa and rsa host keys into dir: their
// HostKey config lines, and what SSHD.HostKeys says of them (the
// known_hosts lines need the port, filled in by the caller).
func extraHostKeys(dir string) (config []string, keys []ssh.PublicKey, err error) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	for name, k := range map[string]crypto.Signer{"host_key_ecdsa": ec, "host_key_rsa": rk} {
		block, err := ssh.MarshalPrivateKey(k, "tenantdb test host key")
		if err != nil {
			return nil, nil, err
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
			return nil, nil, err
		}
		s, err := ssh.NewSignerFromKey(k)
		if err != nil {
			return nil, nil, err
		}
		config = append(config, "HostKey "+p)
		keys = append(keys, s.PublicKey())
	}
	return config, keys, nil
}

// writeHostCert signs key with c and writes it as dir/host_key-cert.pub:
// the HostCertificate config line.
func writeHostCert(dir string, key ssh.PublicKey, c *hostCert) (string, error) {
	cert := &ssh.Certificate{Key: key, Serial: 1, CertType: ssh.HostCert, KeyId: "tenantdb test host",
		ValidPrincipals: c.principals, ValidAfter: uint64(c.after.Unix()), ValidBefore: uint64(c.before.Unix())}
	if err := cert.SignCert(rand.Reader, c.ca); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "host_key-cert.pub")
	if err := os.WriteFile(p, ssh.MarshalAuthorizedKey(cert), 0o600); err != nil {
		return "", err
	}
	return "HostCertificate " + p, nil
}

// hostKeyEntry is what SSHD.HostKeys says of key at port.
func hostKeyEntry(port int, key ssh.PublicKey) SSHHostKey {
	return SSHHostKey{Type: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
		KnownHosts: fmt.Sprintf("[127.0.0.1]:%d %s", port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))))}
}

// SwapHostKey restarts sshd on its port with a new ed25519 host key, as
// when a bastion is replaced or its address taken over; the returned func
// puts the old key back (restarting again). Fingerprint and KnownHosts
// keep naming the old key.
func (d *SSHD) SwapHostKey(t testing.TB) (restore func()) {
	t.Helper()
	keyFile := filepath.Join(d.dir, "host_key")
	old, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := ed25519Key()
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "tenantdb test host key (swapped)")
	if err != nil {
		t.Fatal(err)
	}
	restart := func(data []byte) {
		if err := os.WriteFile(keyFile, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d.Kill(t)
		d.Start(t)
	}
	restart(pem.EncodeToMemory(block))
	return func() { restart(old) }
}
