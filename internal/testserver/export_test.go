// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
)

// BusyFirstPort makes the first start attempt of every local server started
// during the calling test use a port that is already taken, to exercise the
// bind-failure retry. Not for parallel use with other servers' starts.
func BusyFirstPort(t testing.TB) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	busy := l.Addr().(*net.TCPAddr).Port
	old := pickPort
	pickPort = func(attempt int) (int, error) {
		if attempt == 1 {
			return busy, nil
		}
		return freePort()
	}
	t.Cleanup(func() {
		pickPort = old
		l.Close()
	})
}

// StartAttempts is how many server starts a local server needed.
func StartAttempts(s *Server) int { return s.attempts }

// StartDSN starts a dsn-backend server from the given DSN and CA file instead
// of the environment (which t.Setenv can set only in non-parallel tests).
func StartDSN(ctx context.Context, engine, dsn, caFile string) (*Server, error) {
	t0 := time.Now()
	s, err := startDSNWith(ctx, engine, dsn, caFile)
	if err != nil {
		return nil, fmt.Errorf("testserver: start %s (dsn backend): %w", engine, err)
	}
	s.startup = time.Since(t0)
	s.Backend = BackendDSN
	track(s)
	return s, nil
}

// ContainerID is a docker-backend server's container ("" otherwise).
func ContainerID(s *Server) string {
	if s.ctr == nil {
		return ""
	}
	return s.ctr.GetContainerID()
}

// Signal sends sig to the server's process pid (as this machine numbers
// it). A container's processes may belong to a user this one may not signal
// (GitHub's runners do not run tests as root): then it is sent from inside
// the container, as root, to the same process as the container numbers it.
func Signal(s *Server, pid int, sig syscall.Signal) error {
	err := syscall.Kill(pid, sig)
	if err == nil || !errors.Is(err, syscall.EPERM) || s.ctr == nil {
		return err
	}
	status, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if rerr != nil {
		return rerr
	}
	var nspid string
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" {
			nspid = f[len(f)-1]
		}
	}
	if nspid == "" {
		return fmt.Errorf("process %d: no NSpid in /proc: %w", pid, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, out, xerr := s.ctr.Exec(ctx, []string{"kill", "-s", strconv.Itoa(int(sig)), nspid}, tcexec.Multiplexed())
	if xerr != nil {
		return xerr
	}
	if code != 0 {
		b, _ := io.ReadAll(out)
		return fmt.Errorf("kill -s %d %s in the container: exit %d: %s", sig, nspid, code, b)
	}
	return nil
}

// ContainerExists reports whether the daemon still has the container.
func ContainerExists(t testing.TB, id string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	_, err = cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil && !cerrdefs.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// PostgresLogs returns the PostgreSQL server's statement logs, jsonlog then
// text: the files in Dir (local) or in the container (docker).
func PostgresLogs(t testing.TB, s *Server) []byte {
	t.Helper()
	var srcs []pgLogSource
	switch {
	case s.pgJSONLogFile != "":
		srcs = []pgLogSource{pgFileSource{s.pgJSONLogFile}, pgFileSource{filepath.Join(filepath.Dir(s.pgJSONLogFile), pgLogName+".log")}}
	case s.pgLogSrc != nil:
		c, ok := s.pgLogSrc.(pgContainerSource)
		if !ok {
			t.Fatalf("unexpected log source %T", s.pgLogSrc)
		}
		srcs = []pgLogSource{c, pgContainerSource{ctr: c.ctr, path: path.Join(path.Dir(c.path), pgLogName+".log")}}
	default:
		t.Fatalf("%s backend: no PostgreSQL log files", s.Backend)
	}
	var all []byte
	for _, src := range srcs {
		_, b, err := src.read(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}
