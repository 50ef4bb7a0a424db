// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Trust boundaries (issue 33, items 4, 5, 11, 12 and MariaDB's part of 13):
// what a tenant or a DBA may do to its database or login never defeats
// offboarding, never loses a database from state, and never leads the
// provider to alter or drop anything it cannot prove it made. Every test
// reads the server: privilege rows, logins, comments, rows in tables.

const trustOwnerPW, trustOwnerNewPW = "Owner-pw-1", "Tenant-own-pw-2"

// trustHCL is a tenant database under deletion_policy = "delete", its
// owner, and a grant of SELECT to grantee.
func trustHCL(db, owner, grantee, dbExtra string) string {
	return deleteDatabaseHCL(db, dbExtra) + trustOwnerHCL(owner) + grantHCL("g", "tenantdb_tenant_database.t.name", grantee, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
}

// trustOwnerHCL is the owner block of trustHCL: owner, of
// tenantdb_tenant_database.t, with trustOwnerPW.
func trustOwnerHCL(owner string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.t.name
  username            = %q
  password_wo         = %q
  password_wo_version = 1
}
`, owner, trustOwnerPW)
}

// trustTenant applies trustHCL under deletion_policy policy, with a table
// of one row, written by the owner.
func (s accServer) trustTenant(t *testing.T, prefix, policy string) (w *cliWorkspace, db, owner, grantee string) {
	t.Helper()
	return s.trustTenantOn(t, s.serverHCL(""), prefix, policy)
}

// trustTenantOn is trustTenant with the given tenantdb_db_server "main"
// (and provider block), serverHCL.
func (s accServer) trustTenantOn(t *testing.T, serverHCL, prefix, policy string) (w *cliWorkspace, db, owner, grantee string) {
	t.Helper()
	db, owner, grantee = uniqueName(prefix), uniqueName(prefix+"o"), uniqueName(prefix+"g")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, owner, grantee)
	})
	s.principal(t, grantee)
	w = newCLIWorkspace(t)
	w.write(serverHCL + strings.Replace(trustHCL(db, owner, grantee, ""), `"delete"`, strconv.Quote(policy), 1))
	w.run("apply", "-auto-approve").mustSucceed(t, "create the tenant")
	if err := s.as(owner, trustOwnerPW, db, "CREATE TABLE "+s.table(db, "t")+" (v int)",
		"INSERT INTO "+s.table(db, "t")+" VALUES (42)"); err != nil {
		t.Fatalf("the owner cannot write its database: %v", err)
	}
	if err := s.as(grantee, principalPW, db, "SELECT * FROM "+s.table(db, "t")); err != nil {
		t.Fatalf("the grantee cannot read the tenant's table before offboarding: %v", err)
	}
	return w, db, owner, grantee
}

// schemaComment is a MariaDB database's comment, by the superuser's reading.
func (s accServer) schemaComment(t *testing.T, db string) string {
	t.Helper()
	var c string
	if err := s.super(t, "").QueryRow(`SELECT SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, db).Scan(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// tableRows counts the rows of db's table t; -1 when it cannot be read.
func (s accServer) tableRows(t *testing.T, db string) int {
	t.Helper()
	var n int
	if err := s.super(t, db).QueryRow("SELECT COUNT(*) FROM " + s.table(db, "t")).Scan(&n); err != nil {
		return -1
	}
	return n
}

// requireOffboarded: neither login reaches the tenant's data, and neither
// holds a privilege row on the database's name.
func (s accServer) requireOffboarded(t *testing.T, db, owner, ownerPW, grantee string) {
	t.Helper()
	if s.Engine == "postgres" && !s.databaseExists(t, db) {
		return // PostgreSQL privileges live in the database and went with it
	}
	if got := s.grantResidue(t, db, grantee); len(got) > 0 {
		t.Fatalf("after destroy the grantee %s still holds %v on %s", grantee, got, db)
	}
	if err := denied(s.as(grantee, principalPW, db, "SELECT * FROM "+s.table(db, "t")), "the grantee's SELECT"); err != nil &&
		s.databaseExists(t, db) {
		t.Fatalf("after destroy: %v", err)
	}
	if s.loginExists(t, owner) {
		if got := s.grantResidue(t, db, owner); len(got) > 0 {
			t.Fatalf("after destroy the owner login %s remains with %v on %s", owner, got, db)
		}
		if err := s.as(owner, ownerPW, db, "SELECT * FROM "+s.table(db, "t")); err == nil {
			t.Fatalf("after destroy the owner login %s still reads the tenant's table", owner)
		}
	}
}

// TestAccTrust_tenantEditsItsDatabase (items 4 and "the owner changing what
// it owns"): the owner rewrites its database's comment (MariaDB: ALTER
// DATABASE … COMMENT; PostgreSQL: COMMENT ON DATABASE) and adds a table.
// The database stays in state with database_created; destroy under
// "delete" leaves the grantee and the owner login with nothing on it, and
// drops the database only where its identity is proven (PostgreSQL: the
// OID; MariaDB: the comment was the identity, so it is kept, data intact,
// and no DROP is offered).
func TestAccTrust_tenantEditsItsDatabase(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			w, db, owner, grantee := s.trustTenant(t, "tedit", "delete")
			// What the owner's rights allow: on MariaDB, any comment (here
			// one of a claim mark's form); MySQL has no database comment, so
			// it changes its database's collation; PostgreSQL, a comment.
			edit := map[string]string{
				"mariadb":  "ALTER DATABASE " + s.ident(db) + " COMMENT 'tenantdb:00000000000000000000000000000000'",
				"mysql":    "ALTER DATABASE " + s.ident(db) + " COLLATE utf8mb4_bin",
				"postgres": "COMMENT ON DATABASE " + s.ident(db) + " IS 'mine now'",
			}[engine]
			if err := s.as(owner, trustOwnerPW, db, edit); err != nil {
				t.Fatalf("the owner cannot comment on its database (the event this test is about): %v", err)
			}

			// A plan (its refresh is not saved, so destroy below still
			// checks against what the apply recorded) forgets nothing.
			plan := w.run("plan", "-detailed-exitcode").mustSucceed(t, "an empty plan after the tenant's edit")
			if engine == "mariadb" {
				d := plan.requireDiag(t, "warning", "DriftDetected: ")
				if !strings.Contains(d.Detail, "edited in place") || !strings.Contains(d.Detail, "ALTER DATABASE") {
					t.Fatalf("the warning does not say the comment changed and how to restore it: %q", d.Detail)
				}
			}

			// -refresh=false: destroy itself must find what to revoke.
			destroy := w.run("destroy", "-auto-approve", "-refresh=false").mustSucceed(t, "destroy")
			if strings.Contains(destroy.Output, "DROP DATABASE") {
				t.Fatalf("destroy offered DROP DATABASE for a database it cannot prove it made:\n%s", destroy.Output)
			}
			if engine != "mariadb" {
				if s.databaseExists(t, db) {
					t.Fatal("destroy under delete kept a database whose identity (PostgreSQL: its OID; MySQL: the " +
						"server's, which a collation change does not touch) proves it is this resource's")
				}
			} else {
				destroy.requireDiag(t, "warning", "DatabaseDropSkipped: ")
				if n := s.tableRows(t, db); n != 1 {
					t.Fatalf("the tenant's table has %d rows after destroy, want 1 (kept, not dropped)", n)
				}
			}
			s.requireOffboarded(t, db, owner, trustOwnerPW, grantee)
			if s.loginExists(t, owner) {
				t.Fatal("destroy left the owner login, whose identity the comment does not touch")
			}
		})
	}
}

