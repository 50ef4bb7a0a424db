// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	mysql80   = ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 36}}
	mysql8013 = ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 13}}
	// MySQL 9.7 with partial_revokes = ON: database names in GRANT are literal.
	mysqlPartialRevokes = ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}, PartialRevokes: true}
	mariadb             = ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}}
	mariadb114          = ServerInfo{Flavor: FlavorMariaDB, Version: Version{11, 4, 2}}
	pg15                = ServerInfo{Flavor: FlavorPostgres, Version: Version{15, 18, 0}}
)

func TestParsePrivileges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine Engine
		in     []string
		want   []string
		reason Reason
	}{
		{EngineMySQL, []string{"ALL PRIVILEGES"}, []string{"ALL PRIVILEGES"}, ""},
		{EngineMySQL, []string{"all  privileges"}, []string{"ALL PRIVILEGES"}, ""},
		{EngineMySQL, []string{"select", "Delete", "SELECT"}, []string{"DELETE", "SELECT"}, ""},
		{EngineMySQL, []string{"lock tables", "show view"}, []string{"LOCK TABLES", "SHOW VIEW"}, ""},
		{EngineMySQL, []string{"ALL PRIVILEGES", "SELECT"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"GRANT OPTION"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"SUPER"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"ALL"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"CREATE USER"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"SELECT; DROP TABLE x"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{"TRUNCATE"}, nil, PrivilegeNotAllowed},
		{EngineMySQL, []string{}, nil, PrivilegeNotAllowed},
		{EnginePostgres, []string{"truncate", "temporary"}, []string{"TEMPORARY", "TRUNCATE"}, ""},
		{EnginePostgres, []string{"EVENT"}, nil, PrivilegeNotAllowed},
		{EnginePostgres, []string{"CONNECT"}, nil, PrivilegeNotAllowed},
	}
	for _, c := range cases {
		got, err := ParsePrivileges(c.engine, c.in)
		if ReasonOf(err) != c.reason {
			t.Errorf("ParsePrivileges(%s, %q) err = %v, want %q", c.engine, c.in, err, c.reason)
			continue
		}
		if err == nil {
			if d := cmp.Diff(c.want, got.Names()); d != "" {
				t.Errorf("ParsePrivileges(%q) (-want +got):\n%s", c.in, d)
			}
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	all, _ := ParsePrivileges(EngineMySQL, []string{"ALL PRIVILEGES"})
	sel, _ := ParsePrivileges(EngineMySQL, []string{"SELECT", "DELETE"})
	cases := []struct {
		name    string
		info    ServerInfo
		desired PrivilegeSet
		actual  []Privilege
		want    PrivilegeDiff
	}{
		{"fresh all", mysql80, all, nil, PrivilegeDiff{Grant: []Privilege{AllPrivileges}}},
		{"all already held mysql", mysql80, all, Catalog(mysql80), PrivilegeDiff{}},
		{"mysql's all is not mariadb's all", mariadb, all, Catalog(mysql80), PrivilegeDiff{Grant: []Privilege{AllPrivileges}}},
		{"narrow all to select", mariadb, sel, Catalog(mariadb), PrivilegeDiff{Revoke: minus(Catalog(mariadb), []Privilege{"DELETE", "SELECT"})}},
		{"widen", mysql80, sel, []Privilege{"SELECT"}, PrivilegeDiff{Grant: []Privilege{"DELETE"}}},
		{"swap", mysql80, sel, []Privilege{"SELECT", "INSERT"}, PrivilegeDiff{Grant: []Privilege{"DELETE"}, Revoke: []Privilege{"INSERT"}}},
		{"grant option is surplus", mysql80, sel, []Privilege{"SELECT", "DELETE", GrantOption}, PrivilegeDiff{Revoke: []Privilege{GrantOption}}},
		{"unknown actual ignored", mysql80, sel, []Privilege{"SELECT", "DELETE", "MAINTAIN"}, PrivilegeDiff{}},
	}
	for _, c := range cases {
		got := Diff(c.info, c.desired, c.actual)
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	if !FromActual(mariadb, Catalog(mariadb)).IsAll() || FromActual(mariadb, Catalog(mysql80)).IsAll() {
		t.Error("FromActual does not compare sets per flavor")
	}
	if !all.Equal(mysql80, Catalog(mysql80)) || all.Equal(mariadb, Catalog(mysql80)) {
		t.Error("Equal does not compare sets per flavor")
	}
}

func TestCatalogFlavors(t *testing.T) {
	t.Parallel()
	has := func(info ServerInfo, p Privilege) bool {
		for _, c := range Catalog(info) {
			if c == p {
				return true
			}
		}
		return false
	}
	if has(mysql80, "DELETE HISTORY") || !has(mariadb, "DELETE HISTORY") {
		t.Error("DELETE HISTORY is MariaDB-only")
	}
	if has(mariadb, "SHOW CREATE ROUTINE") || !has(ServerInfo{Flavor: FlavorMariaDB, Version: Version{11, 4, 0}}, "SHOW CREATE ROUTINE") {
		t.Error("SHOW CREATE ROUTINE is MariaDB 11.3+")
	}
	if len(Catalog(pg15)) != 9 {
		t.Errorf("postgres catalog = %v", Catalog(pg15))
	}
}

// TestCheckPrivilegesAnyEngine: before the engine is known, a name on
// neither list is reported against both lists, never as "not on the mysql
// allowlist" to a PostgreSQL user.
func TestCheckPrivilegesAnyEngine(t *testing.T) {
	t.Parallel()
	for _, ok := range [][]string{{"SELECT"}, {"TRUNCATE"}, {"show view"}, {"ALL PRIVILEGES"}} {
		if err := CheckPrivilegesAnyEngine(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	err := CheckPrivilegesAnyEngine([]string{"SELECT", "SUPER"})
	if ReasonOf(err) != PrivilegeNotAllowed {
		t.Fatalf("SUPER: %v, want PrivilegeNotAllowed", err)
	}
	msg := err.Error()
	for _, want := range []string{"neither engine", "MySQL/MariaDB: ", "PostgreSQL: ", "TRUNCATE", "SHOW VIEW"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "mysql allowlist") {
		t.Errorf("message names one engine's list: %s", msg)
	}
}
