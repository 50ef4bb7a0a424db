// SPDX-License-Identifier: MPL-2.0

package ddl

import (
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
