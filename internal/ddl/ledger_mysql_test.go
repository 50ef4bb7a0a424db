// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// The ledger's statements are rendered from validated values only; its
// name is refused as a tenant database (scratch namespace); a row becomes
// an owner mark only in a form this package writes.
func TestLedger(t *testing.T) {
	if _, err := NewDatabaseName(EngineMySQL, LedgerDatabase); err == nil {
		t.Fatalf("%s is accepted as a tenant database name", LedgerDatabase)
	}
	if _, err := NewDatabaseName(EngineMySQL, strings.ToUpper(LedgerDatabase)); err == nil {
		t.Fatalf("%s in upper case is accepted as a tenant database name", LedgerDatabase)
	}
	for _, name := range []string{"tenantdb_clai__ledger", "tenantdb_claim_ledge_", "_______________________"[:len(LedgerDatabase)]} {
		if _, err := NewDatabaseName(EngineMySQL, name); err == nil {
			t.Errorf("%s, read as a grant pattern, matches the ledger and is accepted as a tenant database name", name)
		}
	}
	if _, err := NewDatabaseName(EngineMySQL, "tenantdb_cla_m_ledgerx"); err != nil {
		t.Errorf("a name that cannot match the ledger is refused: %v", err)
	}
	claim, _ := ParseClaimMark("tenantdb:" + strings.Repeat("ab", 16))
	from := "tenantdb:" + strings.Repeat("cd", 16)
	owner, _ := NewUsername(EngineMySQL, "acme_app")
	db, _ := NewDatabaseName(EngineMySQL, "acme")
	privs, _ := ParsePrivileges(EngineMySQL, []string{"SELECT", "INSERT"})
	open := LedgerOpenLogin(claim, owner, db, from, privs).SQL()
	for _, want := range []string{"INSERT INTO `tenantdb_claim_ledger`.`claims`", "'" + claim.String() + "', 'login', 'acme_app', '%', 'acme', '" + from + "', 'open'", "CURRENT_USER()"} {
		if !strings.Contains(open, want) {
			t.Errorf("open row %q lacks %q", open, want)
		}
	}
	if got := LedgerOpenLogin(claim, owner, db, "x'); DROP DATABASE acme; --", privs).SQL(); strings.Contains(got, "DROP") {
		t.Errorf("a from that is no claim mark reached the statement: %q", got)
	}
	if got := LedgerSetStatus(claim, LedgerDone).SQL(); got != "UPDATE `tenantdb_claim_ledger`.`claims` SET status = 'done' WHERE claim = '"+claim.String()+"'" {
		t.Errorf("LedgerSetStatus = %q", got)
	}
	for _, c := range []struct {
		row  LedgerRow
		ok   bool
		done bool
	}{
		{LedgerRow{Claim: claim.String(), Database: "acme", Status: LedgerDone}, true, true},
		{LedgerRow{Claim: claim.String(), Database: "acme", From: from, Status: LedgerOpen}, true, false},
		{LedgerRow{Claim: "tenantdb:zz", Database: "acme", Status: LedgerDone}, false, false},
		{LedgerRow{Claim: claim.String(), Database: "acme", From: "12345", Status: LedgerOpen}, false, false},
		{LedgerRow{Claim: claim.String(), Database: LedgerDatabase, Status: LedgerDone}, false, false},
	} {
		m, ok := c.row.OwnerMark(EngineMySQL)
		if ok != c.ok || (ok && (m.Finished != c.done || m.Database != db || m.FromRole != c.row.From)) {
			t.Errorf("OwnerMark(%+v) = %+v, %v; want ok %v done %v", c.row, m, ok, c.ok, c.done)
		}
	}
	for attr, want := range map[string]string{
		`{"tenantdb": "` + claim.String() + `", "tenantdb_status": "open"}`: claim.String(),
		`{"tenantdb": "tenantdb:short"}`:                                    "",
		`not json`:                                                          "",
		``:                                                                  "",
	} {
		if got := MySQLAttributeClaim(attr); got != want {
			t.Errorf("MySQLAttributeClaim(%q) = %q, want %q", attr, got, want)
		}
	}
}
