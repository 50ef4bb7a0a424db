// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// MySQL's own behaviour, on a real MySQL 9.7 server (kind "mysql"; run with
// TENANTDB_TEST_ENGINES=mysql or make testacc-mysql). Tests that change
// server-wide settings use a server of their own (secondServer).

// TestAccMySQL_dualPasswords: retain_previous_password keeps the old
// password valid after a rotation (RETAIN CURRENT PASSWORD, seen by the
// server as mysql.user's additional_password), previous_password_retained
// says so, the next apply discards it (DISCARD OLD PASSWORD) and the plan
// after that is empty.
func TestAccMySQL_dualPasswords(t *testing.T) {
	s := testAccServerOnly(t, "mysql", "dual passwords (RETAIN CURRENT PASSWORD) are MySQL 8.0.14+; MariaDB ignores the option (TestAccTenantOwner_retainPreviousPasswordIgnoredOnMariaDB)")
	db, user := uniqueName("dual"), uniqueName("dual")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	addr := "tenantdb_tenant_owner.o"
	retained := func(want bool) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_password_retained"), knownvalue.Bool(want))
	}
	rotated := s.serverHCL("") + ownerHCL(db, user, "Dual-pw-2", 2, "retain_previous_password = true")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{
				Config:            s.serverHCL("") + ownerHCL(db, user, "Dual-pw-1", 1, "retain_previous_password = true"),
				ConfigStateChecks: []statecheck.StateCheck{retained(false)},
			},
			{
				Config:            rotated,
				ConfigStateChecks: []statecheck.StateCheck{retained(true)},
				// The discard is what the next plan holds.
				ExpectNonEmptyPlan: true,
				Check: s.check(func() error {
					if err := s.as(user, "Dual-pw-1", db, "SELECT 1"); err != nil {
						return fmt.Errorf("the retained old password does not work: %w", err)
					}
					if !s.hasAdditionalPassword(t, user) {
						return fmt.Errorf("mysql.user keeps no additional_password for %s", user)
					}
					return s.as(user, "Dual-pw-2", db, "SELECT 1")
				}),
			},
			{
				// The next apply discards the old password.
				Config:            rotated,
				ConfigStateChecks: []statecheck.StateCheck{retained(false)},
				Check: s.check(func() error {
					if err := s.as(user, "Dual-pw-1", db, "SELECT 1"); err == nil {
						return fmt.Errorf("the old password still works after the discard")
					}
					if s.hasAdditionalPassword(t, user) {
						return fmt.Errorf("mysql.user still keeps an additional_password for %s", user)
					}
					return s.as(user, "Dual-pw-2", db, "SELECT 1")
				}),
			},
			{Config: rotated, PlanOnly: true},
		},
	})
}

