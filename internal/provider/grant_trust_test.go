// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Issue 33, items 3, 6 and 7: what a superuser's re-created database, a
// grant naming the owner's own login and a grant made before the owner do
// to the owner and the grants. Each test queries the server (mysql.db rows,
// ACLs, logins, the owner mark) and logs in as the grantee and the owner.

// plannedActions reads the actions of a -json plan: address -> action.
func plannedActions(r cliResult) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(r.Output))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type   string `json:"type"`
			Change struct {
				Resource struct {
					Addr string `json:"addr"`
				} `json:"resource"`
				Action string `json:"action"`
			} `json:"change"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "planned_change" {
			out[line.Change.Resource.Addr] = line.Change.Action
		}
	}
	return out
}

// ownerMarkOf is the owner mark (MAX_UPDATES_PER_HOUR) of db's owner login.
func ownerMarkOf(t *testing.T, kind, db string) uint64 {
	t.Helper()
	name, err := ddl.NewDatabaseName(ddl.EngineMySQL, db)
	if err != nil {
		t.Fatal(err)
	}
	return ddl.OwnerLimitMark(name)
}

// updateLimit reads a MySQL/MariaDB account's MAX_UPDATES_PER_HOUR as the
// superuser (0: none).
func (s accServer) updateLimit(t *testing.T, user string) uint64 {
	t.Helper()
	var v uint64
	q := `SELECT max_updates FROM mysql.user WHERE User = ? AND Host = '%'`
	if err := s.super(t, "").QueryRow(q, user).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// recreateDatabase is the superuser's act of issue 33 item 3: drop the
// tenant database and create a new one under its name, with a table and a
// row of its own.
func (s accServer) recreateDatabase(t *testing.T, db string) {
	t.Helper()
	s.dropDatabase(t, db)
	s.exec(t, "", "CREATE DATABASE "+s.ident(db))
	s.exec(t, db, "CREATE TABLE "+s.table(db, "secret")+" (v int)", "INSERT INTO "+s.table(db, "secret")+" VALUES (42)")
}

// TestAccTrust_recreatedDatabase (item 3): a superuser drops the tenant
// database and creates another under its name. MySQL/MariaDB keep the old
// owner's and grantee's rows for the name, so both could read the new
// database. Nothing shows it is another one (its mark is gone: never a
// replacement, issue 54), so it is unproven: the refresh keeps the grant
// and the owner in state with a DriftDetected warning, plans no change, and
// the apply revokes nothing; once a DBA restores the mark (the statement
// the warning gives) it is proven again; destroy leaves no row and no
// login of the test, and the superuser's database and row intact. PostgreSQL: no
// privilege survives the database; the grant leaves state with a warning,
// the plan refuses to create the database again (DatabasePreExists), the
// grantee cannot connect, and destroy works.
func TestAccTrust_recreatedDatabase(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db, owner, user := uniqueName("rcd"), uniqueName("rcdo"), uniqueName("rcdu")
			s.principal(t, user)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, user)
			})
			w := newCLIWorkspace(t)
			// No depends_on between them (none is needed): a refusal of one
			// must not keep the other from revoking.
			w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "") +
				grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			s.recreateDatabase(t, db)
			readSecret := func(login, pw string) error {
				return s.as(login, pw, db, "SELECT v FROM "+s.table(db, "secret"))
			}
			intact := func() {
				t.Helper()
				if n := s.count(t, db, "SELECT COUNT(*) FROM "+s.table(db, "secret")); n != 1 {
					t.Fatalf("the superuser's table in the new database has %d rows, want 1", n)
				}
			}
			if s.Engine == "postgres" {
				// The refresh forgets the replaced database; its create
				// is then refused by the plan (DatabasePreExists: issue
				// 57's preflight), which the warnings come with.
				w.run("plan").mustFail(t, "plan (the database's create refused: another one holds its name)").
					requireDiag(t, "error", "DatabasePreExists")
				// The refused create stops the plan before the grant's
				// refresh (it depends on the database): a refresh-only
				// plan shows what the refresh says of the grant.
				plan := w.run("plan", "-refresh-only").mustSucceed(t, "plan -refresh-only")
				named := false
				for _, d := range plan.Diagnostics {
					named = named || (d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected: ") && strings.Contains(d.Detail, user))
				}
				if !named {
					t.Fatalf("no DriftDetected warning names the grant:\n%+v", plan.Diagnostics)
				}
				if got := s.grantResidue(t, db, user); len(got) > 0 {
					t.Fatalf("the new database gives the old grantee %v", got)
				}
				if err := readSecret(user, principalPW); err == nil {
					t.Fatal("the old grantee reads the new database")
				}
				w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
				if s.loginExists(t, owner) {
					t.Fatal("destroy left the owner login")
				}
				intact()
				return
			}

			// MySQL/MariaDB: the leak this test is about is real.
			if len(s.grantResidue(t, db, user)) == 0 || readSecret(user, principalPW) != nil {
				t.Fatal("the new database did not inherit the grantee's rows: the test would prove nothing")
			}
			// Nothing shows the database there is another one (a mark that
			// is gone is never a replacement): it is unproven, the grant and
			// the owner stay in state with their rows, and nothing is
			// revoked or granted; the warnings say so.
			plan := w.run("plan").mustSucceed(t, "plan")
			var named int
			for _, d := range plan.Diagnostics {
				if d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected: ") && strings.Contains(d.Detail, "unproven") &&
					(strings.Contains(d.Detail, fmt.Sprintf("%q", user)) || strings.Contains(d.Detail, fmt.Sprintf("%q", owner))) {
					named++
				}
			}
			if named < 2 {
				t.Fatalf("want a DriftDetected warning saying unproven for the grant and the owner:\n%+v", plan.Diagnostics)
			}
			for addr, act := range plannedActions(plan) {
				if act != "no-op" {
					t.Fatalf("the plan %ss %s on an unproven database (want no change)", act, addr)
				}
			}
			w.run("apply", "-auto-approve").mustSucceed(t, "apply on the unproven database").forbidDiag(t, "IdentityMismatch")
			for _, l := range []string{owner, user} {
				if len(s.grantResidue(t, db, l)) == 0 {
					t.Fatalf("the apply on an unproven database revoked %s's rows", l)
				}
			}
			intact()

			// A DBA says it is: it gets its mark back (the statement the
			// database's warning gives), and the next apply grants again.
			s.restoreMarkFromDiagnostics(t, plan)
			w.run("apply", "-auto-approve").mustSucceed(t, "apply once the database has its mark back")
			if err := readSecret(user, principalPW); err != nil {
				t.Fatalf("the grantee does not read the adopted database: %v", err)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan after the adoption")

			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			s.requireNoRows(t, db, owner, user)
			if s.loginExists(t, owner) {
				t.Fatal("destroy left the owner login")
			}
			intact()
		})
	}
}

// markRestoreStatement finds the statement that gives a MariaDB database its
// claim mark back in -json output (quotes JSON-escaped).
var markRestoreStatement = regexp.MustCompile("ALTER DATABASE `[^`]+` COMMENT 'tenantdb:[0-9a-f]+'")

// restoreMarkFromDiagnostics runs what a DriftDetected warning of r gives
// to restore a database's mark, as a DBA would: MariaDB's ALTER DATABASE
// … COMMENT (as the superuser); MySQL's SET timestamp / CREATE PROCEDURE,
// as the admin login (the mark counts with it as DEFINER).
func (s accServer) restoreMarkFromDiagnostics(t *testing.T, r cliResult) {
	t.Helper()
	for _, d := range r.Diagnostics {
		if s.Kind() == "mysql" {
			if m := restoreMarkStatement.FindStringSubmatch(d.Detail); m != nil {
				s.asOneSession(t, s.Admin.Username, s.Admin.Password, "", m[1], m[2], m[3])
				return
			}
		} else if restore := markRestoreStatement.FindString(d.Detail); restore != "" {
			s.exec(t, "", restore)
			return
		}
	}
	t.Fatalf("no warning gives the statement that restores the database's mark:\n%+v", r.Diagnostics)
}

// TestAccTrust_droppedDatabaseRecreatedByTerraform (item 3, MariaDB, MySQL): the
// converse of a superuser's re-creation. The database is dropped out of
// band and its tenantdb_tenant_database creates it again (with a new claim
// mark): the grant's rows outlived the drop and stay valid, the owner and
// the grant take the new database for theirs, nothing is refused, and the
// plan after is empty.
func TestAccTrust_droppedDatabaseRecreatedByTerraform(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			if s.Engine == "postgres" {
				t.Skip("MySQL/MariaDB: the database's claim mark tells a configuration's re-creation from a hand-made one")
			}
			db, owner, user := uniqueName("rtf"), uniqueName("rtfo"), uniqueName("rtfu")
			s.principal(t, user)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, user)
			})
			w := newCLIWorkspace(t)
			w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "") +
				grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")
			s.dropDatabase(t, db)
			w.run("apply", "-auto-approve").mustSucceed(t, "the database created again")
			for _, d := range w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan").Diagnostics {
				if strings.HasPrefix(d.Summary, "DriftDetected") {
					t.Fatalf("drift after the configuration re-created its database: %s", d.Detail)
				}
			}
			if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (v int)"); err != nil {
				t.Fatalf("the owner cannot use the new database: %v", err)
			}
			if err := s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
				t.Fatalf("the grantee cannot read the new database: %v", err)
			}
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			s.requireNoRows(t, db, owner, user)
		})
	}
}

