// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What proves a MySQL login (ledger_mysql.go): a done ledger row whatever
// the ATTRIBUTE says; an open one only with the ATTRIBUTE naming its
// claim; without a row, the ATTRIBUTE's claim is a hint, and a hint never
// proves another login (HintedVerdict).
func TestLedgerProof(t *testing.T) {
	claim := "tenantdb:" + strings.Repeat("ab", 16)
	other := "tenantdb:" + strings.Repeat("ff", 16)
	attr := func(c string) string { return `{"tenantdb": "` + c + `"}` }
	for _, c := range []struct {
		name     string
		row      ddl.LedgerRow
		hasRow   bool
		catalog  string
		attr     string
		wantV    string
		wantHint bool
	}{
		{"done row, ATTRIBUTE rewritten", ddl.LedgerRow{Claim: claim, Status: ddl.LedgerDone}, true, other, attr(other), claim, false},
		{"open row, ATTRIBUTE agrees", ddl.LedgerRow{Claim: claim, Status: ddl.LedgerOpen}, true, claim, attr(claim), claim, false},
		{"open row, ATTRIBUTE of another claim", ddl.LedgerRow{Claim: claim, Status: ddl.LedgerOpen}, true, other, attr(other), other, true},
		{"open row, no ATTRIBUTE", ddl.LedgerRow{Claim: claim, Status: ddl.LedgerOpen}, true, "@1700000000", "", "@1700000000", false},
		{"no row: an earlier version's login", ddl.LedgerRow{}, false, claim, attr(claim), claim, true},
		{"no row, no ATTRIBUTE: a principal", ddl.LedgerRow{}, false, "@1700000000", "", "@1700000000", false},
	} {
		var rows []ddl.LedgerRow
		if c.hasRow {
			rows = []ddl.LedgerRow{c.row}
		}
		v, hint := loginValueOf(rows, c.catalog, c.attr)
		if v != c.wantV || hint != c.wantHint {
			t.Errorf("%s: loginValueOf = %q, %v; want %q, %v", c.name, v, hint, c.wantV, c.wantHint)
		}
	}
	// A stale open row (killed before its CREATE USER) stays behind an
	// older proven one.
	stale := []ddl.LedgerRow{{Claim: other, Status: ddl.LedgerOpen}, {Claim: claim, Status: ddl.LedgerDone}}
	if v, hint := loginValueOf(stale, claim, attr(claim)); v != claim || hint {
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
