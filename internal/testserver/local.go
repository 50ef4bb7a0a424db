// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Local backend: shared plumbing for running a server binary in a temp dir.

const (
	// readyTimeout bounds the wait for a started server to accept connections.
	readyTimeout = 20 * time.Second
	// bindAttempts: a free port is picked by binding :0 and closing it, which
	// is racy (another process may take it before the server binds), so a
	// start that fails with "Address already in use" is retried on a new port.
	bindAttempts = 5
	// maxSocketPath: sun_path is 108 bytes on Linux, including the NUL.
	maxSocketPath = 107
)

func startLocal(ctx context.Context, engine string, o startOptions) (*Server, error) {
	if engine == EngineMySQL && o.kind == KindMySQL {
		return startLocalMySQL(ctx, o)
	}
	if engine == EngineMySQL {
		return startLocalMariaDB(ctx, o)
	}
	return startLocalPostgres(ctx, o)
}

// localInstance is one server's temp dir, its watchdog and its process.
type localInstance struct {
	dir      string
	cred     *syscall.Credential // run children as this user (PostgreSQL as root); nil = as ourselves
	stopSig  syscall.Signal      // the signal that ends the server quickly and cleanly enough
	watchdog *watchdog

	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has been waited for
}

// newLocalInstance makes the temp dir (in parent; "" = the system's temp
// dir) and starts its watchdog first, so that even a crash during
// initialisation leaves nothing behind.
func newLocalInstance(parent, prefix string, cred *syscall.Credential, stopSig syscall.Signal) (*localInstance, error) {
	dir, err := os.MkdirTemp(parent, "tenantdb-"+prefix+"-")
	if err != nil {
		return nil, err
	}
	// Resolve symlinks so that paths handed to servers and the watchdog are
	// the real ones (and socket path lengths are what we measured).
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	li := &localInstance{dir: dir, cred: cred, stopSig: stopSig}
	if cred != nil {
		// The server user must reach and write the dir: MkdirTemp made it 0700 root.
		if err := os.Chmod(dir, 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	li.watchdog, err = startWatchdog(dir, stopSig)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return li, nil
}

func (li *localInstance) path(name string) string { return filepath.Join(li.dir, name) }

// serverTLS is a fresh CA and server certificate written into the
// instance's directory, for the server's ssl options.
type serverTLS struct {
	certs                     *certBundle
	caFile, certFile, keyFile string
}

// writeServerTLS makes a CA and a server certificate and writes them; the
// certificate and key are owned by the server's user when serverOwned
// (PostgreSQL refuses a key readable by others or owned by another user).
func (li *localInstance) writeServerTLS(serverOwned bool) (t serverTLS, err error) {
	if t.certs, err = newCertBundle(); err != nil {
		return t, err
	}
	if t.caFile, err = li.writeFile("ca.pem", t.certs.caPEM, 0o644, false); err != nil {
		return t, err
	}
	if t.certFile, err = li.writeFile("server-cert.pem", t.certs.certPEM, 0o644, serverOwned); err != nil {
		return t, err
	}
	t.keyFile, err = li.writeFile("server-key.pem", t.certs.keyPEM, 0o600, serverOwned)
	return t, err
}

// writeFile writes a file in the dir; owned by the server user when private
// is set (PostgreSQL insists its key is 0600 and owned by itself).
func (li *localInstance) writeFile(name string, data []byte, mode os.FileMode, serverOwned bool) (string, error) {
	p := li.path(name)
	if err := os.WriteFile(p, data, mode); err != nil {
		return "", err
	}
	if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is filtered by umask
		return "", err
	}
	if serverOwned && li.cred != nil {
		if err := os.Chown(p, int(li.cred.Uid), int(li.cred.Gid)); err != nil {
			return "", err
		}
	}
	return p, nil
}

func (li *localInstance) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		// Own process group: a terminal's Ctrl-C goes to the foreground group
		// and must not kill the server under RunMain's orderly shutdown.
		Setpgid: true,
		// If the test process dies, the kernel signals the child at once.
		// Go applies Pdeathsig after switching credentials (a setuid would
		// clear it), which is why we use Credential rather than setpriv. It
		// is tied to the forking OS thread, which the Go runtime keeps for
		// the life of the process; the watchdog covers the rest.
		Pdeathsig:  deathSig,
		Credential: li.cred,
	}
}

