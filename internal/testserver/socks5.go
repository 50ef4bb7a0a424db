// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// SOCKS5 is a small SOCKS5 proxy (RFC 1928 CONNECT, RFC 1929
// username/password when Username is set) on 127.0.0.1, for proxy tests.
// Connections counts the CONNECTs it relayed; Refused the logins it
// refused. Closed when the test ends.
type SOCKS5 struct {
	Port               int
	Username, Password string
	Connections        atomic.Int64
	Refused            atomic.Int64

	l     net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// StartSOCKS5 starts a proxy; username "" means no authentication.
func StartSOCKS5(t testing.TB, username, password string) *SOCKS5 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := l.Addr().(*net.TCPAddr)
	p := &SOCKS5{Port: addr.Port, Username: username, Password: password, l: l, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.Close)
	return p
}

// URL is socks5h://127.0.0.1:<port>.
func (p *SOCKS5) URL() string { return "socks5h://127.0.0.1:" + strconv.Itoa(p.Port) }

// Close stops accepting and ends every relayed connection.
func (p *SOCKS5) Close() {
	p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *SOCKS5) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

func (p *SOCKS5) serve() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.track(c, true)
			defer p.track(c, false)
			defer c.Close()
			p.handle(c)
		}()
	}
}

func (p *SOCKS5) handle(c net.Conn) {
	buf := make([]byte, 262)
	if _, err := io.ReadFull(c, buf[:2]); err != nil || buf[0] != 5 {
		return
	}
	methods := buf[2 : 2+int(buf[1])]
	if _, err := io.ReadFull(c, methods); err != nil {
		return
	}
	want := byte(0)
	if p.Username != "" {
		want = 2
	}
	offered := false
	for _, m := range methods {
		offered = offered || m == want
	}
	if !offered {
		_, _ = c.Write([]byte{5, 0xff})
		p.Refused.Add(1)
		return
	}
	_, _ = c.Write([]byte{5, want})
	if want == 2 {
		if _, err := io.ReadFull(c, buf[:2]); err != nil {
			return
		}
		user := make([]byte, buf[1])
		if _, err := io.ReadFull(c, user); err != nil {
			return
		}
		if _, err := io.ReadFull(c, buf[:1]); err != nil {
			return
		}
		pass := make([]byte, buf[0])
		if _, err := io.ReadFull(c, pass); err != nil {
			return
		}
		if string(user) != p.Username || string(pass) != p.Password {
			_, _ = c.Write([]byte{1, 1})
			p.Refused.Add(1)
			return
		}
		_, _ = c.Write([]byte{1, 0})
	}
	if _, err := io.ReadFull(c, buf[:4]); err != nil || buf[0] != 5 || buf[1] != 1 {
		return
	}
	var host string
	switch buf[3] {
	case 1, 4:
		ip := make([]byte, map[byte]int{1: 4, 4: 16}[buf[3]])
		if _, err := io.ReadFull(c, ip); err != nil {
			return
		}
		host = net.IP(ip).String()
	case 3:
		if _, err := io.ReadFull(c, buf[:1]); err != nil {
			return
		}
		name := make([]byte, buf[0])
		if _, err := io.ReadFull(c, name); err != nil {
			return
		}
		host = string(name)
	default:
		return
	}
	if _, err := io.ReadFull(c, buf[:2]); err != nil {
		return
	}
	target, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(buf[:2])))))
	if err != nil {
		_, _ = c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0}) // connection refused
		return
	}
	p.track(target, true)
	defer p.track(target, false)
	defer target.Close()
	_, _ = c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	p.Connections.Add(1)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(target, c); target.Close(); close(done) }()
	_, _ = io.Copy(c, target)
	c.Close()
	<-done
}
