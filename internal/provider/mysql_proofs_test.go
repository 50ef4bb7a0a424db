// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// Issue 43, items 1 to 4 (PROOFS.md): a proof counts only if no one but
// the admin (or a superuser) can write it, and it does not depend on which
// admin account or host row reads it. Each test changes the server as a
// login, a tenant or a DBA would, then reads mysql.user, mysql.db and
// information_schema.USER_ATTRIBUTES and logs in as the logins themselves.

// onMySQLFamily runs fn as one subtest per MySQL-family server kind.
func onMySQLFamily(t *testing.T, fn func(t *testing.T, s accServer)) {
	for _, kind := range mysqlFamily {
		t.Run(kind, func(t *testing.T) { fn(t, testAccServer(t, kind)) })
	}
}

// ownAdmin makes an admin login with README's rights (CreateAdminLogin)
// for a tenantdb_db_server of its own, named name, whose password the
// provider reads from the environment.
func (s accServer) ownAdmin(t *testing.T, name string) testserver.Login {
	t.Helper()
	admin := s.CreateAdminLogin(t, uniqueName("adm"))
	envMu.Lock()
	os.Setenv(AdminPasswordEnv(name), admin.Password)
	envMu.Unlock()
	return admin
}

// ownServerHCL is the provider block and a tenantdb_db_server "main" named
// name that connects as username.
func (s accServer) ownServerHCL(name, username string) string {
	return caCertsHCL(map[string]string{name: s.CAPEM}) + strings.Replace(s.serverResourceHCL("main", name, s.Port, ""),
		fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", username), 1)
}

// ownTenant is trustTenant (deletion_policy delete) through an admin of
// its own.
func (s accServer) ownTenant(t *testing.T, server, admin, prefix string) (w *cliWorkspace, db, owner, grantee string) {
	t.Helper()
	w, db, owner, grantee = s.trustTenantOn(t, s.ownServerHCL(server, admin), prefix, "delete")
	s.requireReads(t, db, owner, grantee, "after the create")
	return w, db, owner, grantee
}

// requireReads: the owner and the grantee, logged in as themselves, read
// the tenant's table, and mysql.db still holds their rows.
func (s accServer) requireReads(t *testing.T, db, owner, grantee, when string) {
	t.Helper()
	for user, pw := range map[string]string{owner: trustOwnerPW, grantee: principalPW} {
		if err := s.as(user, pw, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
			t.Fatalf("%s: %s cannot read the tenant's table: %v", when, user, err)
		}
		if len(s.grantResidue(t, db, user)) == 0 {
			t.Fatalf("%s: %s has no mysql.db row on %s", when, user, db)
		}
	}
}

// requireNoRevoke fails when the admin sent a REVOKE or DROP since mark.
func (s accServer) requireNoRevoke(t *testing.T, mark testserver.LogMark, admins []string, when string) {
	t.Helper()
	for _, st := range s.ddlSinceBy(t, mark, admins) {
		if u := strings.ToUpper(st.Text); strings.HasPrefix(u, "REVOKE") || strings.HasPrefix(u, "DROP") {
			t.Fatalf("%s: the admin ran %q", when, st.Text)
		}
	}
}

// ddlSinceBy is the DDL the logins admins sent since mark.
func (s accServer) ddlSinceBy(t *testing.T, mark testserver.LogMark, admins []string) []testserver.Statement {
	t.Helper()
	var out []testserver.Statement
	for _, a := range admins {
		stmts, err := s.DDLSince(t.Context(), mark, a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, stmts...)
	}
	return out
}

// requireQuietPlan runs a plan that must be empty and warn nothing about
// identities.
func requireQuietPlan(t *testing.T, w *cliWorkspace, when string) {
	t.Helper()
	plan := w.run("plan", "-detailed-exitcode").mustSucceed(t, when)
	plan.forbidDiag(t, "DriftDetected")
	plan.forbidDiag(t, "IdentityMismatch")
}

// TestAccMySQLProofs_adminRenamed (item 3): only username of
// tenantdb_db_server changes, to a second admin with README's rights. The
// plan changes nothing on the server (no tenant resource is replaced, no
// DriftDetected), the apply revokes nothing, the owner and the grantee
// still read their table, later plans are empty, and destroy still drops
// what the first admin made. Before PROOFS.md a MySQL mark counted only
// while its DEFINER was CURRENT_USER(): every database read as re-created
// and the apply revoked the tenant's rows. Then a DBA revokes the old
// admin's rights and locks it (issue 54 item 2): still no warning, no
// change and no revoke; on 65d3dd4 every database read as re-created.
func TestAccMySQLProofs_adminRenamed(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		name := "ren" + s.name
		first := s.ownAdmin(t, name)
		second := s.CreateAdminLogin(t, uniqueName("adm"))
		// The provider reads one password per server name: the second
		// admin gets the first one's.
		s.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' IDENTIFIED BY '%s'", second.Username, first.Password))
		w, db, owner, grantee := s.ownTenant(t, name, first.Username, "pren")

		w.write(s.ownServerHCL(name, second.Username) + trustHCL(db, owner, grantee, ""))
		mark := s.MarkLog(t)
		plan := w.run("plan").mustSucceed(t, "plan with the second admin")
		plan.forbidDiag(t, "DriftDetected")
		for addr, act := range plannedActions(plan) {
			if act != "update" && act != "no-op" {
				t.Fatalf("the plan %ss %s (want only the server's ref to change)", act, addr)
			}
		}
		w.run("apply", "-auto-approve").mustSucceed(t, "apply with the second admin").forbidDiag(t, "DriftDetected")
		s.requireNoRevoke(t, mark, []string{first.Username, second.Username}, "the apply with the second admin")
		s.requireReads(t, db, owner, grantee, "after the admin changed")
		requireQuietPlan(t, w, "a plan after the admin changed")
		w.run("apply", "-auto-approve").mustSucceed(t, "a later apply")
		s.requireReads(t, db, owner, grantee, "after a later apply")

		// The rotation's last step (README): a DBA decommissions the old
		// admin, its rights revoked and the account locked (MySQL refuses
		// DROP USER of a mark's definer, 4006). The ledger records it as
		// a writer, so its marks still count (issue 54 item 3): no
		// warning, no change, no revoke.
		s.exec(t, "", fmt.Sprintf("REVOKE ALL PRIVILEGES, GRANT OPTION FROM '%s'@'%%'", first.Username),
			fmt.Sprintf("ALTER USER '%s'@'%%' ACCOUNT LOCK", first.Username))
		mark = s.MarkLog(t)
		requireQuietPlan(t, w, "a plan after the old admin was decommissioned")
		w.run("apply", "-auto-approve").mustSucceed(t, "an apply after the old admin was decommissioned").forbidDiag(t, "DriftDetected")
		s.requireNoRevoke(t, mark, []string{second.Username}, "the apply after the old admin was decommissioned")
		s.requireReads(t, db, owner, grantee, "after the old admin was decommissioned")

		w.run("destroy", "-auto-approve").mustSucceed(t, "destroy").forbidDiag(t, "DatabaseDropSkipped")
		if s.databaseExists(t, db) || s.loginExists(t, owner) {
			t.Fatal("destroy by the second admin kept the database or the owner the first admin made")
		}
	})
}

