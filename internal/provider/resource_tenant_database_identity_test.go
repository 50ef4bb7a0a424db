// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// Identity: database_created means this object, not this name. These tests
// run the real terraform CLI (cliWorkspace) because they need what
// terraform-plugin-testing cannot do: -refresh=false, edited state, and
// the warnings themselves.

// foreignDatabase creates a database out of band, as another party would,
// with one table holding one row.
func (s accServer) foreignDatabase(t *testing.T, name string) {
	t.Helper()
	s.exec(t, "", "CREATE DATABASE "+s.ident(name))
	table := "t"
	if s.Engine != "postgres" {
		table = s.ident(name) + ".t"
	}
	s.exec(t, name, "CREATE TABLE "+table+" (v int)", "INSERT INTO "+table+" VALUES (42)")
}

// foreignRows counts the rows of the table foreignDatabase made; -1 when
// the database or the table is gone.
func (s accServer) foreignRows(t *testing.T, name string) int {
	t.Helper()
	if !s.databaseExists(t, name) {
		return -1
	}
	table := "t"
	if s.Engine != "postgres" {
		table = s.ident(name) + ".t"
	}
	var n int
	if err := s.super(t, name).QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		return -1
	}
	return n
}

func (s accServer) requireForeignIntact(t *testing.T, name string) {
	t.Helper()
	if n := s.foreignRows(t, name); n != 1 {
		t.Fatalf("the foreign database %s lost its data (rows = %d, want 1)", name, n)
	}
}