// TestAccTrust_ownerChangesItsPassword (item 5): the owner login sets its
// own password, as any login may. Its identity on MariaDB is the second its
// password was last set, so that alone would read as unproven; the owner
// mark its CREATE USER set (a per-hour update limit no login can change on
// itself) proves it: the plan is empty. PostgreSQL's identity (the OID) and
// MySQL's (a mark in the account's ATTRIBUTE) do not change. Everywhere,
// destroy drops the login and leaves the grantee nothing.
func TestAccTrust_ownerChangesItsPassword(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			w, db, owner, grantee := s.trustTenant(t, "tpass", "retain")
			s.ownerSetsItsPassword(t, engine, db, owner)
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "an empty plan after the owner set its own password")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			s.requireOffboarded(t, db, owner, trustOwnerNewPW, grantee)
			if s.loginExists(t, owner) {
				t.Fatal("destroy left the owner login, whose identity a password change does not defeat")
			}
		})
	}
}

// ownerSetsItsPassword: the owner login sets its own password to
// trustOwnerNewPW, as any login may.
func (s accServer) ownerSetsItsPassword(t *testing.T, kind, db, owner string) {
	t.Helper()
	own := map[string]string{
		"mariadb":  "SET PASSWORD = PASSWORD('" + trustOwnerNewPW + "')",
		"mysql":    "ALTER USER CURRENT_USER() IDENTIFIED BY '" + trustOwnerNewPW + "'",
		"postgres": "ALTER ROLE CURRENT_USER PASSWORD '" + trustOwnerNewPW + "'",
	}[kind]
	// MariaDB keeps password_last_changed in whole seconds: a change in the
	// second the apply set it is not seen (README's window).
	time.Sleep(1100 * time.Millisecond)
	if err := s.as(owner, trustOwnerPW, db, own); err != nil {
		t.Fatalf("the owner cannot set its own password (the event this test is about): %v", err)
	}
}