// TestAccMySQLProofs_adminHostRow (item 4): a DBA adds a host row for the
// admin ('admin'@'127.0.0.1', README's rights, the same password), so the
// provider's sessions match it (CURRENT_USER() changes). No configuration
// changes: the plan is empty without DriftDetected, an apply revokes
// nothing, and the owner and the grantee still read their table.
func TestAccMySQLProofs_adminHostRow(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		name := "row" + s.name
		admin := s.ownAdmin(t, name)
		w, db, owner, grantee := s.ownTenant(t, name, admin.Username, "prow")

		s.addHostRow(t, admin, "127.0.0.1")
		var cur string
		pool, err := s.Open(admin, "")
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		if err := pool.QueryRow("SELECT CURRENT_USER()").Scan(&cur); err != nil {
			t.Fatal(err)
		}
		if cur != admin.Username+"@127.0.0.1" {
			t.Fatalf("the admin's sessions match %s, not the new host row (what this test is about)", cur)
		}
		mark := s.MarkLog(t)
		requireQuietPlan(t, w, "a plan after the host row was added")
		w.run("apply", "-auto-approve").mustSucceed(t, "an apply after the host row was added").forbidDiag(t, "DriftDetected")
		s.requireNoRevoke(t, mark, []string{admin.Username}, "the apply after the host row was added")
		s.requireReads(t, db, owner, grantee, "after the host row was added")

		s.exec(t, "", fmt.Sprintf("DROP USER '%s'@'127.0.0.1'", admin.Username))
		requireQuietPlan(t, w, "a plan after the host row was dropped again")
		s.requireReads(t, db, owner, grantee, "after the host row was dropped")
	})
}

