// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/crypto/ssh"
)

// SSHD is a real OpenSSH server (Debian's openssh-server, /usr/sbin/sshd)
// on 127.0.0.1 for bastion tests: a throwaway ed25519 host key, one
// authorised user key, public-key login only, TCP forwarding allowed. It
// logs in the user the tests run as (sshd started by a non-root user can
// only authenticate that user). Stopped when the test ends.
type SSHD struct {
	Port int
	User string
	// HostKeyFingerprint is "SHA256:…"; KnownHosts is the known_hosts line
	// of the host key for [127.0.0.1]:Port.
	HostKeyFingerprint, KnownHosts string
	// ClientKeyPEM is the authorised user key (OpenSSH PEM).
	ClientKeyPEM string
	// HostKeys are its host keys, the ed25519 one first (the ecdsa and
	// rsa ones with SSHDAllHostKeyTypes).
	HostKeys []SSHHostKey

	dir, conf string
	hostsFile string // "": sshd resolves names as this machine does (SSHDResolves)
	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
}

// SSHDBinary is where Debian's openssh-server installs sshd.
const SSHDBinary = "/usr/sbin/sshd"

// StartSSHD starts an sshd, or skips the test when openssh-server is not
// installed (apt-get install openssh-server; .ci/run installs it).
func StartSSHD(t testing.TB, opts ...SSHDOption) *SSHD {
	t.Helper()
	if _, err := os.Stat(SSHDBinary); err != nil {
		t.Skipf("no %s: apt-get install -y openssh-server", SSHDBinary)
	}
	var o sshdOptions
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.hosts) > 0 && os.Geteuid() != 0 {
		t.Skip("an sshd that resolves names of its own runs in a mount namespace of its own: root only")
	}
	d, err := launchSSHD(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Kill(t) })
	return d
}

// LaunchSSHD is StartSSHD without a test (the bench's): keys, config and
// log go in dir (which must exist); Stop ends it.
func LaunchSSHD(dir string) (*SSHD, error) {
	if _, err := os.Stat(SSHDBinary); err != nil {
		return nil, fmt.Errorf("no %s: apt-get install -y openssh-server", SSHDBinary)
	}
	return launchSSHD(dir, sshdOptions{})
}