// TestAccTrust_unmarkedOwnerChangesItsPassword (item 5, MariaDB): an owner
// login without its owner mark (made by an earlier version, or a DBA reset
// its limit) sets its own password. Nothing then proves it is this
// resource's: the refresh keeps it in state (a warning, not forgetting);
// destroy revokes its privileges on the database, leaves the login with the
// exact DROP USER, and the login no longer reads the retained database.
func TestAccTrust_unmarkedOwnerChangesItsPassword(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "the owner mark MariaDB keeps in a login's resource limits, which a DBA can reset")
	w, db, owner, grantee := s.trustTenant(t, "tupass", "retain")
	s.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' WITH MAX_UPDATES_PER_HOUR 0", owner))
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "removing the mark changes nothing else")
	s.ownerSetsItsPassword(t, "mariadb", db, owner)
	plan := w.run("plan").mustSucceed(t, "plan")
	d := plan.requireDiag(t, "warning", "DriftDetected: ")
	if !strings.Contains(d.Detail, "its own password") {
		t.Fatalf("the warning does not say the login may have changed its own password: %q", d.Detail)
	}

	destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	s.requireOffboarded(t, db, owner, trustOwnerNewPW, grantee)
	if !s.loginExists(t, owner) {
		t.Fatal("destroy dropped a MariaDB login it cannot prove it made")
	}
	d = destroy.requireDiag(t, "warning", summaryLoginNotDropped)
	if want := fmt.Sprintf("DROP USER '%s'@'%%';", owner); !strings.Contains(d.Detail, want) || !strings.Contains(d.Detail, "revoked") {
		t.Fatalf("the warning does not say the privileges were revoked and give %s: %q", want, d.Detail)
	}
}

// restoreStatement finds the statement a diagnostic offers to give a
// MariaDB database its claim mark back.
var restoreStatement = regexp.MustCompile("ALTER DATABASE `[^`]+` COMMENT 'tenantdb:[0-9a-f]{32}';")