// addHostRow copies admin's '%' account to host: same password, same
// global rights (SHOW GRANTS, re-addressed).
func (s accServer) addHostRow(t *testing.T, admin testserver.Login, host string) {
	t.Helper()
	rows, err := s.super(t, "").Query(fmt.Sprintf("SHOW GRANTS FOR '%s'@'%%'", admin.Username))
	if err != nil {
		t.Fatal(err)
	}
	var grants []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(g, "GRANT USAGE ") {
			continue
		}
		g = identifiedClause.ReplaceAllString(g, "") // MariaDB shows the hash
		for _, at := range []string{"@`%`", "@'%'"} {
			g = strings.ReplaceAll(g, at, "@'"+host+"'")
		}
		grants = append(grants, g)
	}
	rows.Close()
	t.Cleanup(func() { s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'%s'", admin.Username, host)) })
	s.exec(t, "", append([]string{fmt.Sprintf("CREATE USER '%s'@'%s' IDENTIFIED BY '%s'", admin.Username, host, admin.Password)},
		grants...)...)
}

var identifiedClause = regexp.MustCompile(` IDENTIFIED BY PASSWORD '[^']*'`)

// selfMark is the owner mark a login writes into its own ATTRIBUTE on
// MySQL 8.0.21+ (bundled with a password change, which needs no
// privilege), claiming to be tenantdb's half-made owner of db.
func selfMark(user, pw, db string) string {
	return fmt.Sprintf(`ALTER USER '%s'@'%%' IDENTIFIED BY '%s' ATTRIBUTE '{"tenantdb": "tenantdb:%s", "tenantdb_db": "%s", "tenantdb_status": "open"}'`,
		user, pw, strings.Repeat("ab", 16), db)
}

// TestAccMySQLProofs_selfWrittenOpenMark (item 1): a login a DBA made long
// ago writes itself an open owner mark for a database about to be
// declared (MySQL; on MariaDB a login can write no mark, and the same
// login is refused the same way), and keeps a session open. Declaring the
// owner with that username is refused PreExistingOwnerUser: no ALTER USER
// or GRANT ran on it, its password still logs in, it holds no row on the
// new database, and its open session reads nothing there.
func TestAccMySQLProofs_selfWrittenOpenMark(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		db, login := uniqueName("pself"), uniqueName("pselfl")
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.dropLogins(t, login)
		})
		s.principal(t, login)
		if s.Flavor == testserver.FlavorMySQL {
			if err := s.as(login, principalPW, "", selfMark(login, principalPW, db)); err != nil {
				t.Fatalf("the login cannot write its own ATTRIBUTE (the event this test is about): %v", err)
			}
			if a := s.userAttribute(t, login); !strings.Contains(a, `"open"`) {
				t.Fatalf("the login's ATTRIBUTE is %q, not its self-written open mark", a)
			}
		}
		foreign, err := s.Open(testserver.Login{Username: login, Password: principalPW}, "")
		if err != nil {
			t.Fatal(err)
		}
		defer foreign.Close()
		foreign.SetMaxOpenConns(1)
		if err := foreign.Ping(); err != nil {
			t.Fatal(err)
		}

		// The database first: the owner's refusal comes from the plan
		// (issue 57's preflight), which makes nothing.
		w := newCLIWorkspace(t)
		w.write(s.serverHCL("") + deleteDatabaseHCL(db, ""))
		w.run("apply", "-auto-approve").mustSucceed(t, "the tenant database")
		w.write(s.serverHCL("") + deleteDatabaseHCL(db, "") + trustOwnerHCL(login))
		mark := s.MarkLog(t)
		w.run("apply", "-auto-approve").mustFail(t, "declaring the self-marked login as owner").
			requireDiag(t, "error", "PreExistingOwnerUser: ")
		for _, st := range s.adminDDLSince(t, mark) {
			u := strings.ToUpper(st.Text)
			if strings.Contains(st.Text, login) && (strings.HasPrefix(u, "ALTER USER") || strings.HasPrefix(u, "GRANT") ||
				strings.HasPrefix(u, "DROP") || strings.HasPrefix(u, "SET PASSWORD")) {
				t.Fatalf("the refused create ran %q on the foreign login", st.Text)
			}
		}
		if err := s.as(login, principalPW, "", "SELECT 1"); err != nil {
			t.Fatalf("the foreign login's password no longer logs in: %v", err)
		}
		if got := s.grantResidue(t, db, login); len(got) > 0 {
			t.Fatalf("the foreign login holds %v on the new database", got)
		}
		s.exec(t, db, "CREATE TABLE "+s.table(db, "secret")+" (v int)", "INSERT INTO "+s.table(db, "secret")+" VALUES (7)")
		if _, err := foreign.Exec("SELECT v FROM " + s.table(db, "secret")); err == nil {
			t.Fatal("the foreign login's open session reads the new tenant's table")
		}
	})
}

