// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// tenantdb_tenant_grant against the real servers through the real
// terraform CLI, as the minimal-rights admin. What a grant means is proven
// by logging in as the principal; what the server holds is read as the
// superuser (grantResidue).

const principalPW = "Maester-pw-1"

// grantHCL declares a grant resource. database is an HCL expression.
func grantHCL(label, database, user, privileges, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_grant" %q {
  server     = tenantdb_db_server.main.ref
  database   = %s
  username   = %q
  privileges = %s
%s
}
`, label, database, user, privileges, extra)
}

// ownerGrantHCL is a tenant database, its owner and a grant to user,
// depending on the owner (PostgreSQL default privileges are the owner's).
func ownerGrantHCL(db, owner, user, privileges string) string {
	return ownerHCL(db, owner, "Owner-pw-1", 1, "") +
		grantHCL("g", "tenantdb_tenant_database.db.name", user, privileges, "  depends_on = [tenantdb_tenant_owner.o]")
}

// principal creates a principal out of band (as someone else would), with
// nothing on any database.
func (s accServer) principal(t *testing.T, name string) {
	t.Helper()
	s.CreateLogin(t, name, principalPW)
}

// grantResidue is everything user holds on db by the superuser's reading:
// MySQL/MariaDB its mysql.db row for the (escaped) name, every privilege
// column, Grant_priv included; PostgreSQL every ACL entry naming it in db
// (database, schemas, relations, default privileges), "*" marking a grant
// option.
func (s accServer) grantResidue(t *testing.T, db, user string) []string {
	t.Helper()
	var out []string
	if s.Engine != "postgres" {
		pattern := strings.NewReplacer(`_`, `\_`, `%`, `\%`).Replace(db)
		rows, err := s.super(t, "").Query(`SELECT * FROM mysql.db WHERE Host = '%' AND User = ? AND Db = ?`, user, pattern)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, c := range cols {
				if b, ok := vals[i].([]byte); ok && strings.HasSuffix(c, "_priv") && string(b) == "Y" {
					out = append(out, c)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	rows, err := s.super(t, db).Query(`
WITH g AS (SELECT oid FROM pg_roles WHERE rolname = $1)
SELECT 'database ' || a.privilege_type || CASE WHEN a.is_grantable THEN '*' ELSE '' END
  FROM pg_database d, aclexplode(d.datacl) a, g WHERE d.datname = current_database() AND a.grantee = g.oid
UNION ALL SELECT 'schema ' || n.nspname || ' ' || a.privilege_type || CASE WHEN a.is_grantable THEN '*' ELSE '' END
  FROM pg_namespace n, aclexplode(n.nspacl) a, g WHERE a.grantee = g.oid
UNION ALL SELECT 'table ' || c.relname || ' ' || a.privilege_type || CASE WHEN a.is_grantable THEN '*' ELSE '' END
  FROM pg_class c, aclexplode(c.relacl) a, g WHERE a.grantee = g.oid
