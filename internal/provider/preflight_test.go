// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The plan-time preflight (preflight.go, dbclient/tenant/preflight.go):
// `terraform plan` reports what the apply would refuse, before anything is
// made, every refusal of the plan at once, from reads only.

// preflightOwnerHCL is an owner block of database (an HCL expression).
func preflightOwnerHCL(label, database, user, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_owner" %q {
  server              = tenantdb_db_server.main.ref
  database            = %s
  username            = %q
  password_wo         = "Preflight-Pass-1"
  password_wo_version = 1
%s
}
`, label, database, user, extra)
}

// TestAccPreflight_planRefuses: one plan reports every refusal its creates
// would meet at apply (a taken database name, an existing login, a second
// owner, a character set and a host form the server does not take), with
// their reasons, and a grant's missing principal as a warning; it exits 1,
// the server's catalog is unchanged and the admin sent no DDL. The same
// configuration, fixed, applies. A plan against a server whose host is not
// known yet succeeds and its apply refuses; a saved plan made before a
// database was made by hand is refused at apply, nothing made; a server
// that cannot be reached warns and the plan goes on.
func TestAccPreflight_planRefuses(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "the preflight reads the same catalog and logins snapshots on every release of an engine")
			s := testAccServer(t, kind)
			mysqlish := s.Engine == "mysql"
			taken, fresh, own, later := uniqueName("pf_taken"), uniqueName("pf_fresh"), uniqueName("pf_own"), uniqueName("pf_later")
			takenLogin, ownA, ownB, freshOwner := uniqueName("pf_login"), uniqueName("pf_a"), uniqueName("pf_b"), uniqueName("pf_fo")
			t.Cleanup(func() { s.dropLogins(t, ownA, ownB, freshOwner) })
			t.Cleanup(func() { s.dropDatabase(t, taken, fresh, own, later) })
			s.CreateLogin(t, takenLogin, "Taken-Pass-1")
			s.exec(t, "", "CREATE DATABASE "+s.ident(taken))

			w := newCLIWorkspace(t)
			base := s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "own" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, own) + preflightOwnerHCL("a", "tenantdb_tenant_database.own.name", ownA, "")
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "the first apply (a database and its owner)")

			refusing := base + fmt.Sprintf(`
