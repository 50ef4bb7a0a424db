// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// TestLoginIdentityCompact: a MySQL login identity is kept short in private
// state and read back exactly; every other identity, and anything not
// exactly the MySQL form, is kept as it is; state an earlier version wrote
// (the long form) is read as it is.
func TestLoginIdentityCompact(t *testing.T) {
	t.Parallel()
	const uuid, mark = "3f1c2a9e-7b5d-11ef-9c2a-0242ac120002", "tenantdb:00112233445566778899aabbccddeeff"
	cases := []struct {
		name     string
		id       string
		compacts bool
		maxLen   int
	}{
		{"owner (CREATE USER's mark)", "mysql-login:" + uuid + ":" + mark, true, 44},
		{"principal without a mark", "mysql-login:" + uuid + ":", true, 23},
		{"principal: when its password was set", "mysql-login:" + uuid + ":@1796193614", true, 33},
		{"leading zero: kept", "mysql-login:" + uuid + ":@01796193614", false, 0},
		{"upper-case uuid: kept", "mysql-login:" + strings.ToUpper(uuid) + ":" + mark, false, 0},
		{"foreign attribute value: kept", "mysql-login:" + uuid + ":something-else", false, 0},
		{"short mark: kept", "mysql-login:" + uuid + ":tenantdb:0011", false, 0},
		{"mariadb login", "mariadb-login:1764650000", false, 0},
		{"postgres login", "pg:7441234567890123456:16384", false, 0},
		{"mysql database", "mysql:" + uuid, false, 0},
		{"compact mariadb database", "~00112233445566778899aabbccddeeff", false, 0},
		{"none", "", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			short := compactLoginIdentity(dbclient.Identity(c.id))
			if c.compacts != (string(short) != c.id) {
				t.Fatalf("compact(%q) = %q", c.id, short)
			}
			if c.compacts && (len(short) > c.maxLen || !strings.HasPrefix(string(short), compactLoginPrefix)) {
				t.Fatalf("compact form %q: %d bytes, want at most %d", short, len(short), c.maxLen)
			}
			if back := expandLoginIdentity(short); string(back) != c.id {
				t.Fatalf("expand(%q) = %q, want %q", short, back, c.id)
			}
			// Through private state: written short, read long; the long form
			// (an earlier version's state) reads as it is.
			p := privateMap{}
			if d := recordPrivate(t.Context(), p, identityKey, dbclient.Identity(c.id)); d.HasError() {
				t.Fatal(d)
			}
			if got, _ := privateIdentity(t.Context(), p, identityKey); string(got) != c.id {
				t.Fatalf("read back %q, want %q", got, c.id)
			}
			if c.id != "" {
				legacy := privateMap{identityKey: []byte(`"` + c.id + `"`)}
				if got, _ := privateIdentity(t.Context(), legacy, identityKey); string(got) != c.id {
					t.Fatalf("long form read as %q", got)
				}
			}
		})
	}
	// Something that only looks compact is never expanded into a MySQL
	// identity it does not encode.
	for _, odd := range []string{"^", "^!!", "^AAAA"} {
		if got := expandLoginIdentity(dbclient.Identity(odd)); string(got) != odd {
			t.Errorf("expand(%q) = %q", odd, got)
		}
	}
}
