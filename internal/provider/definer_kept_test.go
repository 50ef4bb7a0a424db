// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestDefinerKeptWarnings: both warnings have the fixed summary (pinned in
// diagnostics_test.go: repeats fold), and their details name the login, list the objects and give the statement.
func TestDefinerKeptWarnings(t *testing.T) {
	t.Parallel()
	db, _ := ddl.NewDatabaseName(ddl.EngineMySQL, "acme_wms")
	old, _ := ddl.NewUsername(ddl.EngineMySQL, "acme_old")
	cur, _ := ddl.NewUsername(ddl.EngineMySQL, "acme_new")
	k := &dbclient.DefinerKept{Server: "main", DB: db, User: old, Objects: []string{"VIEW `acme_wms`.`v`", "PROCEDURE `acme_wms`.`p`"}, More: 3}
	var diags diag.Diagnostics
	addDefinerKeptWarning(&diags, k)
	addPendingDropWarning(&diags, old, ownerTarget{db: db, user: cur}, fmt.Errorf("wrapped: %w", k))
	if len(diags) != 2 {
		t.Fatalf("%d diagnostics, want 2", len(diags))
	}
	for i, want := range [][]string{
		{`Login "acme_old"`, "removed from state", "ACCOUNT LOCK"},
		{`Old login "acme_old"`, "previous_username", `new owner "acme_new"`, "CREATE OR REPLACE VIEW", "keeps its privileges", "keep working"},
	} {
		d := diags[i]
		if d.Severity() != diag.SeverityWarning || d.Summary() != summaryDefinerKept {
			t.Errorf("diagnostic %d: %v %q, want a warning %q", i, d.Severity(), d.Summary(), summaryDefinerKept)
		}
		for _, w := range append(want, "VIEW `acme_wms`.`v`", "PROCEDURE `acme_wms`.`p`", "and 3 more",
			"DROP USER 'acme_old'@'%';", "SET_ANY_DEFINER") {
			if !strings.Contains(d.Detail(), w) {
				t.Errorf("diagnostic %d lacks %q:\n%s", i, w, d.Detail())
			}
		}
	}
}

// definerTenant: the owner's login creates a table with a row, then a
// view, a procedure, a trigger (on a table of its own, so writes to t do
// not run it) and an event in its database, as ALL there lets any tenant
// do: one object of each kind MySQL lists a DEFINER for.
func (s accServer) definerTenant(t *testing.T, user, pw, db string) {
	t.Helper()
	tbl := s.table(db, "t")
	if err := s.as(user, pw, db, "CREATE TABLE "+tbl+" (v int)", "INSERT INTO "+tbl+" VALUES (7)",
		"CREATE TABLE "+s.table(db, "tt")+" (v int)"); err != nil {
		t.Fatal(err)
	}
	s.defineObjects(t, user, pw, db)
}

// defineObjects (re-)creates the view, procedure, trigger and event as
// user: the warning's fix after a rotation.
func (s accServer) defineObjects(t *testing.T, user, pw, db string) {
	t.Helper()
	if err := s.as(user, pw, db,
		"CREATE OR REPLACE VIEW "+s.table(db, "v")+" AS SELECT v FROM "+s.table(db, "t"),
		"DROP PROCEDURE IF EXISTS "+s.table(db, "p"), "CREATE PROCEDURE "+s.table(db, "p")+"() SELECT 1",
		"DROP TRIGGER IF EXISTS "+s.table(db, "tr"), "CREATE TRIGGER "+s.table(db, "tr")+" BEFORE INSERT ON "+s.table(db, "tt")+" FOR EACH ROW SET NEW.v = NEW.v + 1",
		"DROP EVENT IF EXISTS "+s.table(db, "e"), "CREATE EVENT "+s.table(db, "e")+" ON SCHEDULE EVERY 1 DAY DISABLE DO SELECT 1",
	); err != nil {
		t.Fatalf("define objects as %s: %v", user, err)
	}
}