// requireNoRows fails when the owner or the grantee still holds a mysql.db
// row for db's name.
func (s accServer) requireNoRows(t *testing.T, db string, logins ...string) {
	t.Helper()
	for _, l := range logins {
		if got := s.grantResidue(t, db, l); len(got) > 0 {
			t.Fatalf("%s still holds %v on %s", l, got, db)
		}
	}
}

// TestAccTrust_destroyRevokesImportedOwnerOnRecreated (issue 43 item 3,
// issue 54): an imported owner is never dropped, but when its database was
// re-created under its name its destroy revokes, of the rows the new
// database inherited, what tenantdb granted (the rest of ALL, after the
// import) and nothing else: the DBA's SELECT and INSERT stay, named.
func TestAccTrust_destroyRevokesImportedOwnerOnRecreated(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			if s.Engine == "postgres" {
				t.Skip("MySQL/MariaDB rows outlive DROP DATABASE")
			}
			db, owner := uniqueName("rci"), uniqueName("rcio")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner)
			})
			// The database is tenantdb's (it carries a claim mark); the
			// owner login was made by hand and is adopted.
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, db)
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "database")
			s.CreateLogin(t, owner, "Owner-pw-1")
			s.exec(t, "", fmt.Sprintf("GRANT SELECT, INSERT ON %s.* TO '%s'@'%%'", s.ident(mysqlPattern(db)), owner))
			w.write(base + fmt.Sprintf(`
import {
  to = tenantdb_tenant_owner.o
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = %q, username = %q })
}
`, db, owner) + ownerBlockHCL(owner, "Owner-pw-1", 1, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "import")

			s.recreateDatabase(t, db)
			if len(s.grantResidue(t, db, owner)) == 0 {
				t.Fatal("the new database did not inherit the owner's rows: the test would prove nothing")
			}
			w.write(base)
			r := w.run("apply", "-auto-approve").mustSucceed(t, "remove the imported owner")
			if !s.loginExists(t, owner) {
				t.Fatal("the imported owner login was dropped")
			}
			if got := s.dbRows(t, db, owner)["%"]; got != "YYN" {
				t.Fatalf("the imported owner holds %q (Select, Insert, Update) on %s: want the DBA's SELECT, INSERT alone", got, db)
			}
			if got := s.grantResidue(t, db, owner); len(got) != 2 {
				t.Fatalf("the imported owner holds %v on %s: what tenantdb granted was not revoked", got, db)
			}
			if k := r.requireDiag(t, "warning", summaryNeverGrantedKept); !strings.Contains(k.Detail, "REVOKE INSERT, SELECT ON") {
				t.Errorf("the warning does not give the statement for the DBA's rows:\n%s", k.Detail)
			}
		})
	}
}

