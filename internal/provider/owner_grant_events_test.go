// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The owner and the grant under ordinary events, with the real CLI: the
// order Terraform picks, a database dropped out of band, a grant naming
// the owner, repeated rotations, default privileges the tenant made itself.

// TestAccOwnerGrant_anyOrder: a database, its owner and a grant converge
// in one apply whatever the order (grant first, owner first, in parallel):
// the grantee reads a table the owner makes after the apply, the next plan
// is empty, and destroy leaves the grantee nothing on the database.
func TestAccOwnerGrant_anyOrder(t *testing.T) {
	orders := []struct{ name, owner, grant string }{
		{name: "parallel"},
		{name: "grant_first", owner: "  depends_on = [tenantdb_tenant_grant.g]"},
		{name: "owner_first", grant: "  depends_on = [tenantdb_tenant_owner.o]"},
	}
	for _, engine := range engines() {
		for _, order := range orders {
			t.Run(engine+"/"+order.name, func(t *testing.T) {
				s := testAccServer(t, engine)
				db, owner, user := uniqueName("ord"), uniqueName("ordo"), uniqueName("ordg")
				s.principal(t, user)
				t.Cleanup(func() {
					s.dropDatabase(t, db)
					s.dropLogins(t, owner)
				})
				cfg := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, order.owner) +
					grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, order.grant)
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: testAccProviders,
					TerraformVersionChecks:   writeOnlyTerraform,
					CheckDestroy: func(*terraform.State) error {
						return s.requireResidue(t, db, user, nil, nil)
					},
					Steps: []resource.TestStep{
						{
							Config:           cfg,
							ConfigPlanChecks: emptyAfterApply(),
							Check: s.check(func() error {
								return checkAll(
									func() error {
										return s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "made_after")+" (v int)",
											"INSERT INTO "+s.table(db, "made_after")+" VALUES (1)")
									},
									func() error { return s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "made_after")) },
									func() error {
										return denied(s.as(user, principalPW, db, "INSERT INTO "+s.table(db, "made_after")+" VALUES (2)"), "INSERT")
									},
									func() error { return s.requireNoAdminDefaults(t, db) },
								)
							}),
						},
						{
							// The owner's new table is covered: nothing to change.
							Config:   cfg,
							PlanOnly: true,
						},
					},
				})
			})
		}
	}
}

