// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRevokeUnescapedGrant: the old grant is named by its stored pattern
// (the name as written), never by tenantdb's escaped one; a name without
// wildcards has no separate old grant.
func TestRevokeUnescapedGrant(t *testing.T) {
	t.Parallel()
	db, user := must(NewDatabaseName(EngineMySQL, "acme_wms")), must(NewUsername(EngineMySQL, "reporting"))
	if got := UnescapedGrantPattern(mysql80, db); got != "acme_wms" {
		t.Errorf("pattern %q, want acme_wms", got)
	}
	if got := UnescapedGrantPattern(mysql80, must(NewDatabaseName(EngineMySQL, "acmewms"))); got != "" {
		t.Errorf("a name without wildcards: pattern %q, want none", got)
	}
	// Under partial_revokes tenantdb's own grant is on the name as written:
	// there is no other row to report.
	if got := UnescapedGrantPattern(mysqlPartialRevokes, db); got != "" {
		t.Errorf("partial_revokes: pattern %q, want none", got)
	}
	want := []string{"REVOKE ALL PRIVILEGES ON `acme_wms`.* FROM 'reporting'@'%'"}
	if d := cmp.Diff(want, realSQL(RevokeUnescapedGrant(db, user, false))); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	want = append(want, "REVOKE GRANT OPTION ON `acme_wms`.* FROM 'reporting'@'%'")
	if d := cmp.Diff(want, realSQL(RevokeUnescapedGrant(db, user, true))); d != "" {
		t.Errorf("with the grant option (-want +got)\n%s", d)
	}
}

// TestGrantHeldImported: an import shows what is held completely, never a
// privilege held in part (so the plan completes a declared one), and the
// refresh after an apply of what the import showed reads the same.
func TestGrantHeldImported(t *testing.T) {
	t.Parallel()
	// cyrilgdn with a non-superuser admin: SELECT on the tables and in the
	// default privileges, no CONNECT.
	partial := GrantHeld{Any: []Privilege{"SELECT"}}
	if got := partial.Imported(pg15); len(got) != 0 {
		t.Errorf("partial SELECT imported as %v, want nothing", got)
	}
	whole := GrantHeld{Complete: []Privilege{"CONNECT", "SELECT"}, Any: []Privilege{"CONNECT", "SELECT", GrantOption}}
	got := whole.Imported(pg15)
	if d := cmp.Diff([]Privilege{GrantOption, "SELECT"}, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	mysqlRow := HeldEverywhere([]Privilege{"SELECT", "INSERT"})
	imported := mysqlRow.Imported(mariadb)
	declared := must(ParsePrivileges(EngineMySQL, []string{"SELECT", "INSERT"}))
	if d := cmp.Diff(mysqlRow.Reported(mariadb, declared), imported); d != "" {
		t.Errorf("MySQL import differs from the refresh with that configuration (-refresh +import)\n%s", d)
	}
}