// TestAccTrust_dbaEditsComment (item 11, MariaDB): a DBA annotates the
// database's comment. The refresh keeps it (database_created included) and
// says exactly that, with the statement that restores the mark; an alter is
// refused (IdentityMismatch, the same statement, never DROP) and runs
// nothing; once a DBA runs the statement the database is proven again: the
// alter applies and destroy under "delete" drops it.
func TestAccTrust_dbaEditsComment(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "a MariaDB database's claim mark is its comment, which a DBA can edit")
	w, db := s.createdDatabase(t, "dbacmt")
	s.exec(t, "", "CREATE TABLE "+s.table(db, "t")+" (v int)", "INSERT INTO "+s.table(db, "t")+" VALUES (42)")
	s.exec(t, "", "ALTER DATABASE "+s.ident(db)+" COMMENT 'owned by team acme'")

	plan := w.run("plan").mustSucceed(t, "plan after the DBA's edit")
	plan.forbidDiag(t, "DatabasePreExists")
	if strings.Contains(plan.Output, "DROP DATABASE") || strings.Contains(plan.Output, "will be created") {
		t.Fatalf("the plan offers DROP DATABASE or a create for a database whose comment was edited:\n%s", plan.Output)
	}
	d := plan.requireDiag(t, "warning", "DriftDetected: ")
	if !strings.Contains(d.Detail, "edited in place") || !restoreStatement.MatchString(d.Detail) {
		t.Fatalf("the warning does not say the comment was edited and give the restore statement: %q", d.Detail)
	}
	if w.stateAttr("tenantdb_tenant_database", "database_created") != true {
		t.Fatal("database_created was lost")
	}

	w.write(s.serverHCL("") + deleteDatabaseHCL(db, `collation = "utf8mb4_bin"`))
	var proof noSQLProof
	s.beforeRefusal(t, &proof, "")
	refused := w.run("apply", "-auto-approve").mustFail(t, "an alter of an unproven database")
	proof.assert(t, "IdentityMismatch (unproven database)")
	r := refused.requireDiag(t, "error", "IdentityMismatch: ")
	stmt := restoreStatement.FindString(r.Detail)
	if stmt == "" || strings.Contains(r.Detail, "DROP") {
		t.Fatalf("the refusal does not give the restore statement, or offers a DROP: %q", r.Detail)
	}
	if c := s.schemaComment(t, db); c != "owned by team acme" {
		t.Fatalf("the refused apply changed the comment to %q", c)
	}

	s.exec(t, "", strings.TrimSuffix(stmt, ";")) // the DBA confirms it is the same database
	w.run("apply", "-auto-approve").mustSucceed(t, "the alter once the mark is restored")
	if _, co := s.charsetCollation(t, db); co != "utf8mb4_bin" {
		t.Fatalf("collation = %s after the alter, want utf8mb4_bin", co)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if s.databaseExists(t, db) {
		t.Fatal("destroy under delete did not drop the database once its mark was restored")
	}
}