// command prepares a child process with its output appended to logPath.
func (li *localInstance) command(ctx context.Context, logPath string, deathSig syscall.Signal, name string, args ...string) (*exec.Cmd, *os.File, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if li.cred != nil {
		// The server user may reopen it: PostgreSQL's logging collector
		// appends to this same file once it has started.
		if err := logf.Chown(int(li.cred.Uid), int(li.cred.Gid)); err != nil {
			_ = logf.Close()
			return nil, nil, err
		}
	}
	var cmd *exec.Cmd
	if ctx != nil {
		cmd = exec.CommandContext(ctx, name, args...)
	} else {
		cmd = exec.Command(name, args...)
	}
	// The server user may not be able to enter our working directory (e.g.
	// /root/...); PostgreSQL tools fail outright there.
	cmd.Dir = li.dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = li.sysProcAttr(deathSig)
	return cmd, logf, nil
}

// run runs a one-shot tool (initdb, mariadb-install-db) to completion.
func (li *localInstance) run(ctx context.Context, logName, name string, args ...string) error {
	logPath := li.path(logName)
	cmd, logf, err := li.command(ctx, logPath, syscall.SIGKILL, name, args...)
	if err != nil {
		return err
	}
	defer logf.Close()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	li.watchdog.watch(cmd.Process.Pid)
	err = cmd.Wait()
	li.watchdog.watch(0)
	if err != nil {
		return fmt.Errorf("%s failed after %v: %w%s", filepath.Base(name), time.Since(t0).Round(time.Millisecond), err, logTail(logPath))
	}
	return nil
}

// startServer starts the long-running server process. It is not bound to a
// context: the server must outlive the Start call.
func (li *localInstance) startServer(logPath, name string, args ...string) error {
	cmd, logf, err := li.command(nil, logPath, li.stopSig, name, args...) //nolint:staticcheck // nil: exec.Command, not bound to a context (see above)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy of the descriptor
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	li.watchdog.watch(cmd.Process.Pid)
	li.cmd = cmd
	li.exited = make(chan struct{})
	go func(exited chan struct{}) {
		_ = cmd.Wait() // reaps the child; the exit status is in the log
		close(exited)
	}(li.exited)
	return nil
}

// stopServer signals the server with stopSig, and SIGKILL after grace, then
// waits until it is reaped.
func (li *localInstance) stopServer(grace time.Duration) error {
	if li.cmd == nil {
		return nil
	}
	cmd, exited := li.cmd, li.exited
	li.cmd, li.exited = nil, nil
	_ = cmd.Process.Signal(li.stopSig)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("server process %d did not exit after SIGKILL", cmd.Process.Pid)
		}
	}
	li.watchdog.watch(0)
	return nil
}

// destroy stops the server, dismisses the watchdog and removes the dir.
func (li *localInstance) destroy(grace time.Duration) error {
	var errs []error
	if err := li.stopServer(grace); err != nil {
		errs = append(errs, err)
	}
	li.watchdog.dismiss()
	if err := li.dumpStatementLogs(); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(li.dir); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", li.dir, err))
	}
	return errors.Join(errs...)
}

// pickPort chooses the port for a start attempt (1-based); a variable so that
// tests can hand out a busy port and exercise the retry.
var pickPort = func(attempt int) (int, error) { return freePort() }

// freePort asks the kernel for a free loopback port. Racy by nature: see bindAttempts.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil //nolint:forcetypeassert // a tcp listener's address
}

// isBindFailure tells whether a server that failed to start did so because
// its port was taken: its log says so, or the port is still taken now that
// the server is gone. (The second needs no log, which may lag: PostgreSQL's
// logging collector writes on its own time.)
func isBindFailure(logPath string, port int) bool {
	b, _ := os.ReadFile(logPath)
	if bytes.Contains(b, []byte("Address already in use")) {
		return true
	}
	l, err := net.Listen("tcp", joinHostPort("127.0.0.1", port))
	if err != nil {
		return errors.Is(err, syscall.EADDRINUSE)
	}
	_ = l.Close()
	return false
}

