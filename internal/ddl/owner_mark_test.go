// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// TestOwnerMark: a mark reads back as itself; other comments are not marks;
// only a PostgreSQL CREATE ROLE carries it, in the same query.
func TestOwnerMark(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EnginePostgres, "acme_1")
	for _, m := range []OwnerMark{
		{Database: db, DBIdentity: "pg:7390211239:16384"},
		{Database: db, DBIdentity: "pg:7390211239:16384", FromRole: "16390"},
		{Database: db, DBIdentity: "pg:7390211239:16384", Finished: true},
		{Database: db, DBIdentity: "pg:7390211239:16384", FromRole: "16390", Finished: true},
	} {
		got, ok := ParseOwnerMark(m.Text())
		if !ok || got != m {
			t.Errorf("ParseOwnerMark(%q) = %+v, %v", m.Text(), got, ok)
		}
	}
	// A mark written before the status existed reads as done: an owner an
	// earlier version made is never adopted by a create.
	for _, legacy := range []string{"tenantdb owner of acme_1 db=pg:1:2", "tenantdb owner of acme_1 db=pg:1:2 from=3"} {
		if got, ok := ParseOwnerMark(legacy); !ok || !got.Finished {
			t.Errorf("ParseOwnerMark(%q) = %+v, %v; want a finished mark", legacy, got, ok)
		}
	}
	for _, c := range []string{"", "owner of acme", "tenantdb owner of acme_1 db=pg:1:2 status=half", "tenantdb owner of acme_1", "tenantdb owner of acme_1 db=x from=abc",
		"tenantdb owner of acme_1 db=pg:1:2 from=3 and more", "tenantdb owner of a b db=pg:1:2"} {
		if _, ok := ParseOwnerMark(c); ok {
			t.Errorf("ParseOwnerMark(%q) accepted a comment that is not a mark", c)
		}
	}
	owner, _ := NewUsername(EnginePostgres, "acme_app")
	pw, _ := NewPassword("pw")
	mark := OwnerMark{Database: db, DBIdentity: "pg:1:2"}
	pg := NewDialect(ServerInfo{Flavor: FlavorPostgres, Version: Version{15, 0, 0}})
	p := MarkOwnerLogin(pg, pg.CreateOwner(db, owner, pw, PrivilegeSet{all: true}), owner, mark)
	// Each statement stays one statement: the mark is the next one, and
	// the plan is one transaction, so both commit or neither.
	first, second := p.Statements[0].String(), p.Statements[1].String()
	if !strings.HasPrefix(first, `CREATE ROLE "acme_app"`) || strings.Contains(first, ";") || !p.Statements[0].Claim ||
		second != `COMMENT ON ROLE "acme_app" IS 'tenantdb owner of acme_1 db=pg:1:2 status=open'` {
		t.Errorf("marked CREATE ROLE: %q, then %q", first, second)
	}
	if tx := InOneTransaction(pg, FinishOwnerMark(pg, p, owner, mark)); !tx.Transaction {
		t.Errorf("a marked owner create is not one transaction:\n%s", tx)
	}
	done := FinishOwnerMark(pg, p, owner, mark)
	if last := done.Statements[len(done.Statements)-1].String(); len(done.Statements) != len(p.Statements)+1 ||
		last != `COMMENT ON ROLE "acme_app" IS 'tenantdb owner of acme_1 db=pg:1:2 status=done'` {
		t.Errorf("finished plan ends with %q", last)
	}
	if p.Statements[len(p.Statements)-1].String() == done.Statements[len(done.Statements)-1].String() {
		t.Errorf("FinishOwnerMark changed the plan it was given")
	}
	my := NewDialect(ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}})
	plain := my.CreateOwner(db, owner, pw, PrivilegeSet{all: true})
	if got := MarkOwnerLogin(my, plain, owner, mark); got.String() != plain.String() {
		t.Errorf("MariaDB plan changed by a PostgreSQL mark:\n%s", got)
	}
	if got := FinishOwnerMark(my, plain, owner, mark); got.String() != plain.String() {
		t.Errorf("MariaDB plan changed by a finished PostgreSQL mark:\n%s", got)
	}
}
