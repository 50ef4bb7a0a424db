// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestNewSSHBastion: a key or an agent (not both), a pin always (no
// insecure default), a SHA256 fingerprint; errors and every print of the
// bastion never show the key.
func TestNewSSHBastion(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(block))
	keyLine := strings.Split(keyPEM, "\n")[1]
	base := SSHBastionConfig{Host: "bastion", User: "jump", PrivateKey: keyPEM, HostKeyFingerprint: "SHA256:abc", Server: "main"}
	b, err := NewSSHBastion(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, b); strings.Contains(out, keyLine) {
			t.Fatalf("%s prints the key: %s", verb, out)
		}
	}
	for name, mutate := range map[string]func(*SSHBastionConfig){
		"no pin":          func(c *SSHBastionConfig) { c.HostKeyFingerprint = "" },
		"md5 fingerprint": func(c *SSHBastionConfig) { c.HostKeyFingerprint = "MD5:aa:bb" },
		"key and agent":   func(c *SSHBastionConfig) { c.AgentSocket = "/run/agent" },
		"no key":          func(c *SSHBastionConfig) { c.PrivateKey = "" },
		"garbage key": func(c *SSHBastionConfig) {
			c.PrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + keyLine[:20] + "\n-----END OPENSSH PRIVATE KEY-----\n"
		},
		"bad known_hosts": func(c *SSHBastionConfig) { c.HostKeyFingerprint, c.KnownHosts = "", "not a known_hosts line" },
		"no user":         func(c *SSHBastionConfig) { c.User = "" },
	} {
		c := base
		mutate(&c)
		_, err := NewSSHBastion(c)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), keyLine[:20]) {
			t.Errorf("%s: the error quotes the key: %v", name, err)
		}
	}
	// An encrypted key: the passphrase missing or wrong is said so, never
	// quoting either.
	enc, err := ssh.MarshalPrivateKeyWithPassphrase(key, "", []byte("Right-pass-31"))
	if err != nil {
		t.Fatal(err)
	}
	for pass, want := range map[string]string{"": "give its passphrase", "Wrong-pass-72": "does not decrypt", "Right-pass-31": ""} {
		c := base
		c.PrivateKey, c.Passphrase = string(pem.EncodeToMemory(enc)), pass
		_, err := NewSSHBastion(c)
		switch {
		case want == "" && err != nil:
			t.Errorf("the right passphrase: %v", err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("passphrase %q: %v, want %q", pass, err, want)
		case err != nil && (strings.Contains(err.Error(), "pass-") || strings.Contains(err.Error(), keyLine[:20])):
			t.Errorf("passphrase %q: the error quotes a secret: %v", pass, err)
		}
	}
}
