// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestAccSecrets_ownerPasswordNowhere: every owner password used (create,
// a version-bump rotation, a username rotation) is found in no plan, no
// state and no TRACE log, in any escaped form or digest; the owner logs in
// with exactly each hostile password, so the searches look for what the
// server really received. On MySQL/MariaDB the username rotation also
// moves the login to host 127.0.0.1 (issue 46).
func TestAccSecrets_ownerPasswordNowhere(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user, user2 := uniqueName("osec"), uniqueName("app"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user, user2)
				if s.Engine != "postgres" {
					s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'127.0.0.1'", user2))
				}
			})
			pw1 := `Own3r-'one'-\"x\"-` + "`%_$\n" + `ünï`
			pw2 := `Own3r-two-''\\` + "?;--"
			secrets := []string{pw1, pw2}
			logs := t.TempDir()
			t.Setenv("TF_ACC_LOG", "TRACE")
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_ACC_LOG_PATH", filepath.Join(logs, "terraform.log"))

			hcl := func(u string, version int) string {
				host := ""
				if u == user2 && s.Engine != "postgres" {
					// The username rotation also moves the login to a host
					// (issue 46): the secrets stay out of every plan, state,
					// log and statement log all the same.
					host = `  host = "127.0.0.1"`
				}
				return `
variable "owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
` + s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.db.name
  username            = %q
  password_wo         = var.owner_password
  password_wo_version = %d
%s
}
`, db, u, version, host)
			}
			logMark := s.MarkLog(t)
			rec := &scanRecord{}
			planScan := noSecretInPlan{secrets, rec}
			plans := resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{planScan},
				PostApplyPostRefresh: []plancheck.PlanCheck{planScan},
			}
			states := []statecheck.StateCheck{noSecretInState{secrets, user2, rec}}
			step := func(u string, version int, pw string, check func() error) resource.TestStep {
				st := resource.TestStep{
					Config:           hcl(u, version),
					ConfigVariables:  config.Variables{"owner_password": config.StringVariable(pw)},
					ConfigPlanChecks: plans,
					Check:            s.check(check),
				}
				if u == user2 {
					st.ConfigStateChecks = states
				}
				return st
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				Steps: []resource.TestStep{
					step(user, 1, pw1, func() error { return s.as(user, pw1, db, "SELECT 1") }),
					step(user, 2, pw2, func() error { return s.as(user, pw2, db, "SELECT 1") }),
					step(user2, 2, pw2, func() error {
						if s.Engine == "mysql" {
							var stored string
							if err := s.super(t, "").QueryRow(`SELECT authentication_string FROM mysql.user WHERE User = ?`, user2).Scan(&stored); err != nil {
								return err
							}
							// MySQL 9: a salted caching_sha2_password hash (see secrets_test.go).
							if (s.Flavor == "mysql" && !strings.HasPrefix(stored, "$A$")) || (s.Flavor != "mysql" && stored != mysqlNativeHash(pw2)) {
								return fmt.Errorf("the server stores the owner password as %.3s…, not as the native hash searched for", stored)
							}
						}
						return s.as(user2, pw2, db, "SELECT 1")
					}),
				},
			})
			if rec.plans < 5 || rec.states < 1 {
				t.Fatalf("searched %d plans and %d states, want at least 5 and 1", rec.plans, rec.states)
			}
			var searched int
			var sawPassword bool
			filepath.Walk(logs, func(p string, info os.FileInfo, err error) error {
				if err != nil || info.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				searched += len(b)
				sawPassword = sawPassword || strings.Contains(string(b), "[redacted]")
				if l := leak(string(b), secrets...); l != "" {
					t.Errorf("%s contains %s", p, l)
				}
				return nil
			})
			if !sawPassword || searched < 10000 {
				t.Fatalf("the TRACE logs (%d bytes) never show a redacted password statement: the search proves nothing", searched)
			}
			s.scanStatementLog(t, logMark, secrets)
		})
	}
}

// scanStatementLog searches what the server itself logged of the admin's
// statements since mark (create, both rotations, destroy) for the
// passwords and their digests. The password never reaches the server:
// PostgreSQL receives a SCRAM verifier, MariaDB the mysql_native_password
// hash it stores (which the MariaDB search must find, proving it reads
// the password statements).
func (s accServer) scanStatementLog(t *testing.T, mark testserver.LogMark, secrets []string) {
	t.Helper()
	stmts, err := s.StatementsSince(context.Background(), mark, s.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	setsPassword := 0
	for _, st := range stmts {
		log.WriteString(st.Text + "\n")
		if u := strings.ToUpper(st.Text); strings.Contains(u, "PASSWORD") || strings.Contains(u, "IDENTIFIED") {
			setsPassword++
		}
	}
	if setsPassword < 3 {
		t.Fatalf("the server logged %d password statements of the admin, want at least 3 (create and two rotations): the search proves nothing", setsPassword)
	}
	sawHash := false
	for _, pw := range secrets {
		for needle, what := range secretNeedles(pw) {
			if !strings.Contains(log.String(), needle) {
				continue
			}
			if s.Engine != "postgres" && needle == mysqlNativeHash(pw) {
				sawHash = true
				continue
			}
			t.Fatalf("the server's statement log holds %s", what)
		}
	}
	switch {
	case s.Flavor == "mysql":
		// MySQL rewrites a password in the general log as <secret>: that
		// shows the search read the password statements.
		if !strings.Contains(log.String(), "<secret>") {
			t.Fatal("MySQL's general log shows no rewritten password (<secret>): the search found no password statement")
		}
	case s.Engine != "postgres" && !sawHash:
		t.Fatal("MariaDB's general log shows no native hash of a password: the search found no password statement")
	}
	t.Logf("searched %d statements (%d bytes) in the server's own log: no password, no MD5/SHA-1/SHA-256 digest of one", len(stmts), log.Len())
}
