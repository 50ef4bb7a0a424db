// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"
)

// tcpProxy forwards a loopback port to a test server, so a test can make
// the server unreachable (Down) and reachable again (Up) at the same
// address without stopping the shared server. TLS passes through untouched.
type tcpProxy struct {
	t      *testing.T
	target string
	port   int

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newTCPProxy(t *testing.T, host string, port int) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: net.JoinHostPort(host, strconv.Itoa(port)), conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = ln.Addr().(*net.TCPAddr).Port
	p.serve(ln)
	t.Cleanup(p.Down)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *tcpProxy) pipe(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(server, client); done <- struct{}{} }()
	go func() { io.Copy(client, server); done <- struct{}{} }()
	<-done
	client.Close()
	server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// Down stops listening and cuts every forwarded connection.
func (p *tcpProxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Up listens on the same port again.
func (p *tcpProxy) Up() {
	p.t.Helper()
	var err error
	for i := 0; i < 50; i++ {
		var ln net.Listener
		if ln, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port))); err == nil {
			p.serve(ln)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("proxy: listen again on %d: %v", p.port, err)
}
