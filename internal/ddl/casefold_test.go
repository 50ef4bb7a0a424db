// SPDX-License-Identifier: MPL-2.0

package ddl

import "testing"

func TestCheckNameCase(t *testing.T) {
	t.Parallel()
	folding := ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}, LowerCaseTableNames: 1}
	keeping := ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}, LowerCaseTableNames: 2}
	plain := ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 36}}
	cases := []struct {
		info ServerInfo
		name string
		ok   bool
	}{
		{folding, "acme_mixed", true},
		{folding, "Acme_Mixed", false},
		{folding, "ACME", false},
		{folding, "acme_1", true},
		{keeping, "Acme_Mixed", true},
		{plain, "Acme_Mixed", true},
		{pg15, "Acme_Mixed", true},
	}
	for _, c := range cases {
		db, err := NewDatabaseName(c.info.Flavor.Engine(), c.name)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckNameCase(c.info, "main", db)
		if (err == nil) != c.ok {
			t.Errorf("CheckNameCase(%v, %q) = %v, want ok=%v", c.info, c.name, err, c.ok)
		}
		if err != nil && ReasonOf(err) != InvalidIdentifier {
			t.Errorf("reason = %q, want InvalidIdentifier", ReasonOf(err))
		}
	}
}
