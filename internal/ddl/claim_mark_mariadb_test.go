// SPDX-License-Identifier: MPL-2.0

package ddl

import "testing"

// TestMarkDatabase: the mark goes into the MariaDB database's comment, as a
// literal; no other server gets a statement. The restore statement a
// diagnostic offers quotes the recorded comment, whatever it holds.
func TestMarkDatabase(t *testing.T) {
	t.Parallel()
	db := DatabaseName{s: "acme`wms"}
	mark := ClaimMark{"tenantdb:00112233445566778899aabbccddeeff"}
	p := MarkDatabase(ServerInfo{Flavor: FlavorMariaDB}, db, mark)
	if len(p.Statements) != 1 || p.Statements[0].SQL() != "ALTER DATABASE `acme``wms` COMMENT 'tenantdb:00112233445566778899aabbccddeeff'" {
		t.Fatalf("MariaDB: %v", p)
	}
	if p := MarkDatabase(ServerInfo{Flavor: FlavorPostgres}, db, mark); !p.Empty() {
		t.Errorf("PostgreSQL: %v, want no statement (MySQL: TestMySQLMark)", p)
	}
	if p := MarkDatabase(ServerInfo{Flavor: FlavorMariaDB}, db, ClaimMark{}); !p.Empty() {
		t.Errorf("a zero mark: %v, want no statement", p)
	}
	if got, want := RestoreCommentStatement(db, "team 'acme'"), "ALTER DATABASE `acme``wms` COMMENT 'team ''acme''';"; got != want {
		t.Errorf("RestoreCommentStatement = %s, want %s", got, want)
	}
}