UNION ALL SELECT 'default ' || COALESCE(n.nspname, '(all)') || ' ' || a.privilege_type || CASE WHEN a.is_grantable THEN '*' ELSE '' END
  FROM pg_default_acl x LEFT JOIN pg_namespace n ON n.oid = x.defaclnamespace, aclexplode(x.defaclacl) a, g
  WHERE a.grantee = g.oid`, user)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

// requireResidue checks grantResidue against want (MySQL: column names;
// PostgreSQL: ACL entries).
func (s accServer) requireResidue(t *testing.T, db, user string, mysqlWant, pgWant []string) error {
	t.Helper()
	want := mysqlWant
	if s.Engine == "postgres" {
		want = pgWant
	}
	want = slices.Clone(want)
	slices.Sort(want)
	if got := s.grantResidue(t, db, user); !slices.Equal(got, want) {
		return fmt.Errorf("%s holds %q on %s, want %q", user, got, db, want)
	}
	return nil
}

// denied asserts a statement run as the principal fails for lack of a privilege.
func denied(err error, what string) error {
	if err == nil {
		return fmt.Errorf("%s succeeded, want permission denied", what)
	}
	if !strings.Contains(err.Error(), "denied") {
		return fmt.Errorf("%s: %v, want permission denied", what, err)
	}
	return nil
}

// checkAll runs checks in order and returns the first failure.
func checkAll(fns ...func() error) error {
	for _, fn := range fns {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

func emptyAfterApply() resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
}

func actionThenEmpty(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// otherDatabase creates a database out of band with a table, and grants
// user SELECT on it out of band: a grant of someone else's that no tenant
// grant may touch.
func (s accServer) otherDatabase(t *testing.T, db, user string) {
	t.Helper()
	s.foreignDatabase(t, db)
	if s.Engine == "postgres" {
		s.exec(t, "", fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", s.ident(db), s.ident(user)))
		s.exec(t, db, "GRANT SELECT ON t TO "+s.ident(user))
	} else {
		s.exec(t, "", fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", s.ident(db), user))
	}
}

func (s accServer) requireOtherIntact(t *testing.T, db, user string) error {
	t.Helper()
	if err := s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
		return fmt.Errorf("the principal's grant on the other database %s is gone: %v", db, err)
	}
	return nil
}

// TestAccTenantGrant_lifecycle: a pre-existing principal gets SELECT: it
// reads the owner's table and cannot write, and reads a table the owner
// creates after the grant; widening to INSERT lets it write, narrowing back
// does not; out-of-band grants, revokes and WITH GRANT OPTION show as drift
// and are corrected; import reads the same grant; removing the grant
// revokes everything on the database and nothing elsewhere, and the
// principal still logs in.
func TestAccTenantGrant_lifecycle(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner, user, other := uniqueName("grl"), uniqueName("grlo"), uniqueName("maester"), uniqueName("grlx")
			s.principal(t, user)
			t.Cleanup(func() {
				s.dropDatabase(t, db, other)
				s.dropLogins(t, owner)
			})
			s.otherDatabase(t, other, user)
			addr := "tenantdb_tenant_grant.g"
			t0, later := s.table(db, "t0"), s.table(db, "later")
			base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "")
			cfg := func(privs string) string { return s.serverHCL("") + ownerGrantHCL(db, owner, user, privs) }
			// What SELECT alone is on the server.
			selectOnly := []string{"database CONNECT", "schema public USAGE", "table t0 SELECT", "table later SELECT", "default public SELECT"}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				CheckDestroy: s.check(func() error {
					return checkAll(
						func() error { return s.as(user, principalPW, "", "SELECT 1") },
						func() error { return s.requireResidue(t, db, user, nil, nil) },
						func() error { return s.requireOtherIntact(t, other, user) },
					)
				}),
				Steps: []resource.TestStep{
					{
						Config:           base,
						ConfigPlanChecks: emptyAfterApply(),
						Check: s.check(func() error {
							return s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+t0+" (v int)", "INSERT INTO "+t0+" VALUES (1)")
						}),
					},
					{
						Config:           cfg(`["SELECT"]`),
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionCreate),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(s.name+"/"+db+"/"+user)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("privileges"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("SELECT")})),
						},
						Check: s.check(func() error {
							return checkAll(
								func() error { return s.as(user, principalPW, db, "SELECT v FROM "+t0) },
								func() error {
									return denied(s.as(user, principalPW, db, "INSERT INTO "+t0+" VALUES (2)"), "INSERT with SELECT")
								},
								// A table the owner creates after the grant.
								func() error { return s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+later+" (v int)") },
								func() error { return s.as(user, principalPW, db, "SELECT v FROM "+later) },
								func() error { return s.requireResidue(t, db, user, []string{"Select_priv"}, selectOnly) },
							)
						}),
					},
					{
						Config:           cfg(`["SELECT", "INSERT"]`),
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionUpdate),
						Check: s.check(func() error {
							return s.as(user, principalPW, db, "INSERT INTO "+t0+" VALUES (2)", "INSERT INTO "+later+" VALUES (2)", "SELECT v FROM "+t0)
						}),
					},
					{
						Config:           cfg(`["SELECT"]`),
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionUpdate),
						Check: s.check(func() error {
							return checkAll(
								func() error {
									return denied(s.as(user, principalPW, db, "INSERT INTO "+t0+" VALUES (3)"), "INSERT after narrowing")
								},
								func() error { return s.as(user, principalPW, db, "SELECT v FROM "+t0, "SELECT v FROM "+later) },
								func() error { return s.requireResidue(t, db, user, []string{"Select_priv"}, selectOnly) },
							)
						}),
					},
					{
						// Out of band: DELETE granted, SELECT revoked (on one
						// table on PostgreSQL). Drift, corrected in place.
						PreConfig: func() {
							if engine == "postgres" {
								s.exec(t, db, "GRANT DELETE ON t0 TO "+s.ident(user), "REVOKE SELECT ON later FROM "+s.ident(user))
							} else {
								target := s.ident(strings.ReplaceAll(db, "_", `\_`)) + ".*"
								s.exec(t, "", fmt.Sprintf("GRANT DELETE ON %s TO '%s'@'%%'", target, user),
									fmt.Sprintf("REVOKE SELECT ON %s FROM '%s'@'%%'", target, user))
							}
						},
						Config:           cfg(`["SELECT"]`),
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionUpdate),
						Check: s.check(func() error {
							return checkAll(
								func() error {
									return denied(s.as(user, principalPW, db, "DELETE FROM "+t0), "DELETE granted out of band")
								},
								func() error { return s.as(user, principalPW, db, "SELECT v FROM "+later) },
								func() error { return s.requireResidue(t, db, user, []string{"Select_priv"}, selectOnly) },
							)
						}),
					},
					{
						// Out of band: WITH GRANT OPTION. Drift, and only the
						// option is revoked.
						PreConfig: func() {
							if engine == "postgres" {
								s.exec(t, db, "GRANT SELECT ON t0 TO "+s.ident(user)+" WITH GRANT OPTION")
							} else {
								s.exec(t, "", fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%' WITH GRANT OPTION", s.ident(strings.ReplaceAll(db, "_", `\_`)), user))
							}
							if engine == "postgres" && !slices.Contains(s.grantResidue(t, db, user), "table t0 SELECT*") ||
								engine != "postgres" && !slices.Contains(s.grantResidue(t, db, user), "Grant_priv") {
								t.Fatalf("the out-of-band grant option did not land: %v", s.grantResidue(t, db, user))
							}
						},
						Config:           cfg(`["SELECT"]`),
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionUpdate),
						Check: s.check(func() error {
							return s.requireResidue(t, db, user, []string{"Select_priv"}, selectOnly)
						}),
					},
					{
						ResourceName:      addr,
						ImportState:       true,
						ImportStateId:     s.importID(map[string]any{"database": db, "username": user}),
						ImportStateVerify: true,
					},
					{
						// Removing the grant revokes it all on this database
						// and nothing elsewhere; the principal stays.
						Config:           base,
						ConfigPlanChecks: actionThenEmpty(addr, plancheck.ResourceActionDestroy),
						Check: s.check(func() error {
							return checkAll(
								func() error { return s.requireResidue(t, db, user, nil, nil) },
								func() error { return s.as(user, principalPW, "", "SELECT 1") },
								func() error { return denied(s.as(user, principalPW, db, "SELECT v FROM "+t0), "SELECT after destroy") },
								func() error { return s.requireOtherIntact(t, other, user) },
							)
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantGrant_missingPrincipal: GrantUserMissing changes nothing
// (no SQL, by the server's statement log and catalog) and brings no
// principal into existence; once the principal is created out of band the
// same configuration applies.
func TestAccTenantGrant_missingPrincipal(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner, user := uniqueName("grm"), uniqueName("grmo"), uniqueName("late")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner)
			})
			var proof noSQLProof
			cfg := s.serverHCL("") + ownerGrantHCL(db, owner, user, `["SELECT", "INSERT"]`)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				Steps: []resource.TestStep{
					{Config: s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, ""), ConfigPlanChecks: emptyAfterApply()},
					{
						PreConfig:   func() { s.beforeRefusal(t, &proof, "") },
						Config:      cfg,
						ExpectError: regexp.MustCompile(`(?s)GrantUserMissing: principal "` + user + `".*never\s+creates\s+one`),
					},
					{
						PreConfig: func() {
							proof.assertNoGrantSQL(t, "GrantUserMissing")
							if s.loginExists(t, user) {
								t.Fatal("the grant brought the principal into existence")
							}
							s.principal(t, user)
						},
						Config:           cfg,
						ConfigPlanChecks: actionThenEmpty("tenantdb_tenant_grant.g", plancheck.ResourceActionCreate),
						Check: s.check(func() error {
							return checkAll(
								func() error {
									return s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "t")+" (v int)")
								},
								func() error {
									return s.as(user, principalPW, db, "INSERT INTO "+s.table(db, "t")+" VALUES (1)", "SELECT v FROM "+s.table(db, "t"))
								},
							)
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantGrant_refusals: every plan-time refusal of a grant, each
// proven to run no SQL (statement log and catalog), with the server's
// grants unchanged: GrantUserReserved (the admin, system accounts, a
// reserved_usernames entry), PrivilegeNotAllowed, InvalidIdentifier,
// ImmutableAttribute (the database, the server's name, the server's
// engine).
func TestAccTenantGrant_refusals(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, db2, user := uniqueName("grr"), uniqueName("grr"), uniqueName("grru")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, db, db2) })
			server := s.serverHCL(`reserved_usernames = ["app_group"]`)
			dbs := tenantDatabaseHCL(db, "") + tenantDatabaseHCL(db2, "")
			// After each refusal: no grant or revoke sent, and the grant
			// made first still holds exactly SELECT.
			chain := refusalChain{t: t, s: s, assert: (*noSQLProof).assertNoGrantSQL}
			good := grantHCL("g", "tenantdb_tenant_database."+db+".name", user, `["SELECT"]`, "")
			refusal := func(hcl, want, what string) resource.TestStep {
				return chain.refusal(server+dbs+hcl, want, what, func() {
					if err := s.requireResidue(t, db, user, []string{"Select_priv"},
						[]string{"database CONNECT", "schema public USAGE", "default public SELECT"}); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
				})
			}
			other := func(user, privs string) string {
				return grantHCL("x", "tenantdb_tenant_database."+db+".name", user, privs, "")
			}
			system := "root"
			if engine == "postgres" {
				system = "postgres"
			}
			otherPort := closedPort(t)
			envMu.Lock()
			os.Setenv(AdminPasswordEnv(s.name+"2"), s.Admin.Password)
			envMu.Unlock()
			steps := []resource.TestStep{
				{Config: server + dbs + good, ConfigPlanChecks: emptyAfterApply()},
				refusal(good+other(s.Admin.Username, `["SELECT"]`), `(?s)GrantUserReserved: grant username.*admin\s+login`, "GrantUserReserved (the admin)"),
				refusal(good+other(system, `["SELECT"]`), `(?s)GrantUserReserved: grant username.*system\s+account`, "GrantUserReserved ("+system+")"),
				refusal(good+other("pg_monitor", `["SELECT"]`), `GrantUserReserved`, "GrantUserReserved (pg_*)"),
				refusal(good+other("APP_GROUP", `["SELECT"]`), `(?s)GrantUserReserved.*reserved_usernames`, "GrantUserReserved (reserved_usernames)"),
				refusal(good+other("bad name", `["SELECT"]`), `InvalidIdentifier`, "InvalidIdentifier (username)"),
				refusal(good+grantHCL("x", `"information_schema"`, user, `["SELECT"]`, ""), `(?s)InvalidIdentifier.*system\s+database`, "InvalidIdentifier (system database)"),
				refusal(good+other(user+"x", `["SUPER"]`), `PrivilegeNotAllowed`, "PrivilegeNotAllowed (not on the allowlist)"),
				refusal(good+other(user+"x", `["ALL PRIVILEGES", "SELECT"]`), `(?s)PrivilegeNotAllowed.*cannot\s+be\s+combined`, "PrivilegeNotAllowed (ALL with others)"),
			}
			// A privilege of the other engine only: refused once the engine is known.
			if engine == "postgres" {
				steps = append(steps, refusal(good+other(user+"x", `["EVENT"]`), `(?s)PrivilegeNotAllowed.*postgres\s+allowlist`,
					"PrivilegeNotAllowed (the other engine's privilege)"))
			} else {
				steps = append(steps, refusal(good+other(user+"x", `["TRUNCATE"]`), `(?s)PrivilegeNotAllowed.*mysql\s+allowlist`,
					"PrivilegeNotAllowed (the other engine's privilege)"))
			}
			steps = append(steps,
				// The grant's database cannot change.
				refusal(grantHCL("g", "tenantdb_tenant_database."+db2+".name", user, `["SELECT"]`, ""), `(?s)ImmutableAttribute:\s+the\s+grant's\s+database`, "ImmutableAttribute (database)"),
				// The grant cannot move to another server name or engine
				// (the other server on a closed port: a new server's
				// plan-time check only warns that it cannot reach it, and
				// the grant's plan refuses the move).
				refusal(s.extraServerHCL("other", s.name+"2", otherPort, s.CAPEM)+
					strings.Replace(good, "tenantdb_db_server.main.ref", "tenantdb_db_server.other.ref", 1),
					`(?s)ImmutableAttribute:\s+the\s+server's\s+name\s+of\s+grant`, "ImmutableAttribute (server name)"),
				refusal(strings.Replace(s.extraServerHCL("other", s.name, otherPort, s.CAPEM), `"`+s.Engine+`"`, `"`+otherEngine(s.Engine)+`"`, 1)+
					strings.Replace(good, "tenantdb_db_server.main.ref", "tenantdb_db_server.other.ref", 1),
					`(?s)ImmutableAttribute:\s+the\s+server's\s+engine\s+of\s+grant`, "ImmutableAttribute (server engine)"),
				chain.settled(server+dbs+good),
			)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				Steps:                    steps,
			})
		})
	}
}

