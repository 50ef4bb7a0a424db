// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"
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