// TestAccTrust_grantToNarrowOwnerRefused (item 6): an owner declaring
// fewer than ALL privileges is still its database's owner: a grant to its
// login is refused (GrantUserReserved) before any SQL, and the owner keeps
// every right it declared. It used to be accepted, and the two resources
// flipped the privileges on every apply.
func TestAccTrust_grantToNarrowOwnerRefused(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			if s.Engine == "postgres" {
				t.Skip("a PostgreSQL owner holds ALL (PrivilegeNotAllowed otherwise): TestAccTenantGrant_toOwnerRefused")
			}
			db, owner := uniqueName("gno"), uniqueName("gnoo")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner)
			})
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1,
				`  privileges = ["SELECT", "INSERT", "UPDATE", "DELETE", "CREATE"]`)
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "create")
			before := s.grantResidue(t, db, owner)
			if got, want := s.updateLimit(t, owner), ownerMarkOf(t, kind, db); got != want {
				t.Fatalf("the owner login carries MAX_UPDATES_PER_HOUR %d, want its database's mark %d", got, want)
			}

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			w.write(base + grantHCL("g", "tenantdb_tenant_database.db.name", owner, `["SELECT"]`,
				"  depends_on = [tenantdb_tenant_owner.o]"))
			r := w.run("apply", "-auto-approve").mustFail(t, "grant to the narrow owner")
			proof.assertNoGrantSQL(t, "GrantUserReserved (the narrow owner)")
			d := r.requireDiag(t, "error", "GrantUserReserved")
			if !strings.Contains(d.Detail, "owner mark") {
				t.Fatalf("the refusal does not say how the owner was recognised: %q", d.Detail)
			}
			if got := s.grantResidue(t, db, owner); strings.Join(got, ",") != strings.Join(before, ",") {
				t.Fatalf("the owner's row changed: %v, was %v", got, before)
			}
			if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "still_mine")+" (v int)",
				"INSERT INTO "+s.table(db, "still_mine")+" VALUES (1)"); err != nil {
				t.Fatalf("the owner lost a right: %v", err)
			}
			w.write(base)
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan after the refusal")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}