// grantWords finds a grant, revoke or default-privileges change anywhere in
// a statement's text, also behind a prefix such as MariaDB's SET STATEMENT
// ... FOR, which the harness's first-keyword DDL check does not look past
// (and which every MariaDB grant of this resource carries). Column names
// such as Grant_priv or is_grantable do not match.
var grantWords = regexp.MustCompile(`(?i)\b(GRANT|REVOKE)\b\s|\bDEFAULT\s+PRIVILEGES\b`)

// assertNoGrantSQL is proof.assert plus a scan of every statement the admin
// sent since the proof's mark for grantWords: a refusal of a grant must be
// proven to have sent no grant or revoke in any wrapping. StatementsSince
// reads the log up to a fence it waits to see, so an empty result means
// nothing was sent (a refusal at validate time sends nothing at all; one at
// plan time follows the refresh's reads), not a log that was not read.
func (p *noSQLProof) assertNoGrantSQL(t *testing.T, what string) {
	t.Helper()
	mark, login := p.mark, p.login
	p.assert(t, what)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stmts, err := p.s.StatementsSince(ctx, mark, login)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if grantWords.MatchString(st.Text) {
			t.Fatalf("%s: the admin sent %q", what, st.Text)
		}
	}
}

func otherEngine(e string) string {
	if e == "postgres" {
		return "mysql"
	}
	return "postgres"
}