// TestAccTrust_importedDatabaseGetsMark (item 12, MariaDB): a database
// imported with a comment of its own (empty on the other server) has no
// identity. The import's plan says the apply will write a claim mark and
// which comment it replaces, and writes nothing; the apply writes it. Then
// the server's address moved to another server with a database of the
// same name: the change is refused and that database is not altered.
func TestAccTrust_importedDatabaseGetsMark(t *testing.T) {
	a := testAccServerOnly(t, "mariadb", "a MariaDB database's claim mark is its comment: an import replaces the comment it had")
	b := secondServer(t, a)
	name := uniqueName("impmark")
	t.Cleanup(func() { a.dropDatabase(t, name) })
	a.foreignDatabase(t, name)
	b.foreignDatabase(t, name)
	a.exec(t, "", "ALTER DATABASE "+a.ident(name)+" COMMENT 'team acme'")
	bundle := a.CAPEM + b.CAPEM
	resourceHCL := fmt.Sprintf(`
import {
  to = tenantdb_tenant_database.t
  id = jsonencode({ server = tenantdb_db_server.main.ref, name = %q })
}
resource "tenantdb_tenant_database" "t" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, name, name)
	w := newCLIWorkspace(t)
	w.write(a.serverBlock(a.Port, bundle, "") + resourceHCL)

	var proof noSQLProof
	a.beforeRefusal(t, &proof, "")
	plan := w.run("plan").mustSucceed(t, "plan the import")
	proof.assert(t, "the import's plan only reads")
	d := plan.requireDiag(t, "warning", summaryMarkPlanned)
	if !strings.Contains(d.Detail, `"team acme"`) {
		t.Fatalf("the plan does not say which comment the mark replaces: %q", d.Detail)
	}
	if c := a.schemaComment(t, name); c != "team acme" {
		t.Fatalf("the plan changed the comment to %q", c)
	}

	apply := w.run("apply", "-auto-approve").mustSucceed(t, "import and mark")
	apply.requireDiag(t, "warning", summaryCommentReplaced)
	if c := a.schemaComment(t, name); !regexp.MustCompile(`^tenantdb:[0-9a-f]{32}$`).MatchString(c) {
		t.Fatalf("the first apply after the import wrote no claim mark: comment = %q", c)
	}
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "the plan after the mark is empty")
	a.requireForeignIntact(t, name)

	_, before := b.charsetCollation(t, name)
	w.write(a.serverBlock(b.Port, bundle, "") + strings.Replace(resourceHCL, `name   = `, `collation = "utf8mb4_bin"
  name   = `, 1))
	var onB noSQLProof
	b.beforeRefusal(t, &onB, "")
	move := w.run("apply", "-auto-approve").mustFail(t, "moving onto another server's database of that name")
	onB.assert(t, "IdentityMismatch (move of an imported database)")
	move.requireDiag(t, "error", "IdentityMismatch: ")
	if _, after := b.charsetCollation(t, name); after != before {
		t.Fatalf("the other server's database was altered: collation %s -> %s", before, after)
	}
	if c := b.schemaComment(t, name); c != "" {
		t.Fatalf("the other server's database comment was changed to %q", c)
	}
	b.requireForeignIntact(t, name)
}

// TestAccTrust_unmarkedImportMoveRefused (item 12, MariaDB): an imported
// database moved in the same apply as its import (no apply has marked it)
// is refused at the new address: its empty comment proves nothing.
func TestAccTrust_unmarkedImportMoveRefused(t *testing.T) {
	a := testAccServerOnly(t, "mariadb", "a MariaDB database's claim mark is its comment, which no apply has written on an imported one yet")
	b := secondServer(t, a)
	name := uniqueName("impmove")
	t.Cleanup(func() { a.dropDatabase(t, name) })
	a.foreignDatabase(t, name)
	b.foreignDatabase(t, name)
	bundle := a.CAPEM + b.CAPEM
	w := newCLIWorkspace(t)
	w.write(a.serverBlock(a.Port, bundle, "") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, name))
	if out, err := tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "import", "tenantdb_tenant_database.t",
		a.importID(map[string]any{"name": name})); err != nil {
		t.Fatalf("terraform import: %v\n%s", err, out)
	}
	w.write(a.serverBlock(b.Port, bundle, "") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server    = tenantdb_db_server.main.ref
  name      = %q
  collation = "utf8mb4_bin"
}
`, name))
	_, before := b.charsetCollation(t, name)
	var onB noSQLProof
	b.beforeRefusal(t, &onB, "")
	move := w.run("apply", "-auto-approve", "-refresh=false").mustFail(t, "moving an unmarked import")
	onB.assert(t, "IdentityMismatch (move of an unmarked import)")
	d := move.requireDiag(t, "error", "IdentityMismatch: ")
	if !strings.Contains(d.Detail, "no claim mark") {
		t.Fatalf("the refusal does not say the imported database has no mark yet: %q", d.Detail)
	}
	if _, after := b.charsetCollation(t, name); after != before {
		t.Fatalf("the other server's database was altered: collation %s -> %s", before, after)
	}
	if c := a.schemaComment(t, name); c != "" {
		t.Fatalf("the old server's database was marked during a refused move: %q", c)
	}
}

