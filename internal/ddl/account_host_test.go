// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

func TestNewAccountHost(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "" = refused
	}{
		{"%", "%"},
		{"localhost", "localhost"},
		{"LocalHost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"::1", "::1"},
		{"fe80::1%eth0", ""},
		{"10.%", "10.%"},
		{"10.20.%", "10.20.%"},
		{"192.168.1._", "192.168.1._"},
		{"10.256.%", ""},
		{"10.1", ""},
		{"10.1.2.3.4", ""},
		{"10.20.0.0/255.255.0.0", "10.20.0.0/255.255.0.0"},
		{"10.20.0.0/255.0.255.0", ""},
		{"10.20.1.0/255.255.0.0", ""},
		{"10.20.0.0/16", "10.20.0.0/16"},
		{"10.20.0.0/33", ""},
		{"10.20.0.0/016", ""},
		{"::1/128", ""},
		{"App%.Internal", "app%.internal"},
		{"db-1.example.com", "db-1.example.com"},
		{"db.example.com.", ""},
		{"", ""},
		{"-bad.example", ""},
		{"a b", ""},
		{"x'y", ""},
		{"u@h", ""},
		{"[::1]", ""},
		{strings.Repeat("a", 256), ""},
	} {
		h, err := NewAccountHost(c.in)
		if c.want == "" {
			if err == nil || !strings.HasPrefix(err.Error(), string(InvalidIdentifier)) {
				t.Errorf("%q: got %v, %v; want InvalidIdentifier", c.in, h, err)
			}
			continue
		}
		if err != nil || h.String() != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, h, err, c.want)
		}
	}
}

func TestCheckAccountHost(t *testing.T) {
	cidr, _ := NewAccountHost("10.20.0.0/16")
	mask, _ := NewAccountHost("10.20.0.0/255.255.0.0")
	for _, c := range []struct {
		info ServerInfo
		h    AccountHost
		ok   bool
	}{
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 23}}, cidr, true},
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}}, cidr, true},
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 22}}, cidr, false},
		{ServerInfo{Flavor: FlavorMariaDB, Version: Version{11, 8, 9}}, cidr, false},
		{ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 0}}, mask, true},
	} {
		err := CheckAccountHost(c.info, c.h)
		if (err == nil) != c.ok {
			t.Errorf("%v %s: %v", c.info.Version, c.h, err)
		}
		if err != nil && !strings.Contains(err.Error(), c.info.Version.String()) {
			t.Errorf("refusal does not name the version: %v", err)
		}
	}
}

// A login at another host is another account in every statement.
func TestAccountRendersHost(t *testing.T) {
	u, _ := NewUsername(EngineMySQL, "r")
	lo, _ := NewAccountHost("127.0.0.1")
	anyHost, _ := NewAccountHost("%")
	if got := mysqlAccount(u); got != "'r'@'%'" {
		t.Errorf("default: %s", got)
	}
	if got := mysqlAccount(u.WithHost(lo)); got != "'r'@'127.0.0.1'" {
		t.Errorf("scoped: %s", got)
	}
	if u.WithHost(anyHost) != u || u.WithHost(lo) == u {
		t.Error("a login at '%' must equal the default one, and one at another host must not")
	}
	if u.WithHost(lo).Account() != "r@127.0.0.1" || u.Account() != "r" {
		t.Errorf("keys: %s %s", u.WithHost(lo).Account(), u.Account())
	}
}