// hasAdditionalPassword: MySQL keeps a retained password in
// mysql.user.User_attributes as additional_password.
func (s accServer) hasAdditionalPassword(t *testing.T, user string) bool {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host = '%' AND JSON_CONTAINS_PATH(User_attributes, 'one', '$.additional_password')`
	if err := s.super(t, "").QueryRow(q, user).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestAccMySQL_cachingSha2AndNoNativePassword: an owner the provider makes
// authenticates with caching_sha2_password, MySQL 9's default, and logs in
// over verified TLS; mysql_native_password, removed in MySQL 9, is not
// there to fall back to (the server refuses a login made with it).
func TestAccMySQL_cachingSha2AndNoNativePassword(t *testing.T) {
	s := testAccServerOnly(t, "mysql", "MySQL 9's authentication plugins (caching_sha2_password, no mysql_native_password)")
	db, user := uniqueName("sha2"), uniqueName("sha2")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user, user+"n")
	})
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, user, "Sha2-pw-1", 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "owner")
	var plugin string
	if err := s.super(t, "").QueryRow(`SELECT plugin FROM mysql.user WHERE User = ? AND Host = '%'`, user).Scan(&plugin); err != nil {
		t.Fatal(err)
	}
	if plugin != "caching_sha2_password" {
		t.Fatalf("the owner authenticates with %q, want caching_sha2_password", plugin)
	}
	if err := s.as(user, "Sha2-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (id int PRIMARY KEY)"); err != nil {
		t.Fatalf("the owner cannot log in and work: %v", err)
	}
	_, err := s.super(t, "").Exec(fmt.Sprintf("CREATE USER '%sn'@'%%' IDENTIFIED WITH mysql_native_password BY 'Native-pw-1'", user))
	if err == nil || !strings.Contains(err.Error(), "mysql_native_password") {
		t.Fatalf("MySQL 9 made a mysql_native_password login (or failed otherwise): %v", err)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

// TestAccMySQL_escapedGrantRows: what MySQL keeps for a grant on a database
// whose name holds "_": one mysql.db row whose Db is the escaped pattern
// (name with "\_"), SHOW GRANTS printing that pattern, and no reach into a
// sibling the unescaped "_" would match.
func TestAccMySQL_escapedGrantRows(t *testing.T) {
	s := testAccServerOnly(t, "mysql", "the mysql.db rows and SHOW GRANTS lines as MySQL writes them (MariaDB's differ)")
	db, owner, reader := uniqueName("esc"), uniqueName("esco"), uniqueName("escr")
	sibling := strings.Replace(db, "_", "x", 1) // "esc_..." matched by the pattern esc_... if "_" were a wildcard
	s.principal(t, reader)
	t.Cleanup(func() {
		s.dropDatabase(t, db, sibling)
		s.dropLogins(t, owner)
	})
	s.exec(t, "", "CREATE DATABASE "+s.ident(sibling), "CREATE TABLE "+s.ident(sibling)+".t (id int PRIMARY KEY)")
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerGrantHCL(db, owner, reader, `["SELECT"]`))
	w.run("apply", "-auto-approve").mustSucceed(t, "owner and grant")

	escaped := strings.ReplaceAll(db, "_", `\_`)
	var dbs []string
	rows, err := s.super(t, "").Query(`SELECT Db FROM mysql.db WHERE User = ? AND Host = '%'`, reader)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, d)
	}
	rows.Close()
	if !slices.Equal(dbs, []string{escaped}) {
		t.Fatalf("mysql.db rows for %s: %q, want exactly [%q]", reader, dbs, escaped)
	}
	grants := s.showGrants(t, reader)
	want := fmt.Sprintf("GRANT SELECT ON `%s`.* TO `%s`@`%%`", escaped, reader)
	if !slices.Contains(grants, want) {
		t.Fatalf("SHOW GRANTS for %s:\n%s\nwant the line %s", reader, strings.Join(grants, "\n"), want)
	}
	if err := s.as(reader, principalPW, "", "SELECT * FROM "+s.ident(sibling)+".t"); err == nil {
		t.Fatalf("the grant on %s reaches %s", db, sibling)
	}
	if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
		t.Fatalf("plan after apply is not empty: %v\n%s", plan.Err, plan.Output)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

func (s accServer) showGrants(t *testing.T, user string) []string {
	t.Helper()
	return s.superStrings(t, fmt.Sprintf("SHOW GRANTS FOR '%s'@'%%'", user))
}

// superStrings runs a query as the superuser and returns its one column.
func (s accServer) superStrings(t *testing.T, query string, args ...any) []string {
	t.Helper()
	return s.superStringsIn(t, "", query, args...)
}

// mysqlFamily are the server kinds that speak MySQL: tests of MySQL/MariaDB
// behaviour run on each (each kind is skipped unless TENANTDB_TEST_ENGINES
// selects it).
var mysqlFamily = []string{"mariadb", "mysql"}

// TestAccMySQL_serverSettings: on a MySQL server of its own, each setting a
// careful DBA turns on leaves a tenant's whole life (database, owner,
// grant, rotation, destroy) working and its plans empty:
//
//   - partial_revokes = ON, under which MySQL reads "\_" in a schema grant
//     as it is written rather than as a pattern;
//   - sql_require_primary_key = ON (the provider creates no table);
//   - mandatory_roles and activate_all_roles_on_login, whose role must not
//     show up as drift in what the owner or the grantee holds, nor be
//     revoked;
//   - the validate_password component, whose refusal of a weak password
//     names the policy and creates nothing.
func TestAccMySQL_serverSettings(t *testing.T) {
	s := secondServer(t, testAccServerOnly(t, "mysql", "MySQL-only server settings: partial_revokes, sql_require_primary_key, mandatory_roles, the validate_password component"))
	tenant := func(t *testing.T, prefix string, check func(db, owner, reader string)) {
		t.Helper()
		db, owner, reader := uniqueName(prefix), uniqueName(prefix+"o"), uniqueName(prefix+"r")
		s.principal(t, reader)
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.dropLogins(t, owner)
		})
		w := newCLIWorkspace(t)
		w.write(s.serverHCL("") + ownerGrantHCL(db, owner, reader, `["SELECT", "INSERT"]`))
		w.run("apply", "-auto-approve").mustSucceed(t, "database, owner and grant")
		if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (id int PRIMARY KEY)",
			"INSERT INTO "+s.table(db, "t")+" VALUES (1)"); err != nil {
			t.Fatalf("the owner cannot work in its database: %v", err)
		}
		if err := s.as(reader, principalPW, db, "SELECT id FROM "+s.table(db, "t"), "INSERT INTO "+s.table(db, "t")+" VALUES (2)"); err != nil {
			t.Fatalf("the grantee cannot SELECT and INSERT: %v", err)
		}
		if err := s.as(reader, principalPW, db, "DELETE FROM "+s.table(db, "t")); err == nil {
			t.Fatal("the grantee may DELETE")
		}
		if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
			t.Fatalf("plan after apply is not empty: %v\n%s", plan.Err, plan.Output)
		}
		if check != nil {
			check(db, owner, reader)
		}
		w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-2", 2, "") +
			grantHCL("g", "tenantdb_tenant_database.db.name", reader, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]"))
		w.run("apply", "-auto-approve").mustSucceed(t, "rotation and a narrower grant")
		if err := s.as(owner, "Owner-pw-2", db, "SELECT 1"); err != nil {
			t.Fatalf("the owner cannot log in with the rotated password: %v", err)
		}
		if err := s.as(reader, principalPW, db, "INSERT INTO "+s.table(db, "t")+" VALUES (3)"); err == nil {
			t.Fatal("the grantee may still INSERT after the narrower grant")
		}
		w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		if s.loginExists(t, owner) {
			t.Fatal("destroy left the owner")
		}
		if rows := mysqlDBRows(t, s, reader); len(rows) != 0 {
			t.Fatalf("destroy left the grantee's mysql.db rows %v", rows)
		}
	}

	t.Run("partial_revokes", func(t *testing.T) {
		s.exec(t, "", "SET GLOBAL partial_revokes = ON")
		t.Cleanup(func() { s.exec(t, "", "SET GLOBAL partial_revokes = OFF") })
		// The name has a "_": read literally, the grants must name it as
		// written (an escaped `pr\_1` is another database under this setting).
		tenant(t, "pr", func(db, owner, reader string) {
			for _, login := range []string{owner, reader} {
				if rows := mysqlDBRows(t, s, login); len(rows) != 1 || rows[0] != db {
					t.Fatalf("%s's mysql.db rows are %q, want exactly [%s]", login, rows, db)
				}
			}
		})
	})
	t.Run("sql_require_primary_key", func(t *testing.T) {
		s.exec(t, "", "SET GLOBAL sql_require_primary_key = ON")
		t.Cleanup(func() { s.exec(t, "", "SET GLOBAL sql_require_primary_key = OFF") })
		tenant(t, "pk", nil)
	})
	t.Run("mandatory_roles", func(t *testing.T) {
		role := uniqueName("mand")
		s.exec(t, "", "CREATE ROLE "+s.ident(role), "GRANT PROCESS ON *.* TO "+s.ident(role),
			"SET GLOBAL mandatory_roles = '"+role+"'", "SET GLOBAL activate_all_roles_on_login = ON")
		t.Cleanup(func() {
			s.exec(t, "", "SET GLOBAL mandatory_roles = ''", "SET GLOBAL activate_all_roles_on_login = OFF", "DROP ROLE "+s.ident(role))
		})
		tenant(t, "mr", func(db, owner, reader string) {
			var n int
			if err := s.super(t, "").QueryRow(`SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Process_priv = 'Y'`, role).Scan(&n); err != nil || n != 1 {
				t.Fatalf("the mandatory role lost its privilege (%d, %v)", n, err)
			}
			for _, login := range []string{owner, reader} {
				for _, g := range s.showGrants(t, login) {
					if strings.Contains(g, "PROCESS") || strings.Contains(g, role) {
						t.Fatalf("%s holds the mandatory role's grant directly: %s", login, g)
					}
				}
			}
		})
	})
	t.Run("validate_password", func(t *testing.T) {
		s.exec(t, "", "INSTALL COMPONENT 'file://component_validate_password'")
		t.Cleanup(func() { s.exec(t, "", "UNINSTALL COMPONENT 'file://component_validate_password'") })
		requirePasswordPolicy(t, s, "vp", "validate_password.length = 8")
	})
}

// requirePasswordPolicy: the server's password policy judges the owner's
// password. A weak one is a clear error quoting the server's words and
// giving the policy's settings (setting, e.g. "validate_password.length =
// 8"), not PrimaryUnavailable, and creates nothing; a strong one works and
// the owner logs in with it.
func requirePasswordPolicy(t *testing.T, s accServer, prefix, setting string) {
	t.Helper()
	db, user := uniqueName(prefix), uniqueName(prefix+"o")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, user, "weak", 1, ""))
	r := w.run("apply", "-auto-approve").mustFail(t, "a weak password")
	if !strings.Contains(r.Output, "password policy") || !strings.Contains(r.Output, "does not satisfy") {
		t.Fatalf("the error does not say the server's policy rejected the password:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, setting) {
		t.Fatalf("the error does not give the policy's settings (%s):\n%s", setting, r.Output)
	}
	// The plan found it, from the policy's variables (issue 57): the
	// password never reached the server.
	if !strings.Contains(r.Output, summaryPasswordPolicy) || !strings.Contains(r.Output, "Found at plan time") {
		t.Fatalf("the refusal did not come from the plan:\n%s", r.Output)
	}
	if strings.Contains(r.Output, "PrimaryUnavailable") {
		t.Fatalf("a policy rejection was reported as an unavailable server:\n%s", r.Output)
	}
	if s.loginExists(t, user) {
		t.Fatal("the rejected login exists")
	}
	strong := "Str0ng-Passw0rd!"
	w.write(s.serverHCL("") + ownerHCL(db, user, strong, 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "a strong password")
	if err := s.as(user, strong, db, "CREATE TABLE "+s.table(db, "t")+" (id int PRIMARY KEY)"); err != nil {
		t.Fatalf("the owner cannot log in with its password: %v", err)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

// mysqlDBRows lists the database names (as mysql.db stores them) on which
// login holds database-level privileges.
func mysqlDBRows(t *testing.T, s accServer, login string) []string {
	t.Helper()
	return s.superStrings(t, `SELECT Db FROM mysql.db WHERE User = ? AND Host = '%' ORDER BY Db`, login)
}