// TestAccTenantGrant_underscore: a grant on a database whose name holds
// "_" does not reach a database whose name matches it as a pattern
// (MariaDB: acme_1 vs acmeX1).
func TestAccTenantGrant_underscore(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			stem := uniqueName("gu")
			narrow, wide, user := stem+"_1", stem+"X1", uniqueName("guu")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, narrow, wide) })
			s.foreignDatabase(t, wide)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config: s.serverHCL("") + tenantDatabaseHCL(narrow, "") +
						grantHCL("g", "tenantdb_tenant_database."+narrow+".name", user, `["SELECT", "INSERT"]`, ""),
					ConfigPlanChecks: emptyAfterApply(),
					Check: s.check(func() error {
						return checkAll(
							// A table of the tenant (the admin owns the database
							// here) is readable in the granted database.
							func() error {
								return s.as(s.Admin.Username, s.Admin.Password, narrow, "CREATE TABLE "+s.table(narrow, "t")+" (v int)")
							},
							func() error {
								return s.as(user, principalPW, narrow, "INSERT INTO "+s.table(narrow, "t")+" VALUES (1)", "SELECT v FROM "+s.table(narrow, "t"))
							},
							func() error {
								if engine == "postgres" {
									return denied(s.as(user, principalPW, wide, "SELECT v FROM t"), "connecting to "+wide)
								}
								return denied(s.as(user, principalPW, "", "SELECT v FROM "+s.table(wide, "t")), "SELECT on "+wide)
							},
							func() error {
								if engine == "postgres" {
									return nil
								}
								var n int
								err := s.super(t, "").QueryRow(`SELECT COUNT(*) FROM mysql.db WHERE User = ? AND ? LIKE Db`, user, wide).Scan(&n)
								if err == nil && n != 0 {
									err = fmt.Errorf("%d grant rows of %s match %s", n, user, wide)
								}
								return err
							},
							func() error { return s.requireResidue(t, wide, user, nil, nil) },
						)
					}),
				}},
			})
		})
	}
}

