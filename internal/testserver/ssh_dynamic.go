// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// SSHClientBinary is Debian's OpenSSH client (openssh-client, which
// openssh-server depends on).
const SSHClientBinary = "/usr/bin/ssh"

// SOCKSForward is OpenSSH's own SOCKS5 proxy: `ssh -N -D` logged in to an
// SSHD, a real SOCKS server (no authentication: ssh -D offers none) on
// 127.0.0.1:Port, forwarding through the SSH connection.
type SOCKSForward struct {
	Port   int
	cmd    *exec.Cmd
	exited chan struct{}
}

// DynamicForward starts `ssh -N -D 127.0.0.1:<port>` to d with its
// authorised key and its pinned host key, and waits until the proxy
// accepts. Stopped when the test ends (or by Stop).
func (d *SSHD) DynamicForward(t testing.TB) *SOCKSForward {
	t.Helper()
	if _, err := os.Stat(SSHClientBinary); err != nil {
		t.Skipf("no %s: apt-get install -y openssh-client", SSHClientBinary)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(key, []byte(d.ClientKeyPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(known, []byte(d.KnownHosts), 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	f := &SOCKSForward{Port: port}
	f.cmd, f.exited = startInGroup(t, filepath.Join(dir, "ssh.log"), SSHClientBinary,
		"-N", "-D", "127.0.0.1:"+strconv.Itoa(port), "-p", strconv.Itoa(d.Port),
		"-i", key, "-F", "none", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile="+known, "-o", "ExitOnForwardFailure=yes", d.User+"@127.0.0.1")
	t.Cleanup(f.Stop)
	waitAccepting(t, "ssh -D", port, f.exited, func() string { b, _ := os.ReadFile(filepath.Join(dir, "ssh.log")); return string(b) })
	return f
}

// URL is the proxy's socks5:// URL (ssh -D resolves names itself too).
func (f *SOCKSForward) URL() string { return "socks5://127.0.0.1:" + strconv.Itoa(f.Port) }

// Stop ends the ssh client: the proxy stops accepting.
func (f *SOCKSForward) Stop() {
	if f.cmd.Process != nil {
		_ = f.cmd.Process.Kill()
	}
	<-f.exited
}