// TestAccTrust_grantOfAllBeforeOwner (item 7): a grant of ALL PRIVILEGES
// to another login applied before the owner (in the same apply, and in an
// earlier one) does not make the owner's create fail: the grantee holds
// what an owner holds but carries no owner mark. Both orders end the same:
// the owner creates tables, the grantee keeps ALL, the next plan is empty,
// destroy leaves neither any row. A second owner (with the mark) is still
// refused: TestAccTenantOwner_ownerConflict.
func TestAccTrust_grantOfAllBeforeOwner(t *testing.T) {
	for _, kind := range engines() {
		for _, order := range []string{"grant first", "owner first", "grant in an earlier apply"} {
			t.Run(kind+"/"+order, func(t *testing.T) {
				s := testAccServer(t, kind)
				db, owner, user := uniqueName("gab"), uniqueName("gabo"), uniqueName("gabu")
				s.principal(t, user)
				t.Cleanup(func() {
					s.dropDatabase(t, db)
					s.dropLogins(t, owner, user)
				})
				ownerExtra, grantExtra := "", ""
				switch order {
				case "grant first":
					ownerExtra = "  depends_on = [tenantdb_tenant_grant.g]"
				case "owner first":
					grantExtra = "  depends_on = [tenantdb_tenant_owner.o]"
				}
				grant := grantHCL("g", "tenantdb_tenant_database.db.name", user, `["ALL PRIVILEGES"]`, grantExtra)
				w := newCLIWorkspace(t)
				if order == "grant in an earlier apply" {
					w.write(s.serverHCL("") + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n}\n", db) + grant)
					w.run("apply", "-auto-approve").mustSucceed(t, "the grant alone")
				}
				cfg := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, ownerExtra) + grant
				w.write(cfg)
				w.run("apply", "-auto-approve").mustSucceed(t, "owner and grant")

				if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (v int)",
					"INSERT INTO "+s.table(db, "t")+" VALUES (1)"); err != nil {
					t.Fatalf("the owner cannot use its database: %v", err)
				}
				if s.Engine != "postgres" {
					if err := s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "t"), "CREATE TABLE "+s.table(db, "g")+" (v int)"); err != nil {
						t.Fatalf("the grantee lost ALL: %v", err)
					}
					if got := s.updateLimit(t, user); got != 0 {
						t.Fatalf("the grantee carries MAX_UPDATES_PER_HOUR %d: a grant must never mark its principal", got)
					}
					if got, want := s.updateLimit(t, owner), ownerMarkOf(t, kind, db); got != want {
						t.Fatalf("the owner carries MAX_UPDATES_PER_HOUR %d, want %d", got, want)
					}
				} else if err := s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
					t.Fatalf("the grantee cannot read the owner's table: %v", err)
				}
				w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan")
				w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
				s.requireNoRows(t, db, user)
				if s.loginExists(t, owner) {
					t.Fatal("destroy left the owner login")
				}
			})
		}
	}
}

// TestAccTrust_grantOnUnprovenDatabase (item 3, MariaDB): the tenant's
// owner rewrites its database's comment (its identity there), so nothing
// proves whether it is the same database or a re-created one. The grant
// keeps its access and its state (a DriftDetected warning gives the REVOKE
// for the case it was re-created), the plan changes nothing of it, and its
// destroy still revokes: offboarding does not depend on what the tenant
// wrote.
func TestAccTrust_grantOnUnprovenDatabase(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			if kind != "mariadb" {
				t.Skip("only a MariaDB database's identity lives where its tenant writes (its comment)")
			}
			db, owner, user := uniqueName("gun"), uniqueName("guno"), uniqueName("gunu")
			s.principal(t, user)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, user)
			})
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "")
			w.write(base + grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")
			if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (v int)",
				"ALTER DATABASE "+s.ident(db)+" COMMENT 'mine now'"); err != nil {
				t.Fatal(err)
			}

			plan := w.run("plan").mustSucceed(t, "plan")
			found := false
			for _, d := range plan.Diagnostics {
				if d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected: ") &&
					strings.Contains(d.Detail, fmt.Sprintf("%q", user)) && strings.Contains(d.Detail, "REVOKE ALL PRIVILEGES ON") {
					found = true
				}
			}
			if !found {
				t.Fatalf("no warning on the grant giving the REVOKE:\n%+v", plan.Diagnostics)
			}
			if a, ok := plannedActions(plan)["tenantdb_tenant_grant.g"]; ok {
				t.Fatalf("the plan changes the grant (%s) on a database that may be the same", a)
			}
			if err := s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
				t.Fatalf("the grantee lost its access: %v", err)
			}
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "remove the grant")
			s.requireNoRows(t, db, user)
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}