// TestAccTenantGrant_parallel: one principal, two grant resources on two
// databases, applied in one run (terraform applies them in parallel), stay
// independent: narrowing one leaves the other, removing one revokes only
// its own database.
func TestAccTenantGrant_parallel(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			a, b, user := uniqueName("gpa"), uniqueName("gpb"), uniqueName("gpu")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, a, b) })
			dbs := s.serverHCL("") + tenantDatabaseHCL(a, "") + tenantDatabaseHCL(b, "")
			ga := func(privs string) string {
				return grantHCL("a", "tenantdb_tenant_database."+a+".name", user, privs, "")
			}
			gb := func(privs string) string {
				return grantHCL("b", "tenantdb_tenant_database."+b+".name", user, privs, "")
			}
			pgHeld := func(privs ...string) []string {
				out := []string{"database CONNECT", "schema public USAGE"}
				for _, p := range privs {
					out = append(out, "default public "+p)
				}
				return out
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				CheckDestroy: s.check(func() error {
					return checkAll(
						func() error { return s.requireResidue(t, a, user, nil, nil) },
						func() error { return s.requireResidue(t, b, user, nil, nil) },
						func() error { return s.as(user, principalPW, "", "SELECT 1") },
					)
				}),
				Steps: []resource.TestStep{
					{
						Config:           dbs + ga(`["SELECT"]`) + gb(`["SELECT", "INSERT"]`),
						ConfigPlanChecks: emptyAfterApply(),
						Check: s.check(func() error {
							return checkAll(
								func() error { return s.requireResidue(t, a, user, []string{"Select_priv"}, pgHeld("SELECT")) },
								func() error {
									return s.requireResidue(t, b, user, []string{"Insert_priv", "Select_priv"}, pgHeld("INSERT", "SELECT"))
								},
							)
						}),
					},
					{
						Config: dbs + ga(`["SELECT"]`) + gb(`["SELECT"]`),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction("tenantdb_tenant_grant.a", plancheck.ResourceActionNoop),
								plancheck.ExpectResourceAction("tenantdb_tenant_grant.b", plancheck.ResourceActionUpdate),
							},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						Check: s.check(func() error {
							return checkAll(
								func() error { return s.requireResidue(t, a, user, []string{"Select_priv"}, pgHeld("SELECT")) },
								func() error { return s.requireResidue(t, b, user, []string{"Select_priv"}, pgHeld("SELECT")) },
							)
						}),
					},
					{
						Config:           dbs + gb(`["SELECT"]`),
						ConfigPlanChecks: actionThenEmpty("tenantdb_tenant_grant.a", plancheck.ResourceActionDestroy),
						Check: s.check(func() error {
							return checkAll(
								func() error { return s.requireResidue(t, a, user, nil, nil) },
								func() error { return s.requireResidue(t, b, user, []string{"Select_priv"}, pgHeld("SELECT")) },
							)
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantGrant_ownerRotation: a username rotation of the tenant
// owner (create-before-drop; on PostgreSQL the old owner's default
// privileges are carried to the new one) does not cut the grantee off:
// it reads the tables the old owner made and those the new owner makes
// after the rotation, and the grant plans empty throughout.
func TestAccTenantGrant_ownerRotation(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner, owner2, user := uniqueName("gro"), uniqueName("groa"), uniqueName("grob"), uniqueName("grou")
			s.principal(t, user)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, owner2)
			})
			cfg := func(o string) string {
				return s.serverHCL("") + ownerHCL(db, o, "Owner-pw-1", 1, "") +
					grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
				Steps: []resource.TestStep{
					{
						Config:           cfg(owner),
						ConfigPlanChecks: emptyAfterApply(),
						Check: s.check(func() error {
							return checkAll(
								func() error {
									return s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "before")+" (v int)")
								},
								func() error { return s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "before")) },
							)
						}),
					},
					{
						Config: cfg(owner2),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction("tenantdb_tenant_owner.o", plancheck.ResourceActionUpdate),
								plancheck.ExpectResourceAction("tenantdb_tenant_grant.g", plancheck.ResourceActionNoop),
							},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						Check: s.check(func() error {
							return checkAll(
								func() error {
									if s.loginExists(t, owner) {
										return fmt.Errorf("the old owner %s survived the rotation", owner)
									}
									return nil
								},
								func() error {
									return s.as(owner2, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "after")+" (v int)")
								},
								func() error {
									return s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "before"), "SELECT v FROM "+s.table(db, "after"))
								},
								func() error {
									return denied(s.as(user, principalPW, db, "INSERT INTO "+s.table(db, "after")+" VALUES (1)"), "INSERT after rotation")
								},
							)
						}),
					},
					{
						// The table made after the rotation is covered: still empty.
						Config:   cfg(owner2),
						PlanOnly: true,
					},
				},
			})
		})
	}
}

