// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// TestIdentityCompact: every usual identity is kept short in private state
// and read back exactly; anything not exactly a usual form is kept as it
// is; state an earlier version wrote (the long form, or the owner's
// "~<hex>") is read as it is.
func TestIdentityCompact(t *testing.T) {
	t.Parallel()
	const uuid, mark = "3f1c2a9e-7b5d-11ef-9c2a-0242ac120002", "tenantdb:00112233445566778899aabbccddeeff"
	cases := []struct {
		name   string
		id     string
		prefix string // "" when it stays long
		maxLen int
	}{
		{"mysql owner (CREATE USER's mark)", "mysql-login:" + uuid + ":" + mark, "^", 44},
		{"mysql principal without a mark", "mysql-login:" + uuid + ":", "^", 23},
		{"mysql principal: when its password was set", "mysql-login:" + uuid + ":@1796193614", "^", 33},
		{"mysql login, leading zero: kept", "mysql-login:" + uuid + ":@01796193614", "", 0},
		{"mysql login, upper-case uuid: kept", "mysql-login:" + strings.ToUpper(uuid) + ":" + mark, "", 0},
		{"mysql login, foreign attribute value: kept", "mysql-login:" + uuid + ":something-else", "", 0},
		{"mysql login, short mark: kept", "mysql-login:" + uuid + ":tenantdb:0011", "", 0},
		{"mysql database (claim marker)", "mysql:95c2d08e92204515:1796324974", "%", 17},
		{"mysql database created past 2106", "mysql:95c2d08e92204515:4294967296", "%", 23},
		{"mysql database, leading zero: kept", "mysql:95c2d08e92204515:01796324974", "", 0},
		{"mysql database, past uint64: kept", "mysql:95c2d08e92204515:99999999999999999999", "", 0},
		{"mysql database without a marker: kept", "mysql:" + uuid, "", 0},
		{"mariadb database", "mariadb:tenantdb:b49720329c7b27670e3ec12581194dc6", "~", 23},
		{"mariadb database, upper-case: kept", "mariadb:tenantdb:B49720329C7B27670E3EC12581194DC6", "", 0},
		{"mariadb database, foreign comment: kept", "mariadb:something", "", 0},
		{"mariadb login", "mariadb-login:1764650000", "!", 11},
		{"postgres login", "pg:7441234567890123456:16384", "*", 17},
		{"postgres database", "pg:7715157065526688040:1063898305", "*", 22},
		{"postgres, leading zero: kept", "pg:07441234567890123456:16384", "", 0},
		{"postgres, past uint64: kept", "pg:99999999999999999999:16384", "", 0},
		{"none", "", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			short := compactIdentity(dbclient.Identity(c.id))
			if (c.prefix != "") != (string(short) != c.id) {
				t.Fatalf("compact(%q) = %q", c.id, short)
			}
			if c.prefix != "" && (len(short) > c.maxLen || !strings.HasPrefix(string(short), c.prefix)) {
				t.Fatalf("compact form %q: %d bytes, want at most %d beginning %q", short, len(short), c.maxLen, c.prefix)
			}
			if back := expandIdentity(short); string(back) != c.id {
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
	// The owner's database as earlier versions kept it.
	old := privateMap{ownerDatabaseKey: []byte(`"~b49720329c7b27670e3ec12581194dc6"`)}
	if got, _ := ownerDatabaseIdentity(t.Context(), old); got != "mariadb:tenantdb:b49720329c7b27670e3ec12581194dc6" {
		t.Errorf("the owner's earlier form read as %q", got)
	}
	// Something that only looks compact is never expanded into an identity
	// it does not encode.
	for _, odd := range []string{"^", "^!!", "^AAAA", "%", "%AAAA", "~", "~AAAA", "*", "*AAAA", "*!!!!!!!!!!!16384"} {
		if got := expandIdentity(dbclient.Identity(odd)); string(got) != odd {
			t.Errorf("expand(%q) = %q", odd, got)
		}
	}
}
