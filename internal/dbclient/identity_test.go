// SPDX-License-Identifier: MPL-2.0

package dbclient

import "testing"

// TestCompareMariaDB: a MariaDB database's identity is its comment, which
// its tenant and any DBA may rewrite. No comment is proof of another
// database: an empty one (what a database re-created by hand has) is
// Replaced for the grants and owners, so they revoke what the name
// inherited, any other Unproven; the database resource treats both as
// Unproven (DatabaseVerdict). An identity recorded without a mark (an
// import) takes the mark its first apply writes.
func TestCompareMariaDB(t *testing.T) {
	t.Parallel()
	const mark, other = "mariadb:tenantdb:00112233445566778899aabbccddeeff", "mariadb:tenantdb:ffeeddccbbaa99887766554433221100"
	for _, c := range []struct {
		name                  string
		recorded, got         Identity
		compare, dbVerdict    Verdict
		recordedNeedsMarkWant bool
	}{
		{"same mark", mark, mark, Same, Same, false},
		{"comment edited by a DBA", mark, "mariadb:owned by team acme", Unproven, Unproven, false},
		{"a mark's form written by the tenant", mark, other, Unproven, Unproven, false},
		{"comment emptied (or re-created by hand)", mark, "mariadb:", Replaced, Unproven, false},
		{"import without a comment, unchanged", "mariadb:", "mariadb:", Same, Same, true},
		{"import with a comment, unchanged", "mariadb:team acme", "mariadb:team acme", Same, Same, true},
		{"import marked by its first apply", "mariadb:team acme", mark, Same, Same, true},
		{"import whose comment was edited", "mariadb:team acme", "mariadb:team beta", Unproven, Unproven, true},
		{"import whose comment was emptied", "mariadb:team acme", "mariadb:", Replaced, Unproven, true},
		{"PostgreSQL re-created", "pg:1:100", "pg:1:200", Replaced, Replaced, false},
		{"PostgreSQL other server", "pg:1:100", "pg:2:100", OtherServer, OtherServer, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Compare(c.recorded, c.got); got != c.compare {
				t.Errorf("Compare(%q, %q) = %v, want %v", c.recorded, c.got, got, c.compare)
			}
			if got := DatabaseVerdict(c.recorded, c.got); got != c.dbVerdict {
				t.Errorf("DatabaseVerdict(%q, %q) = %v, want %v", c.recorded, c.got, got, c.dbVerdict)
			}
			if got := c.recorded.NeedsMark(); got != c.recordedNeedsMarkWant {
				t.Errorf("%q.NeedsMark() = %v, want %v", c.recorded, got, c.recordedNeedsMarkWant)
			}
		})
	}
}

// TestCompareLoginsMariaDB: a MariaDB login's identity is the second its
// password was last set, which the login itself may change: a difference
// is Unproven, never Replaced.
func TestCompareLoginsMariaDB(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		recorded, got Identity
		want          Verdict
	}{
		{"mariadb-login:1700000000", "mariadb-login:1700000000", Same},
		{"mariadb-login:1700000000", "mariadb-login:1700000042", Unproven},
		{"mysql-login:uuid-a:m1", "mysql-login:uuid-a:m2", Replaced},
		{"mysql-login:uuid-a:m1", "mysql-login:uuid-b:m1", OtherServer},
	} {
		if got := CompareLogins(c.recorded, c.got); got != c.want {
			t.Errorf("CompareLogins(%q, %q) = %v, want %v", c.recorded, c.got, got, c.want)
		}
	}
}