// requireKeptLocked: the login exists, is locked, holds nothing on db and
// cannot log in.
func (s accServer) requireKeptLocked(t *testing.T, user, pw, db string) {
	t.Helper()
	if n := s.count(t, "", `SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host = '%' AND account_locked = 'Y'`, user); n != 1 {
		t.Errorf("login %s is not there and locked (%d rows)", user, n)
	}
	if n := s.count(t, "", `SELECT COUNT(*) FROM mysql.db WHERE User = ? AND Host = '%'`, user); n != 0 {
		t.Errorf("login %s still holds privileges on %d database pattern(s)", user, n)
	}
	if g := s.showGrants(t, user); len(g) != 1 || !strings.HasPrefix(g[0], "GRANT USAGE ON *.*") {
		t.Errorf("login %s holds more than USAGE: %q", user, g)
	}
	if err := s.as(user, pw, db, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "3118") {
		t.Errorf("the locked login %s logs in (or fails otherwise): %v", user, err)
	}
}

// requireLockedKeepingRights: a rotated-out login MySQL keeps as a definer
// is locked (its password no longer logs in) and keeps its privileges on
// db, so the tenant's definer-rights objects keep working: the view reads
// and the trigger fires on the new owner's insert.
func (s accServer) requireLockedKeepingRights(t *testing.T, user, cur, pw, db string) {
	t.Helper()
	if n := s.count(t, "", `SELECT COUNT(*) FROM mysql.user WHERE User = ? AND Host = '%' AND account_locked = 'Y'`, user); n != 1 {
		t.Errorf("login %s is not there and locked (%d rows)", user, n)
	}
	if n := s.count(t, "", `SELECT COUNT(*) FROM mysql.db WHERE User = ? AND Host = '%'`, user); n != 1 {
		t.Errorf("login %s holds privileges on %d database pattern(s), want its tenant database's: a rotation must not revoke them", user, n)
	}
	if err := s.as(user, pw, db, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "3118") {
		t.Errorf("the locked login %s logs in (or fails otherwise): %v", user, err)
	}
	if err := s.as(cur, pw, db, "SELECT COUNT(*) FROM "+s.table(db, "v"), "INSERT INTO "+s.table(db, "tt")+" VALUES (1)"); err != nil {
		t.Errorf("the tenant's view or trigger defined by the rotated-out login stopped working: %v", err)
	}
}

// requireDefinerWarning: the warning names the login and the view and
// gives the statement, and carries no password.
func requireDefinerWarning(t *testing.T, r cliResult, user, db, pw string) {
	t.Helper()
	d := r.requireDiag(t, "warning", summaryDefinerKept)
	for _, w := range []string{fmt.Sprintf("%q", user), "VIEW `" + db + "`.`v`", "PROCEDURE `" + db + "`.`p`",
		"TRIGGER `" + db + "`.`tr`", "EVENT `" + db + "`.`e`",
		fmt.Sprintf("DROP USER '%s'@'%%';", user)} {
		if !strings.Contains(d.Detail, w) {
			t.Errorf("the warning lacks %q:\n%s", w, d.Detail)
		}
	}
	if strings.Contains(r.Output, pw) {
		t.Errorf("the password of %s is in terraform's output", user)
	}
}

// requireOnlyAccountDDL: since mark the admin ran DDL/DCL on accounts only
// (DROP USER, REVOKE, ALTER USER … ACCOUNT LOCK): nothing that drops or
// re-defines a tenant's view or routine. MySQL must have run the lock.
func (s accServer) requireOnlyAccountDDL(t *testing.T, mark testserver.LogMark) {
	t.Helper()
	stmts := s.adminDDLSince(t, mark)
	if len(stmts) == 0 {
		t.Fatal("the statement log shows no DDL since the mark, not even the DROP USER: it proves nothing")
	}
	locked := false
	for _, st := range stmts {
		text := strings.ToUpper(strings.TrimSpace(st.Text))
		switch {
		case strings.HasPrefix(text, "ALTER USER ") && strings.HasSuffix(text, " ACCOUNT LOCK"):
			locked = true
		case strings.HasPrefix(text, "DROP USER "), strings.HasPrefix(text, "REVOKE "):
		default:
			t.Errorf("the admin ran %q during the owner's destroy", st.Text)
		}
	}
	if want := s.Flavor == "mysql"; locked != want {
		t.Errorf("ACCOUNT LOCK ran: %v, want %v (statements: %v)", locked, want, stmts)
	}
}

