// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Dante is a real SOCKS5 server with username/password authentication
// (RFC 1929): Debian's dante-server (/usr/sbin/danted) on 127.0.0.1 with a
// throwaway configuration. Its `username` method checks the system's
// password database, so the login is a throwaway system account (useradd,
// chpasswd), removed when the test ends; that needs root. ssh -D, the
// other real proxy the tests use, offers no authentication.
type Dante struct {
	Port           int
	User, Password string

	dir, conf string
	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
}

// DanteBinary is where Debian's dante-server installs danted.
const DanteBinary = "/usr/sbin/danted"

// StartDante starts danted accepting only User with password, or skips
// the test when dante-server is not installed (.ci/run installs it) or the
// tests do not run as root.
func StartDante(t testing.TB, password string) *Dante {
	t.Helper()
	if _, err := os.Stat(DanteBinary); err != nil {
		t.Skipf("no %s: apt-get install -y dante-server", DanteBinary)
	}
	if os.Geteuid() != 0 {
		t.Skip("danted's username method checks a system account's password: making a throwaway one (useradd) needs root")
	}
	sweepDanteUsers()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	d := &Dante{User: fmt.Sprintf("%s%d_%s", danteUserPrefix, os.Getpid(), hex.EncodeToString(suffix)), Password: password, dir: t.TempDir()}
	run := func(stdin string, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	run("", "useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", d.User)
	t.Cleanup(func() { _ = exec.Command("userdel", d.User).Run() })
	run(d.User+":"+password+"\n", "chpasswd")
	var err error
	if d.Port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	// The connect lines of the log count what the proxy relayed; a failed
	// login logs "authentication failed".
	d.conf = filepath.Join(d.dir, "danted.conf")
	conf := fmt.Sprintf(`logoutput: %s
internal: 127.0.0.1 port = %d
external: 127.0.0.1
clientmethod: none
socksmethod: username
user.privileged: root
user.unprivileged: nobody
client pass {
  from: 127.0.0.0/8 to: 0.0.0.0/0
  log: error
}
socks pass {
  from: 127.0.0.0/8 to: 0.0.0.0/0
  command: connect
  socksmethod: username
  log: connect error
}
`, filepath.Join(d.dir, "danted.log"), d.Port)
	if err := os.WriteFile(d.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	d.Start(t)
	t.Cleanup(func() { d.Stop(t) })
	return d
}

// danteUserPrefix starts the throwaway accounts' names, followed by the
// test process's pid.
const danteUserPrefix = "tdbsocks"

// sweepDanteUsers removes the accounts of test processes that are gone (a
// killed test never ran its cleanup), so they do not pile up.
func sweepDanteUsers() {
	passwd, _ := os.ReadFile("/etc/passwd")
	for _, line := range strings.Split(string(passwd), "\n") {
		name, _, _ := strings.Cut(line, ":")
		pid, _, ok := strings.Cut(strings.TrimPrefix(name, danteUserPrefix), "_")
		if !strings.HasPrefix(name, danteUserPrefix) || !ok {
			continue
		}
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); os.IsNotExist(err) {
			_ = exec.Command("userdel", name).Run()
		}
	}
}

// URL is socks5h://127.0.0.1:<port> (the proxy resolves the database host).
func (d *Dante) URL() string { return "socks5h://127.0.0.1:" + strconv.Itoa(d.Port) }

// Start (re)starts danted on its port and waits until it accepts.
func (d *Dante) Start(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	// -N 1: one process per kind of work is plenty for a test.
	d.cmd, d.exited = startInGroup(t, filepath.Join(d.dir, "danted.out"),
		DanteBinary, "-f", d.conf, "-N", "1", "-p", filepath.Join(d.dir, "danted.pid"))
	waitAccepting(t, "danted", d.Port, d.exited, d.Log)
}

// Stop ends danted and every connection it relays.
func (d *Dante) Stop(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd != nil {
		killTree(t, d.cmd, d.exited)
		d.cmd = nil
	}
}

// Relayed counts the connections danted relayed for User.
func (d *Dante) Relayed() int {
	return strings.Count(d.Log(), "tcp/connect [: username%"+d.User+"@")
}

// Refused counts the logins danted refused.
func (d *Dante) Refused() int { return strings.Count(d.Log(), "authentication failed") }

// Log is what danted wrote so far.
func (d *Dante) Log() string {
	var b strings.Builder
	for _, f := range []string{"danted.out", "danted.log"} {
		data, _ := os.ReadFile(filepath.Join(d.dir, f))
		b.Write(data)
	}
	return b.String()
}
