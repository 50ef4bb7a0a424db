// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestValidateHost(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{
		"db.internal", "localhost", "127.0.0.1", "10.0.0.5", "::1", "fe80::1", "2001:db8::42",
		"::ffff:10.0.0.1", "db-1.eu_west.example.com", "_mysql", "a", "x1",
		strings.Repeat("a", 63) + ".example",
	} {
		if err := ValidateHost(ok); err != nil {
			t.Errorf("ValidateHost(%q) = %v, want nil", ok, err)
		}
	}
	cases := []struct{ host, want string }{
		{"", "empty"},
		{" db.internal", "spaces"},
		{"db.internal ", "spaces"},
		{"db internal", "spaces"},
		{"db\tinternal", "spaces"},
		{"db\ninternal", "spaces"},
		{"[::1]", `Write host = "::1"`},
		{"[::1]:5432", `includes a port (:5432)`},
		{"[::1", "not a host name"},
		{"db:3306", `Write host = "db" and set port = 3306`},
		{"127.0.0.1:3306", `Write host = "127.0.0.1" and set port = 3306`},
		{"db:", "not a valid IPv6"},
		{":::1", "not a valid IPv6"},
		{"fe80::1%eth0", "zone"},
		{"user@db", "URL"},
		{"/var/run/mysqld/mysqld.sock", "socket path"},
		{"db/x", "URL"},
		{"db?sslmode=disable", "URL"},
		{"mysql://db", "IPv6"}, // the colon is seen first
		{"db..internal", "not a host name"},
		{"db.internal.", "not a host name"},
		{".db", "not a host name"},
		{"-db", "not a host name"},
		{"db-.x", "not a host name"},
		{"db$", "not a host name"},
		{"dé.example", "not a host name"},
		{strings.Repeat("a", 64) + ".example", "not a host name"},
		{strings.Repeat("a.", 127) + "ab", "at most 253"},
		{"256.1.1.1", "not a valid IPv4"},
		{"10.0.0", "not a valid IPv4"},
		{"010.0.0.1", "not a valid IPv4"},
		{"1234", "not a valid IPv4"},
	}
	for _, c := range cases {
		err := ValidateHost(c.host)
		if err == nil {
			t.Errorf("ValidateHost(%q) = nil, want a refusal", c.host)
			continue
		}
		de, ok := err.(*Error)
		if !ok || de.Reason != InvalidIdentifier || !strings.HasPrefix(de.Summary(), "InvalidIdentifier: host ") {
			t.Errorf("ValidateHost(%q) = %v (%T), want an InvalidIdentifier refusal naming the host", c.host, err, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("ValidateHost(%q) = %q, want it to mention %q", c.host, err, c.want)
		}
		if strings.ContainsAny(de.Summary(), "\n\t") {
			t.Errorf("ValidateHost(%q): summary %q is not one line", c.host, de.Summary())
		}
	}
}

func TestValidatePort(t *testing.T) {
	t.Parallel()
	for _, p := range []int64{1, 3306, 5432, 65535} {
		if err := ValidatePort(p); err != nil {
			t.Errorf("ValidatePort(%d) = %v", p, err)
		}
	}
	for _, p := range []int64{0, -1, 65536, 1 << 40} {
		if err := ValidatePort(p); err == nil || !strings.Contains(err.Error(), "outside 1-65535") {
			t.Errorf("ValidatePort(%d) = %v, want outside 1-65535", p, err)
		}
	}
}

// FuzzValidateHost: an accepted host joins with a port into an address that
// splits back into exactly that host and port, and carries nothing that a
// driver could read as something else (user, path, query, socket, spaces).
func FuzzValidateHost(f *testing.F) {
	for _, s := range []string{"db.internal", "::1", "[::1]", "db:3306", "127.0.0.1", "a b", "/tmp", "fe80::1%lo", "x@y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidateHost(s) != nil {
			return
		}
		if strings.ContainsAny(s, " \t\r\n/@?#[]%") || s == "" {
			t.Fatalf("accepted %q", s)
		}
		addr := net.JoinHostPort(s, strconv.Itoa(3306))
		h, p, err := net.SplitHostPort(addr)
		if err != nil || h != s || p != "3306" {
			t.Fatalf("%q joins to %q, which splits to %q %q %v", s, addr, h, p, err)
		}
	})
}