// requireNoAdminDefaults: once an owner holds the database, the admin keeps
// no default privileges there (PostgreSQL; nothing to check elsewhere).
func (s accServer) requireNoAdminDefaults(t *testing.T, db string) error {
	t.Helper()
	if s.Engine != "postgres" {
		return nil
	}
	var n int
	if err := s.super(t, db).QueryRow(`SELECT count(*) FROM pg_default_acl WHERE defaclrole = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
		s.Admin.Username).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		return fmt.Errorf("the admin still has %d default-privilege entries in %s after the owner took it", n, db)
	}
	return nil
}

// TestAccTenantGrant_rowsOutliveDroppedDatabase (MySQL/MariaDB): the tenant
// database is dropped out of band; the grant's rows stay in mysql.db, so
// the grant stays in state with a DriftDetected warning naming the leak,
// and removing it revokes the rows: a database created later under that
// name is not readable by the old grantee.
func TestAccTenantGrant_rowsOutliveDroppedDatabase(t *testing.T) {
	for _, kind := range mysqlFamily {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db, user := uniqueName("gdd"), uniqueName("gddu")
			s.principal(t, user)
			t.Cleanup(func() { s.dropDatabase(t, db) })
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + tenantDatabaseHCL(db, "")
			w.write(base + grantHCL("g", "tenantdb_tenant_database."+db+".name", user, `["SELECT"]`, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			s.exec(t, "", "DROP DATABASE "+s.ident(db))
			if len(s.grantResidue(t, db, user)) == 0 {
				t.Fatal("no grant row outlived DROP DATABASE: the test would prove nothing")
			}
			plan := w.run("plan")
			drift := plan.requireDiag(t, "warning", "DriftDetected: ")
			if !strings.Contains(plan.Output, "grant rows") || !strings.Contains(drift.Detail+plan.Output, user) {
				t.Fatalf("no warning names the leaking grant rows:\n%s", plan.Output)
			}
			w.run("apply", "-refresh-only", "-auto-approve").mustSucceed(t, "refresh")
			if !w.stateHas("tenantdb_tenant_grant") {
				t.Fatal("the grant left state while its rows are still on the server")
			}

			// The grant goes; the database is created again by its resource.
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "remove the grant")
			if got := s.grantResidue(t, db, user); len(got) > 0 {
				t.Fatalf("grant rows left behind for %s: %v", db, got)
			}
			s.exec(t, "", "CREATE TABLE "+s.ident(db)+".secret (v int)")
			if err := denied(s.as(user, principalPW, db, "SELECT v FROM "+s.table(db, "secret")), "SELECT in the new database"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAccTenantGrant_toOwnerRefused: a grant naming the tenant owner's own
// login is refused on every engine before any SQL (GrantUserReserved),
// and the owner keeps every right.
func TestAccTenantGrant_toOwnerRefused(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner := uniqueName("gto"), uniqueName("gtoo")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner)
			})
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "")
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			w.write(base + grantHCL("g", "tenantdb_tenant_database.db.name", owner, `["SELECT"]`, ""))
			r := w.run("apply", "-auto-approve").mustFail(t, "grant to the owner")
			proof.assertNoGrantSQL(t, "GrantUserReserved (the owner)")
			d := r.requireDiag(t, "error", "GrantUserReserved")
			if !strings.Contains(d.Detail, "owner") || !strings.Contains(d.Detail, "tenantdb_tenant_owner") {
				t.Fatalf("the refusal does not name both roles: %q", d.Detail)
			}
			if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE "+s.table(db, "still_mine")+" (v int)"); err != nil {
				t.Fatalf("the owner lost a right: %v", err)
			}
			w.write(base)
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}

// TestAccTenantOwner_pendingLoginsSurviveRotations: a rotation whose old
// login cannot be dropped yet keeps it pending; a second rotation adds to
// the pending logins instead of forgetting the first; once the cause is
// gone the next apply drops it, and destroy leaves no login of the run.
// PostgreSQL: the old login owns a table in another database; MariaDB: a
// fault keyed by the login's name (the provider runs in the test process).
func TestAccTenantOwner_pendingLoginsSurviveRotations(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, elsewhere := uniqueName("pnd"), uniqueName("pndx")
			a, b, c := uniqueName("pnda"), uniqueName("pndb"), uniqueName("pndc")
			t.Cleanup(func() {
				s.dropDatabase(t, db, elsewhere)
				s.dropLogins(t, a, b, c)
			})
			pw := "Pend-pw-1"
			cfg := func(user string) string { return s.serverHCL("") + ownerHCL(db, user, pw, 1, "") }
			addr := "tenantdb_tenant_owner.o"
			release := func() {}
			t.Cleanup(func() { release() })
			block := func() {
				if engine == "postgres" {
					s.exec(t, "", "CREATE DATABASE "+s.ident(elsewhere))
					s.exec(t, elsewhere, "CREATE TABLE blocker (v int)", "ALTER TABLE blocker OWNER TO "+s.ident(a))
					release = func() { s.exec(t, elsewhere, "DROP TABLE IF EXISTS blocker") }
				} else {
					release = faultpoint.Inject(faultpoint.DropOldOwner, errors.New("injected: the drop failed"), a)
				}
			}
			pending := func(want string) statecheck.StateCheck {
				if want == "" {
					return statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.Null())
				}
				return statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.StringExact(want))
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				CheckDestroy:             s.noLoginsLeft(t, a, b, c),
				Steps: []resource.TestStep{
					{Config: cfg(a)},
					{
						PreConfig:          block,
						Config:             cfg(b),
						ConfigStateChecks:  []statecheck.StateCheck{pending(a)},
						ExpectNonEmptyPlan: true, // the pending drop is planned again
					},
					{
						Config:            cfg(c),
						ConfigStateChecks: []statecheck.StateCheck{pending(a)},
						Check: s.check(func() error {
							if !s.loginExists(t, a) || s.loginExists(t, b) {
								return fmt.Errorf("after the second rotation: %s exists %v (want true), %s exists %v (want false)",
									a, s.loginExists(t, a), b, s.loginExists(t, b))
							}
							return s.as(c, pw, db, "CREATE TABLE "+s.table(db, "t")+" (v int)")
						}),
						ExpectNonEmptyPlan: true,
					},
					{
						PreConfig:         func() { release(); release = func() {} },
						Config:            cfg(c),
						ConfigStateChecks: []statecheck.StateCheck{pending("")},
						ConfigPlanChecks:  emptyAfterApply(),
						Check: s.check(func() error {
							if s.loginExists(t, a) {
								return fmt.Errorf("the pending login %s was not dropped once it could be", a)
							}
							return nil
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantOwner_rotationCarriesTenantDefaults (PostgreSQL): the tenant
// made default privileges of its own (functions, types, schemas,
// sequences, per schema and database-wide, to a 34-character role, and
// revoked EXECUTE on functions from PUBLIC). A username rotation carries
// every one to the new owner: the reader executes a function the new owner
// creates, PUBLIC does not.
func TestAccTenantOwner_rotationCarriesTenantDefaults(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, a, b := uniqueName("tdp"), uniqueName("tdpa"), uniqueName("tdpb")
	reader := "reporting_readers_" + uniqueName("x")
	for len(reader) < 34 {
		reader += "r"
	}
	outsider := uniqueName("tdpx")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, a, b, reader, outsider)
	})
	s.CreateLogin(t, reader, "Reader-pw-1")
	s.CreateLogin(t, outsider, "Outsider-pw-1")
	pw := "Tdp-pw-1"
	w := newCLIWorkspace(t)
	cfg := func(user string) string { return s.serverHCL("") + ownerHCL(db, user, pw, 1, "") }
	w.write(cfg(a))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	r := s.ident(reader)
	if err := s.as(a, pw, db,
		"CREATE SCHEMA app",
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s, %s", s.ident(db), r, s.ident(outsider)),
		"GRANT USAGE ON SCHEMA public, app TO "+r+", "+s.ident(outsider),
		"ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO "+r,
		"ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC",
		"ALTER DEFAULT PRIVILEGES GRANT USAGE ON TYPES TO "+r,
		"ALTER DEFAULT PRIVILEGES GRANT USAGE ON SCHEMAS TO "+r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT USAGE, SELECT ON SEQUENCES TO "+r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA app GRANT SELECT ON TABLES TO "+r,
	); err != nil {
		t.Fatal(err)
	}
	w.write(cfg(b))
	w.run("apply", "-auto-approve").mustSucceed(t, "rotate")
	if s.loginExists(t, a) {
		t.Fatalf("the old owner %s survived the rotation", a)
	}
	if err := s.as(b, pw, db,
		"CREATE FUNCTION public.answer() RETURNS int LANGUAGE sql AS 'SELECT 42'",
		"CREATE TABLE app.t (v int)", "INSERT INTO app.t VALUES (1)", "CREATE SEQUENCE app.s",
		"CREATE SCHEMA later",
	); err != nil {
		t.Fatal(err)
	}
	if err := s.as(reader, "Reader-pw-1", db, "SELECT public.answer()", "SELECT v FROM app.t", "SELECT nextval('app.s')"); err != nil {
		t.Fatalf("the reader lost a default privilege in the rotation: %v", err)
	}
	var usable bool
	conn, err := s.Open(testserver.Login{Username: reader, Password: "Reader-pw-1"}, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow("SELECT has_schema_privilege('later', 'USAGE')").Scan(&usable); err != nil || !usable {
		t.Fatalf("the reader has no USAGE on a schema the new owner made (%v)", err)
	}
	if err := denied(s.as(outsider, "Outsider-pw-1", db, "SELECT public.answer()"), "EXECUTE as PUBLIC"); err != nil {
		t.Fatal(err)
	}
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}

// TestAccTenantOwner_replacedLoginUntouched: the owner login is dropped and
// re-created by someone else (its own password). Applied without a refresh
// (so the plan still believes it is this resource's): a password bump is
// refused (IdentityMismatch), a privilege change too (MySQL/MariaDB, where
// the owner's privileges can change), and a username change creates the
// new login but never drops the foreign one; no statement names the
// foreign login, and it keeps its password. Each check fails when the
// identity check before it is removed.
func TestAccTenantOwner_replacedLoginUntouched(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, user, user2 := uniqueName("rpl"), uniqueName("rpla"), uniqueName("rplb")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user, user2)
			})
			w := newCLIWorkspace(t)
			cfg := func(u string, version int, extra string) string {
				return s.serverHCL("") + ownerHCL(db, u, "Owner-pw-1", version, extra)
			}
			w.write(cfg(user, 1, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			// Someone else drops the login and creates one of that name.
			const foreignPW = "Foreign-pw-1"
			if engine == "postgres" {
				s.exec(t, db, "REASSIGN OWNED BY "+s.ident(user)+" TO "+s.ident(s.Admin.Username), "DROP OWNED BY "+s.ident(user))
				s.exec(t, "", "DROP ROLE "+s.ident(user))
				s.CreateLogin(t, user, foreignPW)
			} else {
				old := s.passwordChanged(t, user)
				for s.passwordChanged(t, user) == old {
					s.exec(t, "", fmt.Sprintf("DROP USER '%s'@'%%'", user))
					s.CreateLogin(t, user, foreignPW)
					time.Sleep(100 * time.Millisecond)
				}
			}
			untouched := func(what string, mark testserver.LogMark) {
				t.Helper()
				stmts := s.adminDDLSince(t, mark)
				for _, st := range stmts {
					if strings.Contains(st.Text, user) && !strings.Contains(st.Text, user2) {
						t.Fatalf("%s: a statement named the foreign login: %s", what, st.Text)
					}
				}
				if !s.loginExists(t, user) {
					t.Fatalf("%s: the foreign login was dropped", what)
				}
				if err := s.as(user, foreignPW, "", "SELECT 1"); err != nil {
					t.Fatalf("%s: the foreign login lost its password: %v", what, err)
				}
			}

			mark := s.MarkLog(t)
			w.write(cfg(user, 2, ""))
			w.run("apply", "-auto-approve", "-refresh=false").mustFail(t, "password bump").requireDiag(t, "error", "IdentityMismatch")
			untouched("password bump", mark)

			if engine != "postgres" {
				mark = s.MarkLog(t)
				w.write(cfg(user, 1, `  privileges = ["SELECT"]`))
				w.run("apply", "-auto-approve", "-refresh=false").mustFail(t, "privilege change").requireDiag(t, "error", "IdentityMismatch")
				untouched("privilege change", mark)
			}

			mark = s.MarkLog(t)
			w.write(cfg(user2, 1, ""))
			r := w.run("apply", "-auto-approve", "-refresh=false")
			if r.Err != nil {
				t.Fatalf("username change: %v\n%+v", r.Err, r.Diagnostics)
			}
			untouched("username change", mark)
			if got := w.stateAttr("tenantdb_tenant_owner", "previous_username"); got != nil {
				t.Fatalf("previous_username = %v: the foreign login must not be pending a drop", got)
			}
			if err := s.as(user2, "Owner-pw-1", db, "SELECT 1"); err != nil {
				t.Fatalf("the new login does not work: %v", err)
			}
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			if !s.loginExists(t, user) {
				t.Fatal("destroy dropped the foreign login")
			}
		})
	}
}

// TestAccTenantDatabase_inUseByDroppedOwner (PostgreSQL): one destroy drops
// the owner login and then the database (deletion_policy = "delete")
// while sessions are open in it. The owner's own session is ended by the
// offboarding's lock-out (it never keeps the database); a session of a
// login a DBA dropped since (its role gone, its session still open)
// refuses the database (DatabaseInUse), named by its role's OID, never as
// user "".
func TestAccTenantDatabase_inUseByDroppedOwner(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, other := uniqueName("iud"), uniqueName("iudo"), uniqueName("iudx")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, owner, other)
	})
	w := newCLIWorkspace(t)
	cfg := s.serverHCL("") + strings.Replace(ownerHCL(db, owner, "Owner-pw-1", 1, ""),
		"name   = "+strconv.Quote(db), "name   = "+strconv.Quote(db)+"\n  deletion_policy = \"delete\"", 1)
	w.write(cfg)
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	session := func(user, pw string) (*sql.DB, *sql.Conn) {
		t.Helper()
		pool, err := s.Open(testserver.Login{Username: user, Password: pw}, db)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := pool.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(context.Background(), "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		return pool, conn
	}
	ownerPool, ownerConn := session(owner, "Owner-pw-1")
	defer ownerPool.Close()
	defer ownerConn.Close()
	// A DBA's login with a session in the database, dropped since: its
	// role is gone, its session stays.
	s.exec(t, "", fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD 'Other-pw-1'`, s.ident(other)))
	s.exec(t, "", fmt.Sprintf(`GRANT CONNECT ON DATABASE %s TO %s`, s.ident(db), s.ident(other)))
	otherPool, otherConn := session(other, "Other-pw-1")
	defer otherPool.Close()
	defer otherConn.Close()
	s.exec(t, "", fmt.Sprintf(`REVOKE CONNECT ON DATABASE %s FROM %s`, s.ident(db), s.ident(other)))
	s.exec(t, "", "DROP ROLE "+s.ident(other))

	r := w.run("destroy", "-auto-approve").mustFail(t, "destroy while a dropped login's session is open")
	d := r.requireDiag(t, "error", "DatabaseInUse")
	if strings.Contains(d.Detail, `user ""`) || !strings.Contains(d.Detail, "a role dropped since (OID") {
		t.Fatalf("the session of the dropped login is not named by its OID: %q", d.Detail)
	}
	if _, err := ownerConn.ExecContext(context.Background(), "SELECT 1"); err == nil {
		t.Fatal("the owner's session survived its offboarding: the lock-out did not end it")
	}
	otherConn.Close()
	otherPool.Close()
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy once the session ended")
}