// TestAccTenantGrant_identity: the principal is dropped and re-created by
// someone else (and granted something of its own). Planned without a
// refresh, narrowing is refused (IdentityMismatch) and destroy revokes
// nothing (a warning naming the grant), both with no SQL and the new
// principal's grants untouched; a refresh reports DriftDetected. On
// MariaDB, where a re-created account and one that set its own password
// look the same (Unproven), destroy revokes what it holds on the name.
func TestAccTenantGrant_identity(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user := uniqueName("gri"), uniqueName("griu")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, db) })
			w := newCLIWorkspace(t)
			cfg := func(privs string) string {
				return s.serverHCL("") + tenantDatabaseHCL(db, "") + grantHCL("g", "tenantdb_tenant_database."+db+".name", user, privs, "")
			}
			w.write(cfg(`["SELECT", "INSERT"]`))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			// Someone drops and re-creates the principal and grants it
			// DELETE on the database.
			if engine == "postgres" {
				s.exec(t, db, "DROP OWNED BY "+s.ident(user))
				s.exec(t, "", "DROP ROLE "+s.ident(user))
				s.CreateLogin(t, user, principalPW)
				// Runs before the login's own cleanup: PostgreSQL drops no
				// role that still holds privileges in a database.
				t.Cleanup(func() { s.dropDatabase(t, db) })
				s.exec(t, "", fmt.Sprintf("GRANT CONNECT, TEMPORARY ON DATABASE %s TO %s", s.ident(db), s.ident(user)))
			} else {
				old := s.passwordChanged(t, user)
				for s.passwordChanged(t, user) == old {
					s.exec(t, "", fmt.Sprintf("DROP USER '%s'@'%%'", user))
					s.CreateLogin(t, user, principalPW)
					time.Sleep(100 * time.Millisecond)
				}
				s.exec(t, "", fmt.Sprintf("GRANT DELETE ON %s.* TO '%s'@'%%'", s.ident(strings.ReplaceAll(db, "_", `\_`)), user))
			}
			foreign := s.grantResidue(t, db, user)
			if len(foreign) == 0 {
				t.Fatal("the re-created principal holds nothing: the checks below would prove nothing")
			}

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			w.write(cfg(`["SELECT"]`))
			narrow := w.run("apply", "-auto-approve", "-refresh=false")
			proof.assertNoGrantSQL(t, "IdentityMismatch (re-created principal)")
			if narrow.Err == nil {
				t.Fatalf("narrowing a re-created principal succeeded:\n%s", narrow.Output)
			}
			mismatch := narrow.requireDiag(t, "error", "IdentityMismatch: principal")
			if !strings.Contains(mismatch.Detail, "Nothing was granted or revoked") {
				t.Fatalf("IdentityMismatch detail: %q", mismatch.Detail)
			}
			if got := s.grantResidue(t, db, user); !slices.Equal(got, foreign) {
				t.Fatalf("the re-created principal's grants changed: %v -> %v", foreign, got)
			}

			plan := w.run("plan")
			drift := plan.requireDiag(t, "warning", "DriftDetected: ")
			if !strings.Contains(drift.Detail, user) || !strings.Contains(drift.Detail, "not the one this grant was made") {
				t.Fatalf("DriftDetected detail: %q", drift.Detail)
			}

			if engine != "postgres" {
				// A MariaDB account, and a MySQL principal tenantdb did not
				// create (it writes no mark there), carries no identity but the
				// time its password was set, which the principal itself may change:
				// nothing proves it is another principal, and revoking what
				// tenantdb granted is always safe, so destroy revokes that on
				// the name; the DELETE the DBA granted the re-made account is
				// not tenantdb's (the ledger records SELECT, INSERT): it stays,
				// named with its statement (issue 54).
				d := w.run("destroy", "-auto-approve", "-refresh=false").mustSucceed(t, "destroy")
				d.forbidDiag(t, "Grant not revoked")
				if got := s.grantResidue(t, db, user); !slices.Equal(got, foreign) {
					t.Fatalf("destroy left %v on %s to an unproven principal, want the DBA's %v alone", got, db, foreign)
				}
				if k := d.requireDiag(t, "warning", summaryNeverGrantedKept); !strings.Contains(k.Detail, "REVOKE DELETE ON") {
					t.Fatalf("the warning does not give the statement for the DBA's DELETE:\n%s", k.Detail)
				}
				return
			}
			s.beforeRefusal(t, &proof, "")
			destroy := w.run("destroy", "-auto-approve", "-refresh=false").mustSucceed(t, "destroy")
			proof.assertNoGrantSQL(t, "destroy of a grant whose principal was re-created")
			skipped := destroy.requireDiag(t, "warning", "Grant not revoked")
			if !strings.Contains(skipped.Detail, user) || !strings.Contains(skipped.Detail, db) {
				t.Fatalf("the warning does not name the grant: %q", skipped.Detail)
			}
			destroy.forbidDiag(t, "DatabaseDropSkipped")
			if got := s.grantResidue(t, db, user); !slices.Equal(got, foreign) {
				t.Fatalf("destroy revoked from the re-created principal: %v -> %v", foreign, got)
			}
		})
	}
}

