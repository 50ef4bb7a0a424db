// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

func TestIsInvalidName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"nonexistent.invalid.", true},
		{"db.INVALID", true},
		{"nonexistent.invalid.corp.example.", true}, // a search domain appended
		{"invalid.", false},
		{"invalid.example.com.", false},
		{"db.internal.", false},
		{"localhost", false},
		{"", false},
	} {
		if got := isInvalidName(c.name); got != c.want {
			t.Errorf("isInvalidName(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// resolverVia is a Go resolver whose name server is at addr, asked through
// the in-process answerer.
func resolverVia(addr string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dialInvalidAware(ctx, network, addr)
	}}
}

// udpNameServer answers every query on a loopback port with answer (nil:
// never answers) until the test ends; it counts the queries it got.
func udpNameServer(t *testing.T, answer func(dnsmessage.Header, dnsmessage.Question) []byte) (string, func() int) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	got := make(chan struct{}, 100)
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			got <- struct{}{}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil || answer == nil {
				continue
			}
			_, _ = pc.WriteTo(answer(h, q), from)
		}
	}()
	return pc.LocalAddr().String(), func() int { return len(got) }
}

// TestInvalidNamesAnsweredInProcess: a name under .invalid is "not found"
// at once, the name server never asked (here one that never answers).
func TestInvalidNamesAnsweredInProcess(t *testing.T) {
	addr, queries := udpNameServer(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err := resolverVia(addr).LookupHost(ctx, "nonexistent.invalid")
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Fatalf("LookupHost(nonexistent.invalid) = %v, want a DNS error saying not found", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
	if n := queries(); n != 0 {
		t.Errorf("the name server got %d queries, want none", n)
	}
}

// TestOtherNamesRelayed: any other name is the name server's to answer.
func TestOtherNamesRelayed(t *testing.T) {
	addr, queries := udpNameServer(t, func(h dnsmessage.Header, q dnsmessage.Question) []byte {
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true})
		_ = b.StartQuestions()
		_ = b.Question(q)
		_ = b.StartAnswers()
		if q.Type == dnsmessage.TypeA {
			_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: [4]byte{192, 0, 2, 7}})
		}
		msg, _ := b.Finish()
		return msg
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	addrs, err := resolverVia(addr).LookupHost(ctx, "db.example")
	if err != nil || !slices.Equal(addrs, []string{"192.0.2.7"}) {
		t.Fatalf("LookupHost(db.example) = %v, %v; want [192.0.2.7] from the name server", addrs, err)
	}
	if n := queries(); n == 0 {
		t.Error("the name server got no query")
	}
}