// requireDestroyedOwner: after the owner's destroy, MySQL kept the login
// (revoked, locked, with the warning): true; MariaDB dropped it: false.
func (s accServer) requireDestroyedOwner(t *testing.T, r cliResult, user, pw, db string) (kept bool) {
	t.Helper()
	if s.Flavor != "mysql" {
		r.forbidDiag(t, summaryDefinerKept)
		if s.loginExists(t, user) {
			t.Fatal("MariaDB: the owner login was not dropped")
		}
		return false
	}
	requireDefinerWarning(t, r, user, db, pw)
	s.requireKeptLocked(t, user, pw, db)
	return true
}

// rotatedDefinerTenant: an owner whose login defined a view and a
// procedure, then a username rotation; r is the rotation's apply.
func (s accServer) rotatedDefinerTenant(t *testing.T, prefix string) (w *cliWorkspace, db, old, cur, pw string, r cliResult) {
	t.Helper()
	db, old, cur, pw = uniqueName(prefix), uniqueName(prefix+"_a"), uniqueName(prefix+"_b"), "Rot-pw-1"
	t.Cleanup(func() { s.dropDatabase(t, db); s.dropLogins(t, old, cur) })
	w = newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, old, pw, 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	s.definerTenant(t, old, pw, db)
	w.write(s.serverHCL("") + ownerHCL(db, cur, pw, 1, ""))
	return w, db, old, cur, pw, w.run("apply", "-auto-approve").mustSucceed(t, "rotate")
}

