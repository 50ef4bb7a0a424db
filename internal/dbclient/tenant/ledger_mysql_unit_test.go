// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
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
		tr       proof.LoginTrace
		wantV    string
		wantHint bool
	}{
		{"done row, ATTRIBUTE rewritten, limit mark kept", []ddl.LedgerRow{done}, other, proof.LoginTrace{Attr: attr(other), Limit: mark}, claim, false},
		{"done row, ATTRIBUTE agrees", []ddl.LedgerRow{done}, claim, proof.LoginTrace{Attr: attr(claim), Limit: 0}, claim, false},
		{"done row, neither: re-created by hand", []ddl.LedgerRow{done}, "@1700000000", proof.LoginTrace{}, "@1700000000", false},
		{"done row, another database's limit mark", []ddl.LedgerRow{done}, other, proof.LoginTrace{Attr: attr(other), Limit: mark + 1}, other, true},
		{"open row, ATTRIBUTE agrees", []ddl.LedgerRow{open}, claim, proof.LoginTrace{Attr: attr(claim), Limit: mark}, claim, false},
		{"open row, ATTRIBUTE of another claim", []ddl.LedgerRow{open}, other, proof.LoginTrace{Attr: attr(other), Limit: mark}, other, true},
		{"open row, no ATTRIBUTE", []ddl.LedgerRow{open}, "@1700000000", proof.LoginTrace{Attr: "", Limit: mark}, "@1700000000", false},
		{"no row: an earlier version's login", nil, claim, proof.LoginTrace{Attr: attr(claim), Limit: mark}, claim, true},
		{"no row, no ATTRIBUTE: a principal", nil, "@1700000000", proof.LoginTrace{}, "@1700000000", false},
	} {
		v, hint := proof.LoginValueOf(c.rows, c.catalog, c.tr)
		if v != c.wantV || hint != c.wantHint {
			t.Errorf("%s: loginValueOf = %q, %v; want %q, %v", c.name, v, hint, c.wantV, c.wantHint)
		}
	}
	// A stale open row (killed before its CREATE USER) stays behind an
	// older proven one.
	stale := []ddl.LedgerRow{{Claim: other, Database: "acme", Status: ddl.LedgerOpen}, done}
	if v, hint := proof.LoginValueOf(stale, claim, proof.LoginTrace{Attr: attr(claim), Limit: mark}); v != claim || hint {
		t.Errorf("a stale open row shadows the done one: %q, %v", v, hint)
	}
	for _, c := range []struct {
		v    proof.Verdict
		hint bool
		want proof.Verdict
	}{
		{proof.Replaced, true, proof.Unproven}, {proof.Replaced, false, proof.Replaced}, {proof.Same, true, proof.Same}, {proof.OtherServer, true, proof.OtherServer},
	} {
		if got := proof.HintedVerdict(c.v, c.hint); got != c.want {
			t.Errorf("HintedVerdict(%v, %v) = %v, want %v", c.v, c.hint, got, c.want)
		}
	}
}

// What proves a MariaDB login (no ATTRIBUTE): a done or an open ledger
// row, corroborated by the owner limit mark of the row's database; and the
// row, not the mark, says which database (t07436 and t26322 share a mark).
func TestLedgerProofMariaDB(t *testing.T) {
	claim := "tenantdb:" + strings.Repeat("ab", 16)
	t07436, _ := ddl.NewDatabaseName(ddl.EngineMySQL, "t07436")
	t26322, _ := ddl.NewDatabaseName(ddl.EngineMySQL, "t26322")
	if ddl.OwnerLimitMark(t07436) != ddl.OwnerLimitMark(t26322) || ddl.OwnerLimitMark(t07436) != 4131154851 {
		t.Fatalf("the colliding names no longer collide: %d, %d", ddl.OwnerLimitMark(t07436), ddl.OwnerLimitMark(t26322))
	}
	mark := ddl.OwnerLimitMark(t07436)
	row := func(status string) ddl.LedgerRow {
		return ddl.LedgerRow{Claim: claim, Database: "t07436", Status: status}
	}
	for _, c := range []struct {
		name string
		row  ddl.LedgerRow
		tr   proof.LoginTrace
		want bool
	}{
		{"done row, limit mark", row(ddl.LedgerDone), proof.LoginTrace{Limit: mark, NoAttribute: true}, true},
		{"open row, limit mark: a create killed after its CREATE USER", row(ddl.LedgerOpen), proof.LoginTrace{Limit: mark, NoAttribute: true}, true},
		{"open row, no limit mark: made by hand after a kill before CREATE USER", row(ddl.LedgerOpen), proof.LoginTrace{NoAttribute: true}, false},
		{"done row, limit reset by a DBA", row(ddl.LedgerDone), proof.LoginTrace{Limit: 10, NoAttribute: true}, false},
		{"void row", row(ddl.LedgerVoid), proof.LoginTrace{Limit: mark, NoAttribute: true}, false},
		{"open row on MySQL needs the ATTRIBUTE", row(ddl.LedgerOpen), proof.LoginTrace{Limit: mark}, false},
	} {
		if got := proof.ProvenRow(c.row, c.tr); got != c.want {
			t.Errorf("%s: provenRow = %v, want %v", c.name, got, c.want)
		}
	}
	r, ok := proof.ProvenOf([]ddl.LedgerRow{row(ddl.LedgerDone)}, proof.LoginTrace{Limit: mark, NoAttribute: true})
	if !ok || r.Database != t07436.String() || r.Database == t26322.String() {
		t.Errorf("the proven row names %q, want t07436 (never t26322)", r.Database)
	}
	for _, c := range []struct {
		limit          uint64
		db             ddl.DatabaseName
		ownsDB, marked bool
	}{
		{mark, t26322, true, true}, {mark, t07436, true, true}, {0, t07436, false, false}, {mark + 1, t07436, false, true},
	} {
		if o, m, _ := proof.LimitMarks(c.limit, c.db); o != c.ownsDB || m != c.marked {
			t.Errorf("limitMarks(%d, %s) = %v, %v; want %v, %v", c.limit, c.db, o, m, c.ownsDB, c.marked)
		}
	}
}