// TestAccMySQLProofs_ownerRewritesAttribute (item 2, MySQL 8.0.21+; a
// MariaDB login has no ATTRIBUTE, and TestAccTrust_ownerChangesItsPassword
// covers its one self-writable trace): the owner rewrites its own
// ATTRIBUTE to another claim, with a new password. The refresh keeps it in
// state (the ledger, not the ATTRIBUTE, is its identity), and destroy
// under retain drops it: the owner's new password no longer logs in, and
// it holds no row on the retained database.
func TestAccMySQLProofs_ownerRewritesAttribute(t *testing.T) {
	s := testAccServer(t, testserver.KindMySQL)
	w, db, owner, grantee := s.trustTenant(t, "pattr", "retain")
	s.rewriteAttribute(t, owner, db, strings.Repeat("f", 32))
	plan := w.run("plan").mustSucceed(t, "plan after the owner rewrote its ATTRIBUTE")
	plan.forbidDiag(t, "DriftDetected")
	if !w.stateHas("tenantdb_tenant_owner") {
		t.Fatal("the refresh forgot the owner")
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "apply")
	if !w.stateHas("tenantdb_tenant_owner") {
		t.Fatal("the apply's refresh forgot the owner")
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if err := s.as(owner, trustOwnerNewPW, db, "SELECT v FROM "+s.table(db, "t")); err == nil {
		t.Fatal("after destroy the owner still reads the retained database with the password it set itself")
	}
	if got := s.grantResidue(t, db, owner); len(got) > 0 {
		t.Fatalf("after destroy the owner holds %v on the retained database", got)
	}
	if got := s.grantResidue(t, db, grantee); len(got) > 0 {
		t.Fatalf("after destroy the grantee holds %v on the retained database", got)
	}
	if s.loginExists(t, owner) {
		t.Fatal("destroy left the owner login its ledger row proves tenantdb made")
	}
	var n int
	if err := s.super(t, "").QueryRow("SELECT COUNT(*) FROM "+s.ident(ddl.LedgerDatabase)+".claims WHERE kind = 'login' AND object = ? AND status = 'dropped'",
		owner).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the ledger does not record the owner's drop: %d rows, %v", n, err)
	}
}

// rewriteAttribute: the owner sets its own password to trustOwnerNewPW
// and, with it, its ATTRIBUTE's claim to tenantdb:<hex32> (32 hex digits).
func (s accServer) rewriteAttribute(t *testing.T, owner, db, hex32 string) {
	t.Helper()
	if err := s.as(owner, trustOwnerPW, db, fmt.Sprintf(`ALTER USER '%s'@'%%' IDENTIFIED BY '%s' ATTRIBUTE '{"tenantdb": "tenantdb:%s"}'`,
		owner, trustOwnerNewPW, hex32)); err != nil {
		t.Fatalf("the owner cannot rewrite its own ATTRIBUTE (the event this test is about): %v", err)
	}
	if a := s.userAttribute(t, owner); !strings.Contains(a, hex32) {
		t.Fatalf("the owner's ATTRIBUTE is %q, not the rewritten one", a)
	}
}

