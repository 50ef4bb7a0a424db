// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"slices"
	"strings"
	"testing"
)

// A grant row records single privileges of the server's catalog (ALL is
// the catalog); a revoke limited to it never takes what it does not name,
// nor GRANT OPTION; a row read back yields only catalog names, and none
// once the account was dropped.
func TestLedgerGrants(t *testing.T) {
	t.Parallel()
	info := ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 0}}
	user, _ := NewUsername(EngineMySQL, "backup")
	h, _ := NewAccountHost("localhost")
	user = user.WithHost(h)
	db, _ := NewDatabaseName(EngineMySQL, "acme_1")
	all := GrantedPrivileges(info, []Privilege{AllPrivileges})
	if !slices.Equal(all, Catalog(info)) {
		t.Errorf("ALL records %v, want the catalog", all)
	}
	row := LedgerRecordGrant(user, db, []Privilege{"INSERT", "SELECT"}).SQL()
	for _, want := range []string{"'grant', 'backup', 'localhost', 'acme_1', 'granted', 'INSERT,SELECT', CURRENT_USER())"} {
		if !strings.Contains(row, want) {
			t.Errorf("grant row %q lacks %q", row, want)
		}
	}
	for _, tc := range []struct {
		name, list, status string
		want               []Privilege
	}{
		{"live", "SELECT,INSERT", LedgerGranted, []Privilege{"INSERT", "SELECT"}},
		{"unknown names dropped", "SELECT,FILE,GRANT OPTION,x'); DROP", LedgerGranted, []Privilege{"SELECT"}},
		{"account dropped", "SELECT", LedgerDropped, nil},
		{"none", "", LedgerGranted, nil},
	} {
		if got := LedgerGrantedPrivileges(info, tc.list, tc.status); !slices.Equal(got, tc.want) {
			t.Errorf("%s: read %v, want %v", tc.name, got, tc.want)
		}
	}
	held := []Privilege{"INSERT", "SELECT", "UPDATE", GrantOption}
	if got := IntersectPrivileges(held, []Privilege{"SELECT", "UPDATE", "DELETE"}); !slices.Equal(got, []Privilege{"SELECT", "UPDATE"}) {
		t.Errorf("revoke limited to the record = %v", got)
	}
	if got := IntersectPrivileges(held, append(all, GrantOption)); slices.Contains(got, GrantOption) {
		t.Errorf("GRANT OPTION is revoked as tenantdb's: %v", got)
	}
	if got := MinusPrivileges(UnionPrivileges([]Privilege{"SELECT"}, []Privilege{"INSERT"}), []Privilege{"SELECT"}); !slices.Equal(got, []Privilege{"INSERT"}) {
		t.Errorf("record after grant and revoke = %v", got)
	}
	if got := RevokePrivilegesText(info, db, user, []Privilege{"INSERT", GrantOption}); got !=
		"REVOKE INSERT ON `acme\\_1`.* FROM 'backup'@'localhost'; REVOKE GRANT OPTION ON `acme\\_1`.* FROM 'backup'@'localhost';" {
		t.Errorf("statement = %q", got)
	}
	if p := RevokePrivileges(NewDialect(info), db, user, nil); len(p.Statements) != 0 {
		t.Errorf("nothing to revoke runs %v", p.Statements)
	}
	// An account its own destroy dropped meanwhile is not an error.
	for _, st := range RevokePrivileges(NewDialect(info), db, user, []Privilege{"INSERT"}).Statements {
		if st.Tolerate != TolerateMissing {
			t.Errorf("%s does not tolerate a grant already gone", st.SQL())
		}
	}
}