// passwordChanged is MariaDB's password_last_changed of an account: its
// login identity, which moves only with the second.
func (s accServer) passwordChanged(t *testing.T, user string) string {
	t.Helper()
	var v string
	q := `SELECT COALESCE(JSON_VALUE(Priv, '$.password_last_changed'), '') FROM mysql.global_priv WHERE User = ? AND Host = '%'`
	if s.Flavor == "mysql" { // MySQL: no mysql.global_priv
		q = `SELECT COALESCE(CAST(password_last_changed AS CHAR), '') FROM mysql.user WHERE User = ? AND Host = '%'`
	}
	if err := s.super(t, "").QueryRow(q, user).Scan(&v); err != nil {
		return ""
	}
	return v
}

// TestAccTenantGrant_principalGone: a principal dropped out of band is not
// an error. Destroy planned without a refresh revokes nothing and
// succeeds (nothing can be left: MySQL/MariaDB drop an account's grants
// with it, PostgreSQL drops no role that holds any); a refresh reports
// DriftDetected and plans the grant again.
func TestAccTenantGrant_principalGone(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user := uniqueName("grg"), uniqueName("grgu")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, db) })
			w := newCLIWorkspace(t)
			w.write(s.serverHCL("") + tenantDatabaseHCL(db, "") +
				grantHCL("g", "tenantdb_tenant_database."+db+".name", user, `["SELECT"]`, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")
			if engine == "postgres" {
				s.exec(t, db, "DROP OWNED BY "+s.ident(user))
			}
			s.dropLogins(t, user)

			plan := w.run("plan", "-detailed-exitcode")
			drift := plan.requireDiag(t, "warning", "DriftDetected: ")
			if !strings.Contains(drift.Detail, "principal no longer exists") {
				t.Fatalf("DriftDetected detail: %q", drift.Detail)
			}
			if !strings.Contains(plan.Output, `"action":"create"`) {
				t.Fatalf("the plan does not create the grant again:\n%s", plan.Output)
			}

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			destroy := w.run("destroy", "-auto-approve", "-refresh=false").mustSucceed(t, "destroy")
			proof.assertNoGrantSQL(t, "destroy of a grant whose principal is gone")
			for _, d := range destroy.Diagnostics {
				if d.Severity == "error" || strings.HasPrefix(d.Summary, "Grant not revoked") {
					t.Fatalf("destroy reported %q: %s", d.Summary, d.Detail)
				}
			}
			if s.loginExists(t, user) {
				t.Fatal("destroy brought the principal back")
			}
		})
	}
}