// forgetLedgerRows deletes the ledger's rows of login, as a superuser: the
// login then reads as one an earlier tenantdb made (no row).
func (s accServer) forgetLedgerRows(t *testing.T, login string) {
	t.Helper()
	s.exec(t, "", fmt.Sprintf("DELETE FROM %s.claims WHERE object = '%s'", s.ident(ddl.LedgerDatabase), login))
}

// ledgerStatus is the newest ledger row of login (its own, not its grant
// rows): its claim and status
// ("" when it has none).
func (s accServer) ledgerStatus(t *testing.T, login string) (claim, status string) {
	t.Helper()
	err := s.super(t, "").QueryRow("SELECT claim, status FROM "+s.ident(ddl.LedgerDatabase)+".claims WHERE kind = 'login' AND object = ? ORDER BY seq DESC LIMIT 1",
		login).Scan(&claim, &status)
	if err != nil && !strings.Contains(err.Error(), "no rows") {
		t.Fatal(err)
	}
	return claim, status
}

// TestAccMySQLProofs_earlierLoginGetsLedgerRow: an owner login made by an
// earlier tenantdb (no ledger row; its ATTRIBUTE names the recorded claim)
// gets its row at the next apply, never at the plan (the plan warns and
// shows user_created as known after apply); from then on the owner
// rewriting its ATTRIBUTE changes nothing, and destroy drops it.
func TestAccMySQLProofs_earlierLoginGetsLedgerRow(t *testing.T) {
	s := testAccServer(t, testserver.KindMySQL)
	w, db, owner, grantee := s.trustTenant(t, "pleg", "retain")
	s.forgetLedgerRows(t, owner)
	w.run("plan").mustSucceed(t, "plan").requireDiag(t, "warning", summaryLedgerPlanned)
	if claim, _ := s.ledgerStatus(t, owner); claim != "" {
		t.Fatal("the plan wrote the ledger")
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "the apply that records the login")
	claim, status := s.ledgerStatus(t, owner)
	if status != "done" || !strings.Contains(s.userAttribute(t, owner), claim) {
		t.Fatalf("ledger row %q %q does not record the login's claim (ATTRIBUTE %s)", claim, status, s.userAttribute(t, owner))
	}
	requireQuietPlan(t, w, "a plan after the login was recorded")

	s.rewriteAttribute(t, owner, db, strings.Repeat("e", 32))
	requireQuietPlan(t, w, "a plan after the owner rewrote its ATTRIBUTE")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	s.requireOffboarded(t, db, owner, trustOwnerNewPW, grantee)
	if s.loginExists(t, owner) {
		t.Fatal("destroy left the owner login its ledger row proves tenantdb made")
	}
}

// TestAccMySQLProofs_earlierLoginRewritesAttribute: an owner login an
// earlier tenantdb made (no ledger row) rewrites its ATTRIBUTE before any
// apply recorded it. Nothing then proves it either way: the refresh keeps
// it in state (DriftDetected, not forgotten), destroy revokes what it holds
// on the retained database and leaves the login, which reads nothing
// there.
func TestAccMySQLProofs_earlierLoginRewritesAttribute(t *testing.T) {
	s := testAccServer(t, testserver.KindMySQL)
	w, db, owner, grantee := s.trustTenant(t, "plegr", "retain")
	s.forgetLedgerRows(t, owner)
	s.rewriteAttribute(t, owner, db, strings.Repeat("d", 32))
	w.run("plan").mustSucceed(t, "plan").requireDiag(t, "warning", "DriftDetected: ")
	if !w.stateHas("tenantdb_tenant_owner") {
		t.Fatal("the refresh forgot the owner whose ATTRIBUTE changed")
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	s.requireOffboarded(t, db, owner, trustOwnerNewPW, grantee)
	if err := s.as(owner, trustOwnerNewPW, db, "SELECT v FROM "+s.table(db, "t")); err == nil {
		t.Fatal("after destroy the unproven owner still reads the retained database")
	}
}
