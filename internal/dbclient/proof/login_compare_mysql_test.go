// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"testing"
)

// TestCompareLoginsMySQL: a MySQL login tenantdb created carries its mark
// (another mark, or none, is another login); a principal it did not create
// carries the time its password was set, which the login may change itself
// (Unproven, as on MariaDB); a principal recorded by an earlier version (the
// server only) is taken for the same; another server is OtherServer.
func TestCompareLoginsMySQL(t *testing.T) {
	t.Parallel()
	const u, v = "mysql-login:3f1c2a9e-7b5d-11ef-9c2a-0242ac120002:", "mysql-login:00000000-7b5d-11ef-9c2a-0242ac120002:"
	const mark = "tenantdb:00112233445566778899aabbccddeeff"
	for _, c := range []struct {
		recorded, got Identity
		want          Verdict
	}{
		{u + mark, u + mark, Same},
		{u + mark, u + "tenantdb:ffeeddccbbaa99887766554433221100", Replaced},
		{u + mark, u + "@1796193614", Replaced},
		{u + "@1796193614", u + "@1796193614", Same},
		{u + "@1796193614", u + "@1796193999", Unproven},
		{u + "@1796193614", u + mark, Replaced},
		{u, u + "@1796193614", Same},
		{u, u + mark, Replaced},
		{u + "@1796193614", v + "@1796193614", OtherServer},
		{u + mark, v + mark, OtherServer},
	} {
		if got := CompareLogins(c.recorded, c.got); got != c.want {
			t.Errorf("CompareLogins(%q, %q) = %v, want %v", c.recorded, c.got, got, c.want)
		}
	}
}
