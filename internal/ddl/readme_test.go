// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeAdminGrants: README's admin-rights blocks are the statements
// MissingAdminRights gives, per engine, so a user can run them as written.
func TestReadmeAdminGrants(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	admin := AdminAccount{User: "tenantdb_admin", Host: "%"}
	blocks := map[string][]string{
		"-- MySQL 8.0+":           MySQLAdminGrants(ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 36}}, admin),
		"-- MariaDB 10.6 to 11.2": MySQLAdminGrants(ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 6, 0}}, admin),
		"-- MariaDB 11.3+":        MySQLAdminGrants(ServerInfo{Flavor: FlavorMariaDB, Version: Version{11, 3, 0}}, admin),
		"-- PostgreSQL 15+":       PostgresAdminGrants(admin),
	}
	for heading, stmts := range blocks {
		i := strings.Index(readme, heading)
		if i < 0 {
			t.Errorf("README has no block %q", heading)
			continue
		}
		block := readme[i:]
		block = block[:strings.Index(block, "```")]
		for _, st := range stmts {
			if !strings.Contains(block, st+";\n") {
				t.Errorf("README block %q lacks %q", heading, st+";")
			}
		}
	}
}
