// SPDX-License-Identifier: MPL-2.0

package proof

import "testing"

// TestCompareMariaDB: a MariaDB database's identity is its comment, which
// its tenant and any DBA may rewrite. No comment is evidence of another
// database (a missing proof is never a replacement): an emptied one (what
// a database re-created by hand has, and what a tenant may write) is
// Unproven like any other change, for every resource. An identity
// recorded without a mark (an import) takes the mark its first apply
// writes.
func TestCompareMariaDB(t *testing.T) {
	t.Parallel()
	const mark, other = "mariadb:tenantdb:00112233445566778899aabbccddeeff", "mariadb:tenantdb:ffeeddccbbaa99887766554433221100"
	checkVerdicts(t, []verdictCase{
		{"same mark", mark, mark, Same, false},
		{"comment edited by a DBA", mark, "mariadb:owned by team acme", Unproven, false},
		{"a mark's form written by the tenant", mark, other, Unproven, false},
		{"comment emptied (by the tenant, or re-created by hand)", mark, "mariadb:", Unproven, false},
		{"import without a comment, unchanged", "mariadb:", "mariadb:", Same, true},
		{"import with a comment, unchanged", "mariadb:team acme", "mariadb:team acme", Same, true},
		{"import marked by its first apply", "mariadb:team acme", mark, Same, true},
		{"import whose comment was edited", "mariadb:team acme", "mariadb:team beta", Unproven, true},
		{"import whose comment was emptied", "mariadb:team acme", "mariadb:", Unproven, true},
		{"PostgreSQL re-created", "pg:1:100", "pg:1:200", Replaced, false},
		{"PostgreSQL other server", "pg:1:100", "pg:2:100", OtherServer, false},
	})
}

// verdictCase is how a database found (got) compares with one recorded.
type verdictCase struct {
	name                  string
	recorded, got         Identity
	want                  Verdict
	recordedNeedsMarkWant bool
}

func checkVerdicts(t *testing.T, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := Compare(c.recorded, c.got); got != c.want {
				t.Errorf("Compare(%q, %q) = %v, want %v", c.recorded, c.got, got, c.want)
			}
			if got := c.recorded.NeedsMark(); got != c.recordedNeedsMarkWant {
				t.Errorf("%q.NeedsMark() = %v, want %v", c.recorded, got, c.recordedNeedsMarkWant)
			}
		})
	}
}

// TestCompareMySQL: a MySQL database's identity is its mark procedure
// (nonce and CREATED), which only an admin can make and its tenant can
// drop. Only a counted mark of another claim (another nonce) is Replaced;
// a mark that is gone or no longer counted (its definer lost the admin's
// rights: the server then reads no mark), or this claim's nonce made again
// at another time (a dump restored), is Unproven. An import (the server's
// uuid) takes the mark its first apply writes.
func TestCompareMySQL(t *testing.T) {
	t.Parallel()
	const (
		mark, later, restored = "mysql:0011223344556677:1796190917", "mysql:8899aabbccddeeff:1796191000", "mysql:0011223344556677:1796190918"
		uuidA, uuidB          = "mysql:3e1f0c52-4b5a-11ee-9e6b-0242ac120002", "mysql:9a0b1c2d-4b5a-11ee-9e6b-0242ac120003"
	)
	checkVerdicts(t, []verdictCase{
		{"same mark", mark, mark, Same, false},
		{"mark dropped by the tenant, uncounted, or re-created by hand", mark, uuidA, Unproven, false},
		{"another claim's database", mark, later, Replaced, false},
		{"same nonce, another time (a dump restored by a superuser)", mark, restored, Unproven, false},
		{"import, unchanged", uuidA, uuidA, Same, true},
		{"import, another server", uuidA, uuidB, OtherServer, true},
		{"import marked since", uuidA, mark, Same, true},
		{"MariaDB at the address", mark, "mariadb:", OtherServer, false},
	})
	if m, ok := Identity(mark).MySQLMarker(); !ok || m != "0011223344556677:1796190917" {
		t.Errorf("MySQLMarker = %q, %v", m, ok)
	}
	if _, ok := Identity(uuidA).MySQLMarker(); ok {
		t.Error("a server uuid is not a mark")
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
