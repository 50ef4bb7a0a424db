// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// The plans issue 34 puts in one transaction can be one on PostgreSQL (at
// most one tenant database, no CREATE/DROP DATABASE), each statement stays
// one statement, and nothing else is marked.
func TestInOneTransaction(t *testing.T) {
	t.Parallel()
	pg := NewDialect(ServerInfo{Flavor: FlavorPostgres, Version: Version{15, 0, 0}})
	maria := NewDialect(ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}})
	db := must(NewDatabaseName(EnginePostgres, "acme_1"))
	other := must(NewDatabaseName(EnginePostgres, "acme_2"))
	owner := must(NewUsername(EnginePostgres, "acme_app"))
	newOwner := must(NewUsername(EnginePostgres, "acme_app_v2"))
	grantee := must(NewUsername(EnginePostgres, "reader"))
	pw := must(NewPassword("pw"))
	all := PrivilegeSet{all: true}
	mark := OwnerMark{Database: db, DBIdentity: "pg:1:2"}
	defaults := must(NewDefaultACLs([]DefaultACLRow{{ObjType: 'r', Grantee: "reader", Privilege: "SELECT"}}))
	handover, drop := RotateOwner(pg, db, owner, newOwner, pw, all, ClaimMark{}, true, defaults, OwnedContainers{})
	handover = FinishOwnerMark(pg, MarkOwnerLogin(pg, handover, newOwner, mark), newOwner, mark)
	create := FinishOwnerMark(pg, MarkOwnerLogin(pg, pg.CreateOwner(db, owner, pw, all), owner, mark), owner, mark)
	createWithDefaults := create.Append(CarryDefaultPrivileges(db, owner.Role(), defaults)).
		Append(ClearDefaultPrivileges(db, must(NewRoleName("admin")), defaults))
	grant := SyncGrant(pg, db, grantee, owner, publicScope, PrivilegeDiff{Grant: []Privilege{"SELECT"}})

	for _, c := range []struct {
		name   string
		d      Dialect
		plan   Plan
		want   bool
		inside string
	}{
		{"owner create, fresh database: the maintenance database", pg, create, true, ""},
		{"owner create with the admin's default privileges: inside the tenant database", pg, createWithDefaults, true, "acme_1"},
		{"rotation handover", pg, handover, true, "acme_1"},
		{"rotation's drop of the old login (not a caller's transaction, but could be)", pg, drop, true, "acme_1"},
		{"grant", pg, grant, true, "acme_1"},
		{"create database: never in a transaction", pg, pg.CreateDatabase(db, Charset{}, Collation{}), false, ""},
		{"drop database", pg, pg.DropDatabase(db), false, ""},
		{"two tenant databases", pg, grant.Append(SyncGrant(pg, other, grantee, owner, publicScope, PrivilegeDiff{Grant: []Privilege{"SELECT"}})), false, ""},
		{"MariaDB: DDL commits by itself", maria, maria.CreateOwner(db, owner, pw, all), false, ""},
		{"empty", pg, Plan{}, false, ""},
	} {
		got := InOneTransaction(c.d, c.plan)
		if got.Transaction != c.want {
			t.Errorf("%s: Transaction = %v, want %v:\n%s", c.name, got.Transaction, c.want, got)
			continue
		}
		if database, _ := got.TransactionDatabase(); c.want && database != c.inside {
			t.Errorf("%s: runs in %q, want %q", c.name, database, c.inside)
		}
		for _, st := range got.Statements {
			if strings.Contains(st.SQL(), ";") {
				t.Errorf("%s: %q is more than one statement", c.name, st)
			}
		}
		if got.Append(got).Transaction != c.want || got.Tail(1).Transaction != c.want {
			t.Errorf("%s: Append or Tail lost or invented the transaction", c.name)
		}
	}
	// One transaction needs no open mark: the done mark commits with the
	// login, and nothing sees the login before.
	marked := MarkOwnerPlan(pg, pg.CreateOwner(db, owner, pw, all), owner, mark)
	if n := strings.Count(marked.String(), "COMMENT ON ROLE"); !marked.Transaction || n != 1 ||
		!strings.Contains(marked.Statements[len(marked.Statements)-1].String(), "status=done") {
		t.Errorf("MarkOwnerPlan: want one transaction ending with the done mark and no other:\n%s", marked)
	}
	if got := MarkOwnerPlan(maria, maria.CreateOwner(db, owner, pw, all), owner, mark); got.String() != maria.CreateOwner(db, owner, pw, all).String() {
		t.Errorf("MarkOwnerPlan changed a MariaDB plan:\n%s", got)
	}
	if create.Append(CarryDefaultPrivileges(db, owner.Role(), defaults)).Transaction {
		t.Errorf("Append of an untransacted plan made a transaction")
	}
}