func launchSSHD(dir string, o sshdOptions) (*SSHD, error) {
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	d := &SSHD{User: u.Username, dir: dir}
	_, hostKey, err := ed25519Key()
	if err != nil {
		return nil, err
	}
	hostPEM, err := ssh.MarshalPrivateKey(hostKey, "tenantdb test host key")
	if err != nil {
		return nil, err
	}
	hostSigner, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		return nil, err
	}
	clientPEM, clientPub, err := newSSHKey()
	if err != nil {
		return nil, err
	}
	d.ClientKeyPEM = clientPEM
	write := func(name string, data []byte) (string, error) {
		p := filepath.Join(d.dir, name)
		return p, os.WriteFile(p, data, 0o600)
	}
	hostKeyFile, err := write("host_key", pem.EncodeToMemory(hostPEM))
	if err != nil {
		return nil, err
	}
	authorized, err := write("authorized_keys", []byte(clientPub))
	if err != nil {
		return nil, err
	}
	if len(o.hosts) > 0 {
		if d.hostsFile, err = write("hosts", o.hostsFile()); err != nil {
			return nil, err
		}
	}
	// The privilege separation directory sshd insists on (the Debian
	// service creates it when it starts; here nothing has).
	if os.Geteuid() == 0 {
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	if d.Port, err = freePort(); err != nil {
		return nil, err
	}
	d.HostKeyFingerprint = ssh.FingerprintSHA256(hostSigner.PublicKey())
	d.KnownHosts = "[127.0.0.1]:" + strconv.Itoa(d.Port) + " " + string(ssh.MarshalAuthorizedKey(hostSigner.PublicKey()))
	d.HostKeys = []SSHHostKey{hostKeyEntry(d.Port, hostSigner.PublicKey())}
	hostKeyLines := []string{"HostKey " + hostKeyFile}
	if o.allKeyTypes {
		lines, keys, err := extraHostKeys(d.dir)
		if err != nil {
			return nil, err
		}
		hostKeyLines = append(hostKeyLines, lines...)
		for _, k := range keys {
			d.HostKeys = append(d.HostKeys, hostKeyEntry(d.Port, k))
		}
	}
	if o.cert != nil {
		line, err := writeHostCert(d.dir, hostSigner.PublicKey(), o.cert)
		if err != nil {
			return nil, err
		}
		hostKeyLines = append(hostKeyLines, line)
	}
	d.conf, err = write("sshd_config", []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
%s
PidFile none
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding yes
AllowAgentForwarding no
X11Forwarding no
PermitTTY no
MaxStartups 100
LogLevel VERBOSE
`, d.Port, strings.Join(hostKeyLines, "\n"), authorized)))
	if err != nil {
		return nil, err
	}
	if err := d.start(); err != nil {
		return nil, err
	}
	return d, nil
}

// NewSSHKey makes an ed25519 user key: its OpenSSH PEM and its
// authorized_keys line.
func NewSSHKey(t testing.TB) (privatePEM, authorizedLine string) {
	t.Helper()
	privatePEM, authorizedLine, err := newSSHKey()
	if err != nil {
		t.Fatal(err)
	}
	return privatePEM, authorizedLine
}

// ed25519Key is a new ed25519 key pair.
func ed25519Key() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	return ed25519.GenerateKey(rand.Reader)
}

func newSSHKey() (privatePEM, authorizedLine string, err error) {
	pub, key, err := ed25519Key()
	if err != nil {
		return "", "", err
	}
	block, err := ssh.MarshalPrivateKey(key, "tenantdb test user key")
	if err != nil {
		return "", "", err
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(block)), string(ssh.MarshalAuthorizedKey(sp)), nil
}

// NewEncryptedSSHKey makes an ed25519 user key encrypted with passphrase
// by OpenSSH's own ssh-keygen (bcrypt KDF, as users' keys are): its
// OpenSSH PEM and its authorized_keys line.
func NewEncryptedSSHKey(t testing.TB, passphrase string) (privatePEM, authorizedLine string) {
	t.Helper()
	key := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command(sshTool(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", passphrase, "-C", "tenantdb test encrypted key",
		"-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	priv, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return string(priv), string(pub)
}

// Authorize adds an authorized_keys line for the user (sshd reads the file
// at each login: no restart).
func (d *SSHD) Authorize(t testing.TB, authorizedLine string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(d.dir, "authorized_keys"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.TrimSpace(authorizedLine) + "\n"); err != nil {
		t.Fatal(err)
	}
}

// Start (re)starts sshd on its port and waits until it accepts.
func (d *SSHD) Start(t testing.TB) {
	t.Helper()
	if err := d.start(); err != nil {
		t.Fatal(err)
	}
}

func (d *SSHD) start() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	// Own process group: Kill takes the per-connection children too, so
	// established SSH connections drop as when a bastion dies.
	cmd := d.command()
	exited, err := launchInGroup(cmd, filepath.Join(d.dir, "sshd.log"))
	if err != nil {
		return err
	}
	d.cmd, d.exited = cmd, exited
	return awaitAccepting("sshd", d.Port, exited, d.Log)
}

// Kill ends sshd and every connection it serves (SIGKILL to its group).
func (d *SSHD) Kill(t testing.TB) {
	t.Helper()
	if err := d.Stop(); err != nil {
		t.Errorf("kill sshd: %v", err)
	}
}

// Stop is Kill without a test.
func (d *SSHD) Stop() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		return nil
	}
	err := stopTree(d.cmd, d.exited)
	d.cmd = nil
	return err
}

// FreezeSessions stops (SIGSTOP) every session sshd serves now, as when a
// bastion's link goes silent (NAT state lost, the session's process
// stopped): the connections stay open and nothing answers on them, while
// new connections are served. They are thawed when the test ends.
func (d *SSHD) FreezeSessions(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	var pids []int
	if d.cmd != nil {
		pids = descendants(d.cmd.Process.Pid)
	}
	d.mu.Unlock()
	if len(pids) == 0 {
		t.Fatal("sshd serves no session to freeze")
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	})
}

// Log is what sshd wrote so far.
func (d *SSHD) Log() string {
	b, _ := os.ReadFile(filepath.Join(d.dir, "sshd.log"))
	return string(b)
}
