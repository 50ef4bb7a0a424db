// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The daemons the network-path tests start (sshd, danted): each in its own
// process group, waited for until it accepts, and killed with every
// process it forked, so that its connections drop as when the real one
// dies.

// startInGroup starts a daemon in its own process group (killTree takes
// its children too), its output appended to logPath.
func startInGroup(t testing.TB, logPath, name string, args ...string) (*exec.Cmd, chan struct{}) {
	t.Helper()
	cmd := exec.Command(name, args...)
	exited, err := launchInGroup(cmd, logPath)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, exited
}

// launchInGroup is startInGroup of a prepared command, without a test (the
// bench starts sshd too): exited closes when the daemon has exited.
func launchInGroup(cmd *exec.Cmd, logPath string) (chan struct{}, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return exited, nil
}

// waitAccepting waits until 127.0.0.1:port accepts, failing the test when
// the daemon exits first or does not within 20 seconds.
func waitAccepting(t testing.TB, what string, port int, exited chan struct{}, log func() string) {
	t.Helper()
	if err := awaitAccepting(what, port, exited, log); err != nil {
		t.Fatal(err)
	}
}

// awaitAccepting is waitAccepting without a test.
func awaitAccepting(what string, port int, exited chan struct{}, log func() string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited: %s", what, log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not accept on port %d: %s", what, port, log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killTree SIGKILLs cmd's process group and every descendant, and waits
// for cmd to exit.
func killTree(t testing.TB, cmd *exec.Cmd, exited chan struct{}) {
	t.Helper()
	if err := stopTree(cmd, exited); err != nil {
		t.Error(err)
	}
}

// stopTree is killTree without a test. A daemon's per-connection children
// may call setsid() (sshd's do) and leave the group: they are found as
// descendants of the listener and killed first.
func stopTree(cmd *exec.Cmd, exited chan struct{}) error {
	for _, pid := range descendants(cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	var err error
	if kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
		err = fmt.Errorf("kill %s: %w", filepath.Base(cmd.Path), kerr)
	}
	<-exited
	return err
}

// descendants lists the processes below pid (Linux /proc), children first
// found first.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after
		// the last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err == nil {
			parent[p] = ppid
		}
	}
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		var next []int
		for p, pp := range parent {
			if slices.Contains(frontier, pp) {
				out = append(out, p)
				next = append(next, p)
			}
		}
		frontier = next
	}
	return out
}
