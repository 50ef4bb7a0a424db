// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// The test binaries never ask the machine's name server about a name that
// cannot exist. The tests of the DNS error use names under .invalid (RFC
// 6761: never resolves), and this machine's resolver leaves about one query
// in 27 unanswered for its 5 s timeout (300 lookups of
// nonexistent.invalid, 2026-12-07): two lost in a row, and "not found"
// became a timeout, the error a provider retries, so a test of the DNS
// error failed on the network rather than on the provider. Here Go's
// resolver gets its answer for such a name in-process, as a real DNS
// message (NXDOMAIN, parsed by the same code as a server's); every other
// name goes to the configured name server as before.

var installInvalidDNS sync.Once

// answerInvalidNamesInProcess makes the process's default resolver (the
// one the MySQL and PostgreSQL drivers and the SOCKS5 dialer use) answer
// names under .invalid itself.
func answerInvalidNamesInProcess() {
	installInvalidDNS.Do(func() {
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: dialInvalidAware}
	})
}

// isInvalidName: a query name with a label "invalid" after its first, i.e.
// a name under .invalid, also with a search domain appended by the
// resolver.
func isInvalidName(name string) bool {
	labels := strings.Split(strings.ToLower(strings.TrimSuffix(name, ".")), ".")
	for _, l := range labels[min(1, len(labels)):] {
		if l == "invalid" {
			return true
		}
	}
	return false
}

// dialInvalidAware is the resolver's Dial: a connection that answers
// queries for names under .invalid itself and relays the others to the
// name server at address over network.
func dialInvalidAware(ctx context.Context, network, address string) (net.Conn, error) {
	return &invalidAwareConn{ctx: ctx, network: network, address: address}, nil
}

// invalidAwareConn is not a net.PacketConn, so Go's resolver frames its
// queries as over TCP (a two-byte length, then the message, in one Write)
// and reads the answer the same way.
type invalidAwareConn struct {
	ctx              context.Context
	network, address string

	mu       sync.Mutex
	deadline time.Time
	answer   bytes.Buffer
}

var errNotOneQuery = errors.New("testserver DNS: not one length-prefixed query")

func (c *invalidAwareConn) Write(b []byte) (int, error) {
	if len(b) < 2 || int(binary.BigEndian.Uint16(b)) != len(b)-2 {
		return 0, errNotOneQuery
	}
	query := b[2:]
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return 0, err
	}
	q, err := p.Question()
	if err != nil {
		return 0, err
	}
	var answer []byte
	if isInvalidName(q.Name.String()) {
		answer, err = nameError(h, q)
	} else {
		answer, err = c.relay(query)
	}
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = binary.Write(&c.answer, binary.BigEndian, uint16(len(answer)))
	c.answer.Write(answer)
	return len(b), nil
}

// nameError is the name server's "no such name" to the query h, q.
func nameError(h dnsmessage.Header, q dnsmessage.Question) ([]byte, error) {
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{
		ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired,
		RecursionAvailable: true, RCode: dnsmessage.RCodeNameError,
	})
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	return b.Finish()
}

// relay asks the configured name server, as the resolver would have.
func (c *invalidAwareConn) relay(query []byte) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(c.ctx, c.network, c.address)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	c.mu.Lock()
	deadline := c.deadline
	c.mu.Unlock()
	if err := conn.SetDeadline(deadline); err != nil {
		return nil, err
	}
	if _, ok := conn.(net.PacketConn); ok {
		if _, err := conn.Write(query); err != nil {
			return nil, err
		}
		buf := make([]byte, 65535)
		n, err := conn.Read(buf)
		return buf[:n], err
	}
	framed := binary.BigEndian.AppendUint16(nil, uint16(len(query)))
	if _, err := conn.Write(append(framed, query...)); err != nil {
		return nil, err
	}
	var size uint16
	if err := binary.Read(conn, binary.BigEndian, &size); err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	_, err = io.ReadFull(conn, buf)
	return buf, err
}

func (c *invalidAwareConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answer.Read(b)
}

func (c *invalidAwareConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	return nil
}

func (c *invalidAwareConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *invalidAwareConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
func (c *invalidAwareConn) Close() error                       { return nil }
func (c *invalidAwareConn) LocalAddr() net.Addr                { return dnsAddr("in-process") }
func (c *invalidAwareConn) RemoteAddr() net.Addr               { return dnsAddr(c.address) }

type dnsAddr string

func (a dnsAddr) Network() string { return "dns" }
func (a dnsAddr) String() string  { return string(a) }
