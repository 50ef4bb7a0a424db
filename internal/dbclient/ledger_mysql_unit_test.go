// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What proves a MySQL login (ledger_mysql.go): a done ledger row with the
// ATTRIBUTE naming its claim or the login carrying its database's owner
// limit mark; an open one only with the ATTRIBUTE naming its claim;
// without a row, the ATTRIBUTE's claim is a hint, and a hint never proves
// another login (HintedVerdict).
func TestLedgerProof(t *testing.T) {
	claim := "tenantdb:" + strings.Repeat("ab", 16)
	other := "tenantdb:" + strings.Repeat("ff", 16)
	attr := func(c string) string { return `{"tenantdb": "` + c + `"}` }
	acme, _ := ddl.NewDatabaseName(ddl.EngineMySQL, "acme")
	mark := ddl.OwnerLimitMark(acme)
	done := ddl.LedgerRow{Claim: claim, Database: "acme", Status: ddl.LedgerDone}
	open := ddl.LedgerRow{Claim: claim, Database: "acme", Status: ddl.LedgerOpen}
	for _, c := range []struct {
		name     string
		rows     []ddl.LedgerRow
		catalog  string
		tr       loginTrace
		wantV    string
		wantHint bool
	}{
		{"done row, ATTRIBUTE rewritten, limit mark kept", []ddl.LedgerRow{done}, other, loginTrace{attr(other), mark}, claim, false},
		{"done row, ATTRIBUTE agrees", []ddl.LedgerRow{done}, claim, loginTrace{attr(claim), 0}, claim, false},
		{"done row, neither: re-created by hand", []ddl.LedgerRow{done}, "@1700000000", loginTrace{"", 0}, "@1700000000", false},
		{"done row, another database's limit mark", []ddl.LedgerRow{done}, other, loginTrace{attr(other), mark + 1}, other, true},
		{"open row, ATTRIBUTE agrees", []ddl.LedgerRow{open}, claim, loginTrace{attr(claim), mark}, claim, false},
		{"open row, ATTRIBUTE of another claim", []ddl.LedgerRow{open}, other, loginTrace{attr(other), mark}, other, true},
		{"open row, no ATTRIBUTE", []ddl.LedgerRow{open}, "@1700000000", loginTrace{"", mark}, "@1700000000", false},
		{"no row: an earlier version's login", nil, claim, loginTrace{attr(claim), mark}, claim, true},
		{"no row, no ATTRIBUTE: a principal", nil, "@1700000000", loginTrace{}, "@1700000000", false},
	} {
		v, hint := loginValueOf(c.rows, c.catalog, c.tr)
		if v != c.wantV || hint != c.wantHint {
			t.Errorf("%s: loginValueOf = %q, %v; want %q, %v", c.name, v, hint, c.wantV, c.wantHint)
		}
	}
	// A stale open row (killed before its CREATE USER) stays behind an
	// older proven one.
	stale := []ddl.LedgerRow{{Claim: other, Database: "acme", Status: ddl.LedgerOpen}, done}
	if v, hint := loginValueOf(stale, claim, loginTrace{attr(claim), mark}); v != claim || hint {
		t.Errorf("a stale open row shadows the done one: %q, %v", v, hint)
	}
	for _, c := range []struct {
		v    Verdict
		hint bool
		want Verdict
	}{
		{Replaced, true, Unproven}, {Replaced, false, Replaced}, {Same, true, Same}, {OtherServer, true, OtherServer},
	} {
		if got := HintedVerdict(c.v, c.hint); got != c.want {
			t.Errorf("HintedVerdict(%v, %v) = %v, want %v", c.v, c.hint, got, c.want)
		}
	}
}
