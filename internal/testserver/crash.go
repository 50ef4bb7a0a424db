// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Crash and Restart let fault tests kill a local server the hard way and
// bring it back on the same port with the same data, as after a crash.

// errNoCrash: other backends cannot be crashed on demand.
var errNoCrash = errors.New("testserver: Crash/Restart need the local backend")

// Crash SIGKILLs the server's whole process group (PostgreSQL: the
// postmaster and every backend at once), with no shutdown of any kind, and
// waits until the server process is reaped.
func (s *Server) Crash() error {
	if s.crash == nil {
		return errNoCrash
	}
	return s.crash()
}

// Restart starts a crashed server again on the same port and data
// directory (crash recovery runs as after a real crash) and waits until it
// accepts connections.
func (s *Server) Restart(ctx context.Context) error {
	if s.restart == nil {
		return errNoCrash
	}
	return s.restart(ctx)
}

// killServer SIGKILLs the server's process group and reaps the server.
func (li *localInstance) killServer() error {
	if li.cmd == nil {
		return errors.New("testserver: the server is not running")
	}
	cmd, exited := li.cmd, li.exited
	li.cmd, li.exited = nil, nil
	// PostgreSQL's backends each start a session of their own (setsid), so
	// the group kill misses them: kill the server's children one by one.
	children := childPIDs(cmd.Process.Pid)
	// Setpgid: the group id is the server's pid.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	for _, pid := range children {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("server process %d did not exit after SIGKILL", cmd.Process.Pid)
	}
	li.watchdog.watch(0)
	return nil
}

// restartable wires Crash and Restart for a local server started by
// start (which runs the server process) and ready (which succeeds once it
// accepts connections).
func (s *Server) restartable(li *localInstance, start func() error, ready func(context.Context) error) {
	s.crash = li.killServer
	s.restart = func(ctx context.Context) error {
		var err error
		// A killed PostgreSQL's backends may hold the port for a moment.
		for attempt := 0; attempt < 20; attempt++ {
			if err = start(); err != nil {
				return err
			}
			if err = waitFor(ctx, readyTimeout, li.exited, ready); err == nil {
				s.pid = li.cmd.Process.Pid
				return nil
			}
			_ = li.stopServer(5 * time.Second)
			time.Sleep(250 * time.Millisecond)
		}
		return fmt.Errorf("testserver: restart after a crash: %w", err)
	}
}

// childPIDs lists the processes whose parent is pid (Linux /proc).
func childPIDs(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