resource "tenantdb_tenant_database" "taken" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_database" "fresh" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, taken, fresh) +
				preflightOwnerHCL("taken", "tenantdb_tenant_database.fresh.name", takenLogin, "") +
				preflightOwnerHCL("second", "tenantdb_tenant_database.own.name", ownB, "") +
				grantHCL("ghost", "tenantdb_tenant_database.own.name", uniqueName("pf_ghost"), `["SELECT"]`, "")
			want := []string{"DatabasePreExists", "PreExistingOwnerUser", "OwnerConflict"}
			if mysqlish {
				refusing += `
resource "tenantdb_tenant_database" "badcs" {
  server        = tenantdb_db_server.main.ref
  name          = "pf_badcs"
  character_set = "nosuchcs"
}
`
				want = append(want, `InvalidIdentifier: character set "nosuchcs"`)
			}
			if s.Flavor == testserver.FlavorMariaDB {
				refusing += preflightOwnerHCL("cidr", `"pf_cidr_db"`, "pf_cidr", `  host = "10.20.0.0/16"`)
				want = append(want, "InvalidIdentifier: host")
			}
			w.write(refusing)
			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			plan := w.run("plan").mustFail(t, "a plan of creates the apply would refuse")
			proof.assert(t, "the refused plan")
			for _, reason := range want {
				plan.requireDiag(t, "error", reason)
			}
			if d := plan.requireDiag(t, "warning", "GrantUserMissing"); !strings.Contains(d.Detail, "may create it") {
				t.Fatalf("the missing principal's warning does not say the apply may still create it: %q", d.Detail)
			}
			if d := plan.requireDiag(t, "error", "DatabasePreExists"); !strings.Contains(d.Detail, "import {") || !strings.Contains(d.Detail, "found at plan time") {
				t.Fatalf("DatabasePreExists at plan gives no import block or does not say it was found at plan time: %q", d.Detail)
			}

			// Fixed: a new owner name, no second owner, an existing principal.
			fixed := base + fmt.Sprintf(`
resource "tenantdb_tenant_database" "fresh" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, fresh) + preflightOwnerHCL("fresh", "tenantdb_tenant_database.fresh.name", freshOwner, "") +
				grantHCL("g", "tenantdb_tenant_database.fresh.name", takenLogin, `["SELECT"]`, "")
			w.write(fixed)
			w.run("apply", "-auto-approve").mustSucceed(t, "the fixed configuration")
			if !s.databaseExists(t, fresh) || !s.loginExists(t, freshOwner) {
				t.Fatal("the fixed configuration's apply did not make its database and owner")
			}

			// A saved plan, then a database made by hand with its name: the
			// apply refuses it and makes nothing.
			w.write(fixed + fmt.Sprintf(`
resource "tenantdb_tenant_database" "later" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, later))
			w.run("plan", "-out=tfplan").mustSucceed(t, "a saved plan of one more database")
			s.exec(t, "", "CREATE DATABASE "+s.ident(later))
			s.beforeRefusal(t, &proof, "")
			// (-json before the plan file: run puts it last.)
			saved := cliResultOf(tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "apply", "-json", "tfplan"))
			saved.mustFail(t, "the saved plan's apply after the name was taken").requireDiag(t, "error", "DatabasePreExists")
			proof.assert(t, "the saved plan's refused apply")
			// The configuration still declares the database the preflight
			// refuses, and a destroy is not stopped by it: the provider
			// binary reads from terraform's command line that the plan
			// before the destroy plan is a destroy's (terraform_command.go;
			// the other CLI tests serve their destroys in-process and tell
			// the provider so).
			w.inOwnProcess().run("destroy", "-auto-approve").mustSucceed(t, "destroy with the refused database still declared")
			if s.loginExists(t, freshOwner) {
				t.Fatalf("the destroy left the owner %s", freshOwner)
			}

			// A server whose host is known only after apply: the plan checks
			// nothing and succeeds; the apply checks and refuses.
			u := newCLIWorkspace(t)
			u.write(caCertsHCL(map[string]string{s.name: s.CAPEM}) + fmt.Sprintf(`
resource "terraform_data" "host" {
  input = %q
}
resource "tenantdb_db_server" "main" {
  name     = %q
  engine   = %q
  host     = terraform_data.host.output
  port     = %d
  username = %q
  tls      = "verify-full"
}
resource "tenantdb_tenant_database" "taken" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
`, s.Host, s.name, s.Engine, s.Port, s.Admin.Username, taken))
			u.run("plan").mustSucceed(t, "a plan against a server created in the same configuration").forbidDiag(t, "DatabasePreExists")
			u.run("apply", "-auto-approve").mustFail(t, "its apply").requireDiag(t, "error", "DatabasePreExists")

			// A new server whose admin lacks a right: MissingAdminRights
			// from the plan, with the statements that grant it.
			weakName := uniqueName("pf_weak")
			weak := s.CreateLogin(t, weakName, "weak-Pass-1", weakGrants(s.Engine, weakName)...)
			weakServer := s.name + "_weak" // its own password variable
			envMu.Lock()
			os.Setenv(AdminPasswordEnv(weakServer), weak.Password)
			envMu.Unlock()
			x := newCLIWorkspace(t)
			x.write(caCertsHCL(map[string]string{weakServer: s.CAPEM}) + strings.Replace(s.serverResourceHCL("main", weakServer, s.Port, ""),
				fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", weak.Username), 1) +
				tenantDatabaseHCL(uniqueName("pf_weakdb"), ""))
			s.beforeRefusal(t, &proof, weak.Username)
			if d := x.run("plan").mustFail(t, "a plan of a server whose admin lacks rights").requireDiag(t, "error", "MissingAdminRights"); !strings.Contains(d.Detail, "GRANT") && !strings.Contains(d.Detail, "ALTER ROLE") {
				t.Fatalf("MissingAdminRights at plan gives no statement: %q", d.Detail)
			}
			proof.assert(t, "MissingAdminRights at plan")

			// A server that cannot be reached: a warning, and the plan goes on.
			v := newCLIWorkspace(t)
			v.write(s.serverHCLAt(closedPort(t), "") + tenantDatabaseHCL(uniqueName("pf_down"), ""))
			down := v.run("plan").mustSucceed(t, "a plan of creates on a server that cannot be reached")
			if d := down.requireDiag(t, "warning", summaryPreflightSkipped); !strings.Contains(d.Detail, "the apply connects again") {
				t.Fatalf("the warning does not say the apply checks: %q", d.Detail)
			}
		})
	}
}
