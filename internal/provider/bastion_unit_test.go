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