// createdDatabase applies, through the CLI, a database under
// deletion_policy = "delete" that this resource created.
func (s accServer) createdDatabase(t *testing.T, prefix string) (*cliWorkspace, string) {
	t.Helper()
	name := uniqueName(prefix)
	t.Cleanup(func() { s.dropDatabase(t, name) })
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + deleteDatabaseHCL(name, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	return w, name
}

func deleteDatabaseHCL(name, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
%s
}
`, name, extra)
}

// TestAccTenantDatabase_replacedOutOfBand: the database is dropped and
// re-created by someone else. The refresh warns DriftDetected and forgets
// it; the next apply refuses it (DatabasePreExists); destroy drops nothing.
// MariaDB cannot tell this from an edited comment, nor MySQL from a mark
// its tenant dropped: they keep it (Unproven).
func TestAccTenantDatabase_replacedOutOfBand(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			w, name := s.createdDatabase(t, "replaced")

			s.dropDatabase(t, name)
			s.foreignDatabase(t, name)

			plan := w.run("plan")
			drift := plan.requireDiag(t, "warning", "DriftDetected: ")
			if engine != "postgres" {
				// A MariaDB database's identity is its comment, which its tenant
				// and any DBA may rewrite; a MySQL one's its mark procedure, which
				// its tenant may drop: a re-created one is Unproven, kept in
				// state (database_created too), never altered or dropped.
				if !strings.Contains(drift.Detail, name) || !strings.Contains(drift.Detail, "re-created outside Terraform") {
					t.Fatalf("DriftDetected detail does not name the database and the reason: %q", drift.Detail)
				}
				w.run("apply", "-auto-approve").mustSucceed(t, "apply over an unproven database").forbidDiag(t, "DatabasePreExists")
				if w.stateAttr("tenantdb_tenant_database", "database_created") != true {
					t.Fatal("database_created was lost")
				}
				w.run("destroy", "-auto-approve").mustSucceed(t, "destroy").requireDiag(t, "warning", "DatabaseDropSkipped: ")
				s.requireForeignIntact(t, name)
				return
			}
			if !strings.Contains(drift.Detail, name) || !strings.Contains(drift.Detail, "not the one this resource created") {
				t.Fatalf("DriftDetected detail does not name the database and the reason: %q", drift.Detail)
			}
			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			apply := w.run("apply", "-auto-approve")
			proof.assertOnly(t, "DatabasePreExists over a replaced database", "CREATE DATABASE")
			if apply.Err == nil {
				t.Fatalf("apply over a replaced database succeeded:\n%s", apply.Output)
			}
			apply.requireDiag(t, "error", "DatabasePreExists: ")
			s.requireForeignIntact(t, name)
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			s.requireForeignIntact(t, name)
		})
	}
}

// TestAccTenantDatabase_dropChecksIdentity: destroy without a refresh
// still checks identity right before DROP: a replaced database is not
// dropped (DatabaseDropSkipped), and the resource leaves state.
func TestAccTenantDatabase_dropChecksIdentity(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			w, name := s.createdDatabase(t, "dropid")

			s.dropDatabase(t, name)
			s.foreignDatabase(t, name)

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			destroy := w.run("destroy", "-auto-approve", "-refresh=false").mustSucceed(t, "destroy")
			proof.assert(t, "DatabaseDropSkipped (replaced database)")
			skipped := destroy.requireDiag(t, "warning", "DatabaseDropSkipped: the database was not dropped")
			if !strings.Contains(skipped.Detail, name) {
				t.Fatalf("DatabaseDropSkipped detail does not name the database: %q", skipped.Detail)
			}
			s.requireForeignIntact(t, name)
		})
	}
}

// TestAccTenantDatabase_alterChecksIdentity: an in-place change planned
// without a refresh alters nothing that is not the recorded database: a
// dropped one is reported gone (not the server's raw error), a replaced
// one is refused (IdentityMismatch) with its settings untouched.
func TestAccTenantDatabase_alterChecksIdentity(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "PostgreSQL alters no database setting in place (a change replaces the database); MySQL's case is TestAccMySQLIdentity_markRestoredByDBA")
	name := uniqueName("alterid")
	t.Cleanup(func() { s.dropDatabase(t, name) })
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + deleteDatabaseHCL(name, `collation = "utf8mb4_unicode_ci"`))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	s.dropDatabase(t, name)

	w.write(s.serverHCL("") + deleteDatabaseHCL(name, `collation = "utf8mb4_bin"`))
	gone := w.run("apply", "-auto-approve", "-refresh=false")
	if gone.Err == nil {
		t.Fatalf("altering a dropped database succeeded:\n%s", gone.Output)
	}
	d := gone.requireDiag(t, "error", "Could not alter database")
	if !strings.Contains(d.Detail, "no longer exists") || strings.Contains(d.Detail, "db.opt") {
		t.Fatalf("the error should say the database is gone, not the server's raw message: %q", d.Detail)
	}

	s.foreignDatabase(t, name)
	_, before := s.charsetCollation(t, name)
	var proof noSQLProof
	s.beforeRefusal(t, &proof, "")
	replaced := w.run("apply", "-auto-approve", "-refresh=false")
	proof.assert(t, "IdentityMismatch (alter of a replaced database)")
	if replaced.Err == nil {
		t.Fatalf("altering a replaced database succeeded:\n%s", replaced.Output)
	}
	replaced.requireDiag(t, "error", "IdentityMismatch: ")
	if _, after := s.charsetCollation(t, name); after != before {
		t.Fatalf("the foreign database's collation changed from %s to %s", before, after)
	}
	s.requireForeignIntact(t, name)
}

// TestAccTenantDatabase_legacyState: state written before identities
// existed (no private identity) is never trusted to mean "ours": the next
// refresh records the identity, clears database_created with a warning, and
// destroy then drops nothing.
func TestAccTenantDatabase_legacyState(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			w, name := s.createdDatabase(t, "legacy")
			w.editState(func(st map[string]any) {
				for _, i := range instances(st, "tenantdb_tenant_database") {
					if i["private"] == nil {
						t.Fatal("the provider recorded no private identity")
					}
					delete(i, "private")
				}
			})
			refresh := w.run("apply", "-refresh-only", "-auto-approve").mustSucceed(t, "refresh")
			refresh.requireDiag(t, "warning", "Identity recorded: database_created is now false")
			if got := w.stateAttr("tenantdb_tenant_database", "database_created"); got != false {
				t.Fatalf("database_created = %v after the upgrade, want false", got)
			}
			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			proof.assert(t, "DatabaseDropSkipped (legacy state)")
			destroy.requireDiag(t, "warning", "DatabaseDropSkipped: ")
			if !s.databaseExists(t, name) {
				t.Fatal("destroy dropped a database whose identity was never proven")
			}
		})
	}
}

// secondServer starts another server of s's engine whose admin has the same
// password as s's, so one db_server "main" can be pointed at either.
func secondServer(t *testing.T, s accServer) accServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other, err := testserver.StartKind(ctx, s.Kind())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Stop() })
	b := accServer{Server: other, name: s.name}
	if s.Engine == "postgres" {
		b.exec(t, "", fmt.Sprintf("ALTER ROLE %s PASSWORD '%s'", s.Admin.Username, s.Admin.Password))
	} else {
		b.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' IDENTIFIED BY '%s'", s.Admin.Username, s.Admin.Password))
	}
	other.Admin.Password = s.Admin.Password // the harness logs in as the admin too
	return b
}

// TestAccTenantDatabase_moveChecksIdentity: a changed server address is
// accepted only when the recorded database is found there with the same
// identity. Pointed at another server holding a database of that name, the
// apply is refused (IdentityMismatch, naming both addresses), state keeps
// the old address, and destroy later drops the right database. A proxy in
// front of the same server (a DNS change) is accepted.
func TestAccTenantDatabase_moveChecksIdentity(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			a := testAccServer(t, engine)
			b := secondServer(t, a)
			name := uniqueName("moved")
			t.Cleanup(func() { a.dropDatabase(t, name) })
			b.foreignDatabase(t, name)
			resourceHCL := deleteDatabaseHCL(name, "")
			// One CA bundle that verifies both servers: only the address changes.
			bundle := a.CAPEM + b.CAPEM
			w := newCLIWorkspace(t)
			w.write(a.serverBlock(a.Port, bundle, "") + resourceHCL)
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			w.write(a.serverBlock(b.Port, bundle, "") + resourceHCL)
			var onA, onB noSQLProof
			a.beforeRefusal(t, &onA, "")
			b.beforeRefusal(t, &onB, "")
			move := w.run("apply", "-auto-approve")
			onA.assert(t, "IdentityMismatch (move), old server")
			onB.assert(t, "IdentityMismatch (move), new server")
			if move.Err == nil {
				t.Fatalf("moving onto another server's database succeeded:\n%s", move.Output)
			}
			d := move.requireDiag(t, "error", "IdentityMismatch: ")
			if !strings.Contains(d.Detail, fmt.Sprintf(":%d", a.Port)) || !strings.Contains(d.Detail, fmt.Sprintf(":%d", b.Port)) {
				t.Fatalf("IdentityMismatch does not name both addresses: %q", d.Detail)
			}
			server := w.stateServer("tenantdb_tenant_database")
			if int(server.Port) != a.Port {
				t.Fatalf("state's port = %v after a refused move, want %d", server.Port, a.Port)
			}
			b.requireForeignIntact(t, name)

			proxy := newTCPProxy(t, a.Host, a.Port)
			w.write(a.serverBlock(proxy.port, bundle, "") + resourceHCL)
			var accepted noSQLProof
			a.beforeRefusal(t, &accepted, "")
			w.run("apply", "-auto-approve").mustSucceed(t, "move behind a proxy (same server)")
			accepted.assert(t, "an accepted move runs no DDL")
			server = w.stateServer("tenantdb_tenant_database")
			if int(server.Port) != proxy.port {
				t.Fatalf("state's port = %v after an accepted move, want %d", server.Port, proxy.port)
			}

			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			if a.databaseExists(t, name) {
				t.Fatal("destroy did not drop the database this resource created")
			}
			b.requireForeignIntact(t, name)
		})
	}
}

// TestAccTenantDatabase_importUnreachable: importing needs the server; when
// it cannot be reached the error names the server and says so (not
// "Provider produced invalid object").
func TestAccTenantDatabase_importUnreachable(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipOnStandIn(t, engine, "an unreachable server: no release answers")
			s := testAccServer(t, engine)
			name := uniqueName("impdown")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			s.exec(t, "", "CREATE DATABASE "+s.ident(name))
			proxy := newTCPProxy(t, s.Host, s.Port)
			proxy.Down()
			id := strings.Replace(s.importID(map[string]any{"name": name}), fmt.Sprintf(`"port":%d`, s.Port), fmt.Sprintf(`"port":%d`, proxy.port), 1)
			w := newCLIWorkspace(t)
			w.write(fmt.Sprintf("import {\n  to = tenantdb_tenant_database.t\n  id = %q\n}\nresource \"tenantdb_tenant_database\" \"t\" {\n  server = %s\n  name = %q\n}\n",
				id, "jsonencode(jsondecode("+fmt.Sprintf("%q", id)+").server)", name))
			plan := w.run("plan")
			if plan.Err == nil {
				t.Fatalf("importing from an unreachable server succeeded:\n%s", plan.Output)
			}
			d := plan.requireDiag(t, "error", "PrimaryUnavailable: ")
			if !strings.Contains(d.Summary, s.name) || !strings.Contains(d.Detail, "the server must be reachable to import") {
				t.Fatalf("the import error should name the server and say it must be reachable: %q\n%s", d.Summary, d.Detail)
			}
			plan.forbidDiag(t, "Provider produced invalid object")
		})
	}
}