// TestAccTrust_preExistingOwnerNamesDatabase (item 13, MariaDB): an owner
// whose login exists is refused PreExistingOwnerUser naming the database,
// and the import block it gives works as written once its placeholders are
// filled in.
func TestAccTrust_preExistingOwnerNamesDatabase(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "the refusal's import block is run as written on MariaDB; the refusal itself is tested on every kind (TestAccTenantOwner_refusals)")
	db, user := uniqueName("preown"), uniqueName("preowno")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	s.principal(t, user)
	cfg := s.serverHCL("") + ownerHCL(db, user, trustOwnerPW, 1, "")
	w := newCLIWorkspace(t)
	w.write(cfg)
	r := w.run("apply", "-auto-approve").mustFail(t, "an owner over an existing login")
	d := r.requireDiag(t, "error", "PreExistingOwnerUser: ")
	if strings.Contains(d.Detail, `database ""`) || !strings.Contains(d.Detail, fmt.Sprintf("database = %q", db)) {
		t.Fatalf("the refusal does not name the database: %q", d.Detail)
	}
	block := regexp.MustCompile(`(?s)import \{.*?\n  \}`).FindString(d.Detail)
	if block == "" {
		t.Fatalf("no import block in the refusal: %q", d.Detail)
	}
	block = strings.NewReplacer("<this resource>", "o", "<server>", "main").Replace(block)
	w.write(cfg + block + "\n")
	w.run("apply", "-auto-approve").mustSucceed(t, "the import block as the refusal gives it")
	if w.stateAttr("tenantdb_tenant_owner", "user_created") != false {
		t.Fatal("the adopted login is recorded as created")
	}
}

// TestAccTrust_passwordPolicyOnBump (item 13, MariaDB, a server of its
// own with simple_password_check): a password_wo_version bump to a password
// the policy's variables refuse fails at plan; one only the server can
// judge fails at apply with MariaDB's 1396 explained as the policy, with
// its settings; the login keeps its old password.
func TestAccTrust_passwordPolicyOnBump(t *testing.T) {
	s := secondServer(t, testAccServerOnly(t, "mariadb", "MariaDB's simple_password_check plugin and its 1396 (MySQL's validate_password: TestAccMySQL_serverSettings)"))
	s.exec(t, "", "INSTALL SONAME 'simple_password_check'")
	db, user := uniqueName("polb"), uniqueName("polbo")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	strong := "Str0ng-Passw0rd!"
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, user, strong, 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "create with a strong password")
	// What the policy's variables decide, the plan refuses (issue 57).
	w.write(s.serverHCL("") + ownerHCL(db, user, "weak", 2, ""))
	r := w.run("plan").mustFail(t, "the plan of a bump to a weak password")
	if d := r.requireDiag(t, "error", summaryPasswordPolicy); !strings.Contains(d.Detail, "simple_password_check_minimal_length = 8") {
		t.Fatalf("the plan's refusal does not name the setting the password fails: %q", d.Detail)
	}
	// What they cannot (the character classes of a password that is not
	// ASCII: the server's own), the server refuses at apply: no digit.
	w.write(s.serverHCL("") + ownerHCL(db, user, "ééééééé-Ü", 2, ""))
	r = w.run("apply", "-auto-approve").mustFail(t, "a bump to a password without a digit")
	if !strings.Contains(r.Output, "password policy") || !strings.Contains(r.Output, "1396") ||
		!strings.Contains(r.Output, "simple_password_check_minimal_length") {
		t.Fatalf("the error does not say the policy refused the password (with MariaDB's 1396 and the settings):\n%s", r.Output)
	}
	if err := s.as(user, strong, db, "SELECT 1"); err != nil {
		t.Fatalf("the owner lost its old password after a refused bump: %v", err)
	}
}
