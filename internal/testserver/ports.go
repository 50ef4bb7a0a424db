// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"net"
	"sync"
	"testing"
)

// ClosedPort is a loopback port nothing listens on (a refused hop).
func ClosedPort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// MuteListener is a loopback port that accepts connections and never says
// anything (a bastion or proxy whose process hangs); closed when the test
// ends.
func MuteListener(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port //nolint:forcetypeassert // a tcp listener's address
}