// TestAccTenantOwner_definerKept (issue 35): MySQL 8.0.22+ refuses DROP
// USER of a login that defines views or routines (4006) unless the dropper
// holds SET_ANY_DEFINER, which the admin must not. Destroy keeps the owner
// revoked and locked, with a warning, under retain and under delete (the
// database is then dropped all the same); a rotation keeps the old login
// pending and locked, and drops it once its objects are re-created
// as the new owner (meanwhile locked but holding its privileges, so the
// tenant's definer-rights view and trigger keep working). MariaDB drops
// the login in the same scenario.
func TestAccTenantOwner_definerKept(t *testing.T) {
	for _, kind := range []string{"mysql", "mariadb"} {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			mysql := s.Flavor == "mysql"
			t.Run("retain", func(t *testing.T) {
				db, user, pw := uniqueName("dkr"), uniqueName("dkr_o"), "Dkr-pw-1"
				t.Cleanup(func() { s.dropDatabase(t, db); s.dropLogins(t, user) })
				w := newCLIWorkspace(t)
				w.write(s.serverHCL("") + ownerHCL(db, user, pw, 1, ""))
				w.run("apply", "-auto-approve").mustSucceed(t, "create")
				s.definerTenant(t, user, pw, db)
				mark := s.MarkLog(t)
				r := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
				if w.stateHas("tenantdb_tenant_owner") {
					t.Fatal("the owner is still in state")
				}
				s.requireOnlyAccountDDL(t, mark)
				if n := s.count(t, "", `SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'v'`, db); n != 1 {
					t.Fatalf("the tenant's view is gone")
				}
				if n := s.count(t, "", "SELECT COUNT(*) FROM "+s.table(db, "t")); n != 1 {
					t.Fatalf("the tenant's table holds %d rows, want 1", n)
				}
				if s.requireDestroyedOwner(t, r, user, pw, db) {
					// As README says: the view runs with its definer's
					// privileges, revoked, until re-created.
					var n int
					if err := s.super(t, "").QueryRow("SELECT COUNT(*) FROM " + s.table(db, "v")).Scan(&n); err == nil {
						t.Errorf("the kept definer's view still reads (%d rows): its privileges were not revoked", n)
					}
				}
			})
			t.Run("delete", func(t *testing.T) {
				db, user, pw := uniqueName("dkd"), uniqueName("dkd_o"), "Dkd-pw-1"
				t.Cleanup(func() { s.dropDatabase(t, db); s.dropLogins(t, user) })
				w := newCLIWorkspace(t)
				w.write(s.serverHCL("") + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = "+
					"tenantdb_db_server.main.ref\n  name = %q\n  deletion_policy = \"delete\"\n}\n", db) + ownerBlockHCL(user, pw, 1, ""))
				w.run("apply", "-auto-approve").mustSucceed(t, "create")
				s.definerTenant(t, user, pw, db)
				r := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
				if w.stateHas("tenantdb_tenant_owner") || w.stateHas("tenantdb_tenant_database") {
					t.Fatal("state is not empty after destroy")
				}
				if n := s.count(t, "", `SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, db); n != 0 {
					t.Fatal("the database was not dropped")
				}
				if !s.requireDestroyedOwner(t, r, user, pw, db) {
					return
				}
				// Decided: the login stays, locked and holding nothing, and
				// the warning's statement (run as the admin) drops it now
				// that DROP DATABASE took what it defined.
				if err := s.as(s.Admin.Username, s.Admin.Password, "", fmt.Sprintf("DROP USER '%s'@'%%'", user)); err != nil {
					t.Fatalf("the warning's statement fails as the admin: %v", err)
				}
			})
			t.Run("rotation", func(t *testing.T) {
				w, db, old, cur, pw, r := s.rotatedDefinerTenant(t, "dkn")
				if err := s.as(cur, pw, db, "INSERT INTO "+s.table(db, "t")+" VALUES (8)", "CREATE TABLE "+s.table(db, "t2")+" (v int)"); err != nil {
					t.Fatalf("the new owner cannot work: %v", err)
				}
				if !mysql {
					r.forbidDiag(t, summaryDefinerKept)
					if s.loginExists(t, old) || w.stateAttr("tenantdb_tenant_owner", "previous_username") != nil {
						t.Fatal("MariaDB: the old login was not dropped")
					}
					return
				}
				requireDefinerWarning(t, r, old, db, pw)
				if got := w.stateAttr("tenantdb_tenant_owner", "previous_username"); got != old {
					t.Fatalf("previous_username = %v, want %s (pending)", got, old)
				}
				s.requireLockedKeepingRights(t, old, cur, pw, db)
				// A later apply retries the drop and keeps it so: locked,
				// not revoked.
				w.run("apply", "-auto-approve").mustSucceed(t, "retry the drop while it defines objects")
				s.requireLockedKeepingRights(t, old, cur, pw, db)
				// The warning's fix: re-create the objects as the new owner;
				// the next apply drops the old login.
				s.defineObjects(t, cur, pw, db)
				w.run("apply", "-auto-approve").mustSucceed(t, "retry the drop").forbidDiag(t, summaryDefinerKept)
				if s.loginExists(t, old) || w.stateAttr("tenantdb_tenant_owner", "previous_username") != nil {
					t.Fatal("the old login was not dropped once it defined nothing")
				}
				if n := s.count(t, "", "SELECT COUNT(*) FROM "+s.table(db, "v")); n != 2 {
					t.Fatalf("the re-created view reads %d rows, want 2", n)
				}
			})
			t.Run("rotationThenDestroy", func(t *testing.T) {
				// A pending old login MySQL keeps leaves state on destroy
				// too, revoked and locked: otherwise the owner would stay in
				// state forever, and under delete block the database's drop.
				w, db, old, cur, pw, _ := s.rotatedDefinerTenant(t, "dkx")
				r := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
				if w.stateHas("tenantdb_tenant_owner") {
					t.Fatal("the owner is still in state")
				}
				if s.loginExists(t, cur) {
					t.Fatal("the current owner login, which defines nothing, was not dropped")
				}
				s.requireDestroyedOwner(t, r, old, pw, db)
			})
		})
	}
}
