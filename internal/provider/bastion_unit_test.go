// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
)

// TestRefSSH: a ref without a bastion encodes exactly as before bastions
// (no ssh field), one with a bastion round-trips through both forms, and
// a malformed bastion is refused by validate.
func TestRefSSH(t *testing.T) {
	plain := serverRef{Name: "main", Engine: "mysql", Host: "db.internal", Port: 3306, Username: "tenantdb_admin", TLS: "require"}
	if got, want := plain.encode(), "mysql://tenantdb_admin@db.internal:3306/main?tls=require"; got != want {
		t.Fatalf("encode without a bastion = %q, want %q", got, want)
	}
	withSSH := plain
	withSSH.SSH = "jump@bastion.example:2222"
	enc := withSSH.encode()
	if !strings.HasSuffix(enc, "&ssh=jump%40bastion.example%3A2222") {
		t.Fatalf("encode = %q", enc)
	}
	for _, raw := range []string{enc, `{"name":"main","engine":"mysql","host":"db.internal","username":"tenantdb_admin","ssh":"jump@bastion.example:2222"}`} {
		got, err := parseRef([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got.SSH != withSSH.SSH || got.validate() != nil {
			t.Fatalf("%s: ssh %q, validate %v", raw, got.SSH, got.validate())
		}
	}
	for _, bad := range []string{"bastion:22", "@bastion:22", "a b@bastion:22", "u@bastion", "u@bastion:0", "u@[::1]:22x", "u@bad host:22"} {
		r := plain
		r.SSH = bad
		if r.validate() == nil {
			t.Errorf("ssh %q accepted", bad)
		}
	}
}

// TestRefProxy: a SOCKS5 proxy round-trips through the ref; one with
// credentials, another scheme, or beside a bastion is refused.
func TestRefProxy(t *testing.T) {
	r := serverRef{Name: "main", Engine: "postgres", Host: "db.internal", Port: 5432, Username: "a", TLS: "require",
		Proxy: "socks5h://proxy.internal:1080"}
	got, err := parseRef([]byte(r.encode()))
	if err != nil || got.Proxy != r.Proxy || got.validate() != nil {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"http://proxy:1080", "socks5://u:p@proxy:1080", "socks5://proxy", "socks5://proxy:1080/x", "socks5://:1080"} {
		b := r
		b.Proxy = bad
		if b.validate() == nil {
			t.Errorf("proxy %q accepted", bad)
		}
	}
	both := r
	both.SSH = "jump@bastion:22"
	if both.validate() == nil {
		t.Error("a bastion and a proxy together accepted")
	}
}
