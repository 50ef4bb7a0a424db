// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// TestConnectionLimit: the configured range, how each engine stores "none",
// and the one statement that sets a login's limit (its host's account on
// MySQL/MariaDB), never touching the owner mark's field.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{-1, 0, MaxConnectionLimit + 1} {
		if _, err := NewConnectionLimit(n); err == nil {
			t.Errorf("NewConnectionLimit(%d) accepted", n)
		}
	}
	pg := ServerInfo{Flavor: FlavorPostgres, Version: Version{15, 0, 0}}
	my := ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}}
	maria := ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 0}}
	pgUser, _ := NewUsername(EnginePostgres, "Acme.app$1")
	myUser, _ := NewUsername(EngineMySQL, "acme-app_1")
	host, _ := NewAccountHost("10.20.%")
	two, _ := NewConnectionLimit(2)
	max, _ := NewConnectionLimit(MaxConnectionLimit)
	for _, c := range []struct {
		info  ServerInfo
		user  Username
		limit ConnectionLimit
		want  string
	}{
		{pg, pgUser, two, `ALTER ROLE "Acme.app$1" CONNECTION LIMIT 2`},
		{pg, pgUser, max, `ALTER ROLE "Acme.app$1" CONNECTION LIMIT 2147483647`},
		{pg, pgUser, ConnectionLimit{}, `ALTER ROLE "Acme.app$1" CONNECTION LIMIT -1`},
		{my, myUser, two, `ALTER USER 'acme-app_1'@'%' WITH MAX_USER_CONNECTIONS 2`},
		{my, myUser.WithHost(host), two, `ALTER USER 'acme-app_1'@'10.20.%' WITH MAX_USER_CONNECTIONS 2`},
		{maria, myUser, ConnectionLimit{}, `ALTER USER 'acme-app_1'@'%' WITH MAX_USER_CONNECTIONS 0`},
	} {
		p := SetConnectionLimit(c.info, c.user, c.limit)
		if len(p.Statements) != 1 || p.Statements[0].String() != c.want {
			t.Errorf("%s %s limit %d:\n%s\nwant %s", c.info.Flavor, c.user.Account(), c.limit.Value(), p, c.want)
		}
		if s := p.String(); strings.Contains(s, "MAX_UPDATES") || strings.Contains(s, "COMMENT") {
			t.Errorf("the limit touches a mark's field: %s", s)
		}
	}
	for _, c := range []struct {
		info ServerInfo
		raw  int64
		n    int64
		ok   bool
	}{
		{pg, -1, -1, false}, {pg, 0, 0, true}, {pg, 5, 5, true},
		{my, 0, 0, false}, {my, 5, 5, true}, {maria, 0, 0, false}, {maria, 7, 7, true},
	} {
		if n, ok := ConnectionLimitFromServer(c.info, c.raw); n != c.n || ok != c.ok {
			t.Errorf("%s stored %d: read %d, %v; want %d, %v", c.info.Flavor, c.raw, n, ok, c.n, c.ok)
		}
	}
	// Carried by a create: after its statements, in its transaction, with its undo; none adds nothing.
	db, _ := NewDatabaseName(EnginePostgres, "acme_1")
	pw, _ := NewPassword("pw")
	create := InOneTransaction(NewDialect(pg), NewDialect(pg).CreateOwner(db, pgUser, pw, PrivilegeSet{all: true}))
	got := WithConnectionLimit(pg, create, pgUser, two)
	if len(got.Statements) != len(create.Statements)+1 || got.Statements[len(got.Statements)-1].String() != `ALTER ROLE "Acme.app$1" CONNECTION LIMIT 2` ||
		got.Transaction != create.Transaction || len(got.Undo) != len(create.Undo) {
		t.Errorf("create with a limit:\n%s", got)
	}
	if none := WithConnectionLimit(pg, create, pgUser, ConnectionLimit{}); none.String() != create.String() {
		t.Errorf("no limit changed the create:\n%s", none)
	}
}