// settleLog waits, at most a second, until the file at path has stopped
// growing for 100 ms: a server's logging process (PostgreSQL's collector)
// may still be writing its last messages after the server process exited.
func settleLog(path string) {
	size := func() int64 {
		if st, err := os.Stat(path); err == nil {
			return st.Size()
		}
		return -1
	}
	deadline := time.Now().Add(time.Second)
	last, quietSince := size(), time.Now()
	for time.Now().Before(deadline) && time.Since(quietSince) < 100*time.Millisecond {
		time.Sleep(20 * time.Millisecond)
		if n := size(); n != last {
			last, quietSince = n, time.Now()
		}
	}
}

// logTail returns the last lines of a log, formatted to append to an error.
func logTail(path string) string {
	const maxBytes, maxLines = 4096, 25
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("\n(no log at %s: %v)", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxBytes {
		_, _ = f.Seek(-maxBytes, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return fmt.Sprintf("\n--- last lines of %s ---\n%s\n---", path, strings.Join(lines, "\n"))
}

// serverUser is the credential to run PostgreSQL with: as root it must be an
// unprivileged user ("postgres", as the Debian packages create it), since
// initdb and postgres refuse to run as root.
func serverUser(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL must run as the %q OS user: %w (it comes with the postgresql packages)", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	// Empty Groups = drop supplementary groups, as setpriv --clear-groups does.
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// ---------------------------------------------------------------------------
// Watchdog.

// watchdogScript runs as `sh -c script testserver-watchdog DIR SIG`. It reads
// PIDs from stdin, one a line (an empty line or 0 = none), keeping the last.
// Stdin is a pipe whose only writer is the test process, so EOF means the
// test process is gone, however it died (panic in a test goroutine, go test
// -timeout, SIGKILL, os.Exit without cleanup). Then it stops the last
// announced process, waits for it (bounded; a zombie nobody reaps counts as
// gone) and removes the temp dir. On a normal Stop the test process kills the
// watchdog first, so it never acts on a stale, possibly reused, PID.
const watchdogScript = `
dir=$1 sig=$2 pid=
while IFS= read -r line; do pid=$line; done
if [ -n "$pid" ] && [ "$pid" != 0 ]; then
	kill -s "$sig" "$pid" 2>/dev/null
	i=0
	while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do
		case $(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null) in Z|'') break;; esac
		sleep 0.1; i=$((i+1))
	done
	kill -s KILL "$pid" 2>/dev/null
fi
rm -rf -- "$dir"
`

type watchdog struct {
	cmd *exec.Cmd
	w   io.WriteCloser
}

func startWatchdog(dir string, sig syscall.Signal) (*watchdog, error) {
	sigName := map[syscall.Signal]string{syscall.SIGTERM: "TERM", syscall.SIGQUIT: "QUIT", syscall.SIGKILL: "KILL", syscall.SIGINT: "INT"}[sig]
	if sigName == "" {
		sigName = "KILL"
	}
	return runWatchdog(watchdogScript, nil, dir, sigName)
}

// runWatchdog starts `sh -c script testserver-watchdog args...` with env
// added to this process's environment.
func runWatchdog(script string, env []string, args ...string) (*watchdog, error) {
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "testserver-watchdog"}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Dir = "/"
	// Own process group: a Ctrl-C meant for the tests must not kill it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe() // an *os.File pipe, close-on-exec in our process
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, w: w}, nil
}

// watch tells the watchdog which process to stop if we die (0 = none).
func (w *watchdog) watch(pid int) {
	_, _ = fmt.Fprintf(w.w, "%d\n", pid)
}

// dismiss ends the watchdog without letting it act: SIGKILL, then reap.
func (w *watchdog) dismiss() {
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
	_ = w.w.Close()
}

// newLocalServer describes a started local server; the caller sets open and
// stopBackend, which differ per engine.
func newLocalServer(engine, flavor string, port int, caPEM []byte, li *localInstance, attempts int, super, admin Login) (*Server, error) {
	tlsConf, err := clientTLSConfig(caPEM, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	return &Server{
		Engine:   engine,
		Flavor:   flavor,
		Host:     "127.0.0.1",
		Port:     port,
		CAPEM:    string(caPEM),
		Admin:    admin,
		Super:    super,
		tlsMode:  "verify-full",
		tlsConf:  tlsConf,
		pid:      li.cmd.Process.Pid,
		attempts: attempts,
		dir:      li.dir,
	}, nil
}
