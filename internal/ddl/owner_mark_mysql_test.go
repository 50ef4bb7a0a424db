// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// TestMySQLOwnerMark: on MySQL 8.0.21+ the owner plan's CREATE USER
// carries the open mark in its ATTRIBUTE and an ALTER USER marking it done
// ends the plan; the mark reads back as itself; earlier versions' claim-only
// attributes and other JSON are no mark; MariaDB and MySQL before 8.0.21
// keep the plan as it is.
func TestMySQLOwnerMark(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EngineMySQL, "acme_1")
	owner, _ := NewUsername(EngineMySQL, "acme_app")
	pw, _ := NewPassword("pw")
	all := PrivilegeSet{all: true}
	from := NewClaimMark().String()
	my := NewDialect(ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}})
	for _, want := range []OwnerMark{{Database: db}, {Database: db, FromRole: from}} {
		claim := NewClaimMark()
		p := MarkOwnerPlan(my, CreateMarkedOwner(my, db, owner, pw, all, claim), owner, want)
		create, last := p.Statements[0].String(), p.Statements[len(p.Statements)-1].SQL()
		attr := create[strings.Index(create, " ATTRIBUTE '")+len(" ATTRIBUTE '") : len(create)-1]
		got, ok := ParseMySQLOwnerMark(attr)
		if !ok || got != want || !strings.Contains(attr, claim.String()) {
			t.Errorf("CREATE USER's mark %q reads %+v, %v; want %+v with claim %s", attr, got, ok, want, claim)
		}
		if last != `ALTER USER 'acme_app'@'%' ATTRIBUTE '{"tenantdb_status": "done"}'` {
			t.Errorf("the plan does not end with the done mark: %s", last)
		}
		if len(p.Statements) != 3 || p.Statements[0].SQL() == create {
			t.Errorf("plan: want CREATE USER (with its secret, redacted in its text), GRANT, done mark:\n%s", p)
		}
	}
	for attr, want := range map[string]OwnerMark{
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "acme_1", "tenantdb_status": "done"}`:              {Database: db, Finished: true},
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "acme_1"}`:                                         {Database: db, Finished: true},
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "acme_1", "tenantdb_status": "open", "team": "x"}`: {Database: db},
	} {
		if got, ok := ParseMySQLOwnerMark(attr); !ok || got != want {
			t.Errorf("ParseMySQLOwnerMark(%s) = %+v, %v; want %+v", attr, got, ok, want)
		}
	}
	for _, attr := range []string{"", "{}", `{"team": "x"}`,
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef"}`, // an earlier version's: claim only
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "acme_1", "tenantdb_status": "half"}`,
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "acme_1", "tenantdb_from": "16384"}`,
		`{"tenantdb": "tenantdb:0123456789abcdef0123456789abcdef", "tenantdb_db": "a b"}`,
		`{"tenantdb": "x", "tenantdb_db": "acme_1"}`} {
		if got, ok := ParseMySQLOwnerMark(attr); ok {
			t.Errorf("ParseMySQLOwnerMark(%s) = %+v: accepted what is not a mark", attr, got)
		}
	}
	for _, info := range []ServerInfo{{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}}, {Flavor: FlavorMySQL, Version: Version{8, 0, 20}}} {
		d := NewDialect(info)
		plain := CreateMarkedOwner(d, db, owner, pw, all, NewClaimMark())
		if got := MarkOwnerPlan(d, plain, owner, OwnerMark{Database: db}); got.String() != plain.String() {
			t.Errorf("MarkOwnerPlan changed a %v %v plan:\n%s", info.Flavor, info.Version, got)
		}
	}
}
