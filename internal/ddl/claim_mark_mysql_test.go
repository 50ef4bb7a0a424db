// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strconv"
	"strings"
	"testing"
)

// TestMySQLMark: the claim on MySQL is CREATE DATABASE, then the mark
// procedure named for the claim's nonce, with DROP DATABASE as the undo;
// the procedure's name is what the catalog read filters on; only a
// "<16 hex>:<seconds>" marker is a mark; the restore statement recreates
// the recorded name at the recorded time.
func TestMySQLMark(t *testing.T) {
	t.Parallel()
	db := DatabaseName{s: "acme`wms"}
	mark := ClaimMark{"tenantdb:00112233445566778899aabbccddeeff"}
	if got := mark.MySQLNonce(); got != "0011223344556677" {
		t.Fatalf("MySQLNonce = %q", got)
	}
	proc := "CREATE PROCEDURE `acme``wms`.`tenantdb_mark_0011223344556677`() COMMENT '" + mysqlMarkComment + "' SQL SECURITY INVOKER BEGIN END"
	p := ClaimPlan(mysql{ServerInfo{Flavor: FlavorMySQL}}, db, Charset{}, Collation{}, mark)
	if len(p.Statements) != 2 || p.Statements[0].SQL() != "CREATE DATABASE `acme``wms`" || p.Statements[1].SQL() != proc {
		t.Fatalf("MySQL claim: %v", p)
	}
	if !p.Statements[0].Claim || !p.Statements[1].Claim {
		t.Error("neither statement may be retried after a lost connection (both fail when run twice)")
	}
	if len(p.Undo) != 1 || p.Undo[0].SQL() != "DROP DATABASE IF EXISTS `acme``wms`" {
		t.Errorf("undo: %v", p.Undo)
	}
	if p := ClaimPlan(mysql{ServerInfo{Flavor: FlavorMariaDB}}, db, Charset{}, Collation{}, mark); len(p.Statements) != 1 || len(p.Undo) != 0 {
		t.Errorf("MariaDB claims in one statement: %v", p)
	}
	if p := ClaimPlan(mysql{ServerInfo{Flavor: FlavorMySQL}}, db, Charset{}, Collation{}, ClaimMark{}); len(p.Statements) != 1 {
		t.Errorf("an unmarked create is one statement: %v", p)
	}
	if p := MarkDatabase(ServerInfo{Flavor: FlavorMySQL}, db, mark); len(p.Statements) != 1 || p.Statements[0].SQL() != proc {
		t.Errorf("MarkDatabase on MySQL: %v", p)
	}
	if !strings.Contains(MySQLMarksQuery, "LEFT(ROUTINE_NAME, "+itoa(len(MySQLMarkPrefix))+") = '"+MySQLMarkPrefix+"'") ||
		!strings.Contains(MySQLMarksQuery, "SUBSTRING(ROUTINE_NAME, "+itoa(len(MySQLMarkPrefix)+1)+")") {
		t.Errorf("MySQLMarksQuery does not cut the prefix it filters on: %s", MySQLMarksQuery)
	}
	for marker, want := range map[string]bool{
		"0011223344556677:1796190917":          true,
		"":                                     false,
		"0011223344556677":                     false,
		"0011223344556677:":                    false,
		"0011223344556677:-1":                  false,
		"001122334455667:1796190917":           false,
		"0011223344556677:17961909x7":          false,
		"00112233445566AA:1796190917":          false,
		"3e1f0c52-4b5a-11ee-9e6b-0242ac120002": false, // a server_uuid
	} {
		if got := IsMySQLMarker(marker); got != want {
			t.Errorf("IsMySQLMarker(%q) = %v, want %v", marker, got, want)
		}
	}
	if got := MySQLMarkerNonce("0011223344556677:1796190917"); got != "0011223344556677" {
		t.Errorf("MySQLMarkerNonce = %q", got)
	}
	want := "SET timestamp = 1796190917; " + proc + "; SET timestamp = DEFAULT;"
	if got := RestoreMySQLMarkStatement(db, "0011223344556677:1796190917"); got != want {
		t.Errorf("RestoreMySQLMarkStatement = %s\nwant %s", got, want)
	}
	if got := RestoreMySQLMarkStatement(db, "x'; DROP DATABASE y; --:1"); got != "" {
		t.Errorf("a marker that is not a mark renders %q, want nothing", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
