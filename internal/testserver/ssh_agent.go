// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// SSHAgent is OpenSSH's own ssh-agent (openssh-client) on a socket in a
// temporary directory, for the bastion's agent_socket. Killed when the
// test ends.
type SSHAgent struct {
	Socket string
}

// sshTool is the path of an OpenSSH client tool, or skips the test.
func sshTool(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("/usr/bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s: apt-get install -y openssh-client", p)
	}
	return p
}

// StartSSHAgent starts `ssh-agent -D -a <socket>` holding no key.
func StartSSHAgent(t testing.TB) *SSHAgent {
	t.Helper()
	dir := t.TempDir()
	a := &SSHAgent{Socket: filepath.Join(dir, "agent.sock")}
	cmd, exited := startInGroup(t, filepath.Join(dir, "ssh-agent.log"), sshTool(t, "ssh-agent"), "-D", "-a", a.Socket)
	t.Cleanup(func() { killTree(t, cmd, exited) })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(a.Socket); err == nil {
			return a
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "ssh-agent.log"))
			t.Fatalf("ssh-agent exited: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("ssh-agent made no socket in 20 s")
		}
	}
}

// Add gives the agent a private key (unencrypted PEM), with ssh-add.
func (a *SSHAgent) Add(t testing.TB, privatePEM string) {
	t.Helper()
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte(privatePEM), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshTool(t, "ssh-add"), "-q", key)
	cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK="+a.Socket)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
}