// TestValidateTenantGrant_noServer: every plan-time refusal of a grant
// with no server running (port 1 on loopback has nothing listening): the
// refusal comes from the configuration alone.
func TestValidateTenantGrant_noServer(t *testing.T) {
	t.Parallel()
	grant := func(engine, database, user, privs string) string {
		return fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name               = "offline"
  engine             = %q
  host               = "127.0.0.1"
  port               = 1
  username           = "tenantdb_admin"
  reserved_usernames = ["app_group"]
}
`, engine) + grantHCL("g", fmt.Sprintf("%q", database), user, privs, "")
	}
	cases := []struct {
		name, config, want string
	}{
		{"the admin", grant("mysql", "acme", "tenantdb_admin", `["SELECT"]`), `GrantUserReserved`},
		{"root", grant("mysql", "acme", "Root", `["SELECT"]`), `GrantUserReserved`},
		{"mysql.sys", grant("mysql", "acme", "mysql.sys", `["SELECT"]`), `GrantUserReserved`},
		{"postgres", grant("postgres", "acme", "postgres", `["SELECT"]`), `GrantUserReserved`},
		{"pg_ role", grant("postgres", "acme", "pg_read_all_data", `["SELECT"]`), `GrantUserReserved`},
		{"reserved_usernames", grant("postgres", "acme", "app_group", `["SELECT"]`), `GrantUserReserved`},
		{"bad username", grant("mysql", "acme", "a'b", `["SELECT"]`), `InvalidIdentifier`},
		{"username too long", grant("mysql", "acme", strings.Repeat("u", 33), `["SELECT"]`), `InvalidIdentifier`},
		{"bad database", grant("mysql", "acme-1", "maester", `["SELECT"]`), `InvalidIdentifier`},
		{"system database", grant("postgres", "template1", "maester", `["SELECT"]`), `InvalidIdentifier`},
		{"postgres 64 bytes", grant("postgres", strings.Repeat("d", 64), "maester", `["SELECT"]`), `InvalidIdentifier`},
		{"no privileges", grant("mysql", "acme", "maester", `[]`), `PrivilegeNotAllowed`},
		{"GRANT OPTION", grant("mysql", "acme", "maester", `["SELECT", "GRANT OPTION"]`), `PrivilegeNotAllowed`},
		{"ALL with others", grant("postgres", "acme", "maester", `["ALL PRIVILEGES", "SELECT"]`), `PrivilegeNotAllowed`},
		{"mysql-only on postgres", grant("postgres", "acme", "maester", `["LOCK TABLES"]`), `PrivilegeNotAllowed`},
		{"postgres-only on mysql", grant("mysql", "acme", "maester", `["TEMPORARY"]`), `PrivilegeNotAllowed`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      c.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
