// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"slices"
	"strings"
	"testing"
)

func TestMySQLAdminRights(t *testing.T) {
	t.Parallel()
	admin := AdminAccount{User: "tenantdb_admin", Host: "%"}
	// What the documented grants give, read back as MariaDB prints them.
	lines := []string{
		"GRANT CREATE, DROP, CREATE USER ON *.* TO `tenantdb_admin`@`%` IDENTIFIED BY PASSWORD '*ABCDEF'",
		"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE TEMPORARY TABLES, LOCK TABLES, EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EVENT, TRIGGER, DELETE HISTORY ON *.* TO `tenantdb_admin`@`%` WITH GRANT OPTION",
		"GRANT ALL PRIVILEGES ON `other`.* TO `tenantdb_admin`@`%`",
	}
	var held MySQLHeldRights
	for _, l := range lines {
		held.ParseMySQLGrantLine(mariadb, l)
	}
	if m := MissingMySQLAdminRights(mariadb, admin, held); len(m) != 0 {
		t.Fatalf("documented grants reported missing: %+v", m)
	}
	for _, h := range held.Global {
		if strings.Contains(string(h), "ABCDEF") {
			t.Fatal("password hash kept")
		}
	}

	var weak MySQLHeldRights
	weak.ParseMySQLGrantLine(mariadb, "GRANT CREATE, DROP ON *.* TO `weak`@`%`")
	missing := MissingMySQLAdminRights(mariadb, admin, weak)
	err := MissingAdminRightsError("main", admin, missing)
	if ReasonOf(err) != MissingAdminRights {
		t.Fatalf("err = %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"global CREATE USER", "GRANT OPTION", "GRANT CREATE, DROP, CREATE USER ON *.* TO 'tenantdb_admin'@'%'", "WITH GRANT OPTION"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}

	var root MySQLHeldRights
	root.ParseMySQLGrantLine(mysql80, "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION")
	if m := MissingMySQLAdminRights(mysql80, admin, root); len(m) != 0 {
		t.Errorf("ALL PRIVILEGES WITH GRANT OPTION reported missing: %+v", m)
	}
}

func TestPostgresAdminRights(t *testing.T) {
	t.Parallel()
	admin := AdminAccount{User: "tenantdb_admin"}
	if m := MissingPostgresAdminRights(admin, PostgresHeldRights{CreateDB: true, CreateRole: true}); len(m) != 0 {
		t.Errorf("minimal rights reported missing: %+v", m)
	}
	if m := MissingPostgresAdminRights(admin, PostgresHeldRights{Superuser: true}); len(m) != 0 {
		t.Errorf("superuser reported missing: %+v", m)
	}
	m := MissingPostgresAdminRights(admin, PostgresHeldRights{CreateDB: true})
	err := MissingAdminRightsError("pg", admin, m)
	if ReasonOf(err) != MissingAdminRights || !strings.Contains(err.Error(), `ALTER ROLE "tenantdb_admin" CREATEDB CREATEROLE`) || !strings.Contains(err.Error(), "CREATEROLE") {
		t.Errorf("err = %v", err)
	}
	if MissingAdminRightsError("pg", admin, nil) != nil {
		t.Error("no missing rights must be no error")
	}
}

// TestAdminExcess: a superuser, SUPER or ALL on *.* is reported with the
// statements that narrow the login; the documented minimal rights are not.
func TestAdminExcess(t *testing.T) {
	t.Parallel()
	admin := AdminAccount{User: "adm", Host: "%"}
	parse := func(info ServerInfo, lines ...string) MySQLHeldRights {
		var h MySQLHeldRights
		for _, l := range lines {
			h.ParseMySQLGrantLine(info, l)
		}
		return h
	}
	cases := []struct {
		name       string
		got        AdminExcess
		wantRights []string
		wantNarrow []string
	}{
		{"pg minimal", ExcessPostgresAdminRights(admin, PostgresHeldRights{CreateDB: true, CreateRole: true}), nil, nil},
		{"pg superuser", ExcessPostgresAdminRights(admin, PostgresHeldRights{Superuser: true}),
			[]string{"SUPERUSER"}, []string{`ALTER ROLE "adm" NOSUPERUSER CREATEDB CREATEROLE`}},
		{"mariadb minimal", ExcessMySQLAdminRights(mariadb, admin, parse(mariadb,
			"GRANT CREATE, DROP, CREATE USER ON *.* TO `adm`@`%`",
			"GRANT SELECT, INSERT ON *.* TO `adm`@`%` WITH GRANT OPTION")), nil, nil},
		{"mariadb all", ExcessMySQLAdminRights(mariadb, admin, parse(mariadb,
			"GRANT ALL PRIVILEGES ON *.* TO `adm`@`%` IDENTIFIED BY PASSWORD '*AB' WITH GRANT OPTION")),
			[]string{"ALL PRIVILEGES ON *.*"},
			append([]string{"REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'adm'@'%'"}, MySQLAdminGrants(mariadb, admin)...)},
		{"mysql super", ExcessMySQLAdminRights(mysql80, admin, parse(mysql80,
			"GRANT CREATE, DROP, SUPER, CREATE USER ON *.* TO `adm`@`%`")),
			[]string{"SUPER ON *.*"}, []string{"REVOKE SUPER ON *.* FROM 'adm'@'%'"}},
		{"mariadb all as a list", ExcessMySQLAdminRights(mariadb, admin, parse(mariadb,
			"GRANT SELECT, INSERT, RELOAD, SHUTDOWN, PROCESS, FILE, SUPER ON *.* TO `adm`@`%` WITH GRANT OPTION",
			"GRANT USAGE ON *.* TO `adm`@`%`")),
			[]string{"RELOAD, SHUTDOWN, PROCESS, FILE, SUPER ON *.*"}, []string{"REVOKE RELOAD, SHUTDOWN, PROCESS, FILE, SUPER ON *.* FROM 'adm'@'%'"}},
		{"mysql dynamic privileges", ExcessMySQLAdminRights(mysql80, admin, parse(mysql80,
			"GRANT CREATE, DROP, CREATE USER ON *.* TO `adm`@`%`",
			"GRANT SYSTEM_VARIABLES_ADMIN,ROLE_ADMIN ON *.* TO `adm`@`%`")),
			[]string{"SYSTEM_VARIABLES_ADMIN, ROLE_ADMIN ON *.*"}, []string{"REVOKE SYSTEM_VARIABLES_ADMIN, ROLE_ADMIN ON *.* FROM 'adm'@'%'"}},
		{"all on one database is not excess", ExcessMySQLAdminRights(mariadb, admin, parse(mariadb,
			"GRANT ALL PRIVILEGES ON `other`.* TO `adm`@`%`")), nil, nil},
	}
	for _, c := range cases {
		if !slices.Equal(c.got.Rights, c.wantRights) || !slices.Equal(c.got.Narrow, c.wantNarrow) {
			t.Errorf("%s: got %+v, want rights %q narrow %q", c.name, c.got, c.wantRights, c.wantNarrow)
		}
		if c.got.Empty() != (len(c.wantRights) == 0) {
			t.Errorf("%s: Empty() = %v", c.name, c.got.Empty())
		}
		if !c.got.Empty() {
			d := c.got.Detail(admin)
			for _, want := range append([]string{`"adm"`}, c.wantNarrow...) {
				if !strings.Contains(d, want) {
					t.Errorf("%s: detail lacks %q:\n%s", c.name, want, d)
				}
			}
			if strings.Contains(d, "*AB") {
				t.Errorf("%s: detail carries the password hash", c.name)
			}
		}
	}
}
