// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Faults and races with the real CLI against real servers: a read-only
// primary, a destroy while the server is down, and two workspaces racing
// for one name. `make test` runs a few rounds of each race;
// `make test-faults` runs TENANTDB_RACE_ROUNDS (default there: 20).

// raceRounds is how many races each race test runs.
func raceRounds(t *testing.T) int {
	if v := os.Getenv("TENANTDB_RACE_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("TENANTDB_RACE_ROUNDS=%q: want a positive number", v)
		}
		return n
	}
	// One race per case in make test: each race is two whole applies side
	// by side; make test-faults runs RACE_ROUNDS (20) of them.
	return 1
}

// setReadOnly makes a dedicated server refuse writes (or accept them
// again), as a demoted primary does. The admin cannot change it: the
// superuser does, as an operator would.
func (s accServer) setReadOnly(t *testing.T, on bool) {
	t.Helper()
	if s.Engine == "postgres" {
		v := map[bool]string{true: "on", false: "off"}[on]
		s.exec(t, "", "ALTER SYSTEM SET default_transaction_read_only = "+v, "SELECT pg_reload_conf()")
		return
	}
	v := map[bool]string{true: "ON", false: "OFF"}[on]
	s.exec(t, "", "SET GLOBAL read_only = "+v)
}

// TestAccFaults_readOnlyPrimary: while the server refuses writes, apply
// retries, then fails with PrimaryUnavailable and creates nothing; once it
// is writable again the next apply converges.
func TestAccFaults_readOnlyPrimary(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := secondServer(t, testAccServer(t, engine)) // its own server: read-only must not reach other tests
			db, owner := uniqueName("ro"), uniqueName("app")
			w := newCLIWorkspace(t)
			w.write(s.serverHCL("") + ownerHCL(db, owner, "Ro-pw-1", 1, ""))
			w.run("apply", "-auto-approve", "-target=tenantdb_db_server.main").mustSucceed(t, "save the server")

			s.setReadOnly(t, true)
			refused := w.run("apply", "-auto-approve")
			if refused.Err == nil {
				t.Fatalf("apply on a read-only server succeeded:\n%s", refused.Output)
			}
			d := refused.requireDiag(t, "error", "PrimaryUnavailable")
			if !strings.Contains(d.Summary+d.Detail, db) && !strings.Contains(d.Summary+d.Detail, s.name) {
				t.Fatalf("PrimaryUnavailable names neither the database nor the server: %q %q", d.Summary, d.Detail)
			}
			if s.databaseExists(t, db) {
				t.Fatal("a database was created on a read-only server")
			}
			if w.stateHas("tenantdb_tenant_database") {
				t.Fatal("a refused create left the database in state")
			}

			s.setReadOnly(t, false)
			w.run("apply", "-auto-approve").mustSucceed(t, "apply once writable")
			if !s.databaseExists(t, db) {
				t.Fatal("the database was not created once the server was writable")
			}
			if err := s.as(owner, "Ro-pw-1", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in after the apply converged: %v", err)
			}
		})
	}
}

// TestAccFaults_destroyServerDown: destroying a "delete" database while
// the server is unreachable fails and keeps it in state (deferred, never
// skipped); the next destroy, with the server back, drops it.
func TestAccFaults_destroyServerDown(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			name := uniqueName("down")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			proxy := newTCPProxy(t, s.Host, s.Port)
			w := newCLIWorkspace(t)
			w.write(s.serverBlock(proxy.port, s.CAPEM, "") + deleteDatabaseHCL(name, ""))
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			proxy.Down()
			down := w.run("destroy", "-auto-approve")
			if down.Err == nil {
				t.Fatalf("destroy with the server down succeeded:\n%s", down.Output)
			}
			if !w.stateHas("tenantdb_tenant_database") {
				t.Fatal("a failed drop removed the database from state: it would never be dropped")
			}
			if !s.databaseExists(t, name) {
				t.Fatal("the database is gone although the server was unreachable")
			}

			proxy.Up()
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy with the server back")
			if s.databaseExists(t, name) {
				t.Fatal("the second destroy did not drop the database")
			}
		})
	}
}

// raceApply runs apply in two workspaces at the same moment.
func raceApply(t *testing.T, a, b *cliWorkspace) (cliResult, cliResult) {
	t.Helper()
	var ra, rb cliResult
	var wg sync.WaitGroup
	start := make(chan struct{})
	wg.Add(2)
	go func() { defer wg.Done(); <-start; ra = a.run("apply", "-auto-approve") }()
	go func() { defer wg.Done(); <-start; rb = b.run("apply", "-auto-approve") }()
	close(start)
	wg.Wait()
	return ra, rb
}

// TestAccRace_databaseName: two workspaces (separate states) claim one
// database name at once. Exactly one wins every time, the other fails
// with DatabasePreExists, and the loser's destroy touches nothing of the
// winner's.
func TestAccRace_databaseName(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			rounds := raceRounds(t)
			wins := map[string]int{}
			for i := 0; i < rounds; i++ {
				name := uniqueName("race")
				t.Cleanup(func() { s.dropDatabase(t, name) })
				a, b := newCLIWorkspace(t), newCLIWorkspace(t)
				for _, w := range []*cliWorkspace{a, b} {
					w.write(s.serverHCL("") + deleteDatabaseHCL(name, ""))
					w.run("apply", "-auto-approve", "-target=tenantdb_db_server.main").mustSucceed(t, "save the server")
				}
				ra, rb := raceApply(t, a, b)
				winner, loser, lost := a, b, rb
				switch {
				case ra.Err == nil && rb.Err != nil:
					wins["first"]++
				case rb.Err == nil && ra.Err != nil:
					winner, loser, lost = b, a, ra
					wins["second"]++
				default:
					t.Fatalf("round %d: want exactly one winner; errors %v and %v\n%s\n%s", i, ra.Err, rb.Err, ra.Output, rb.Output)
				}
				lost.requireDiag(t, "error", "DatabasePreExists")
				if loser.stateHas("tenantdb_tenant_database") {
					t.Fatalf("round %d: the loser recorded the winner's database in its state", i)
				}
				loser.run("destroy", "-auto-approve").mustSucceed(t, "loser's destroy")
				if !s.databaseExists(t, name) {
					t.Fatalf("round %d: the loser's destroy dropped the winner's database", i)
				}
				winner.run("destroy", "-auto-approve").mustSucceed(t, "winner's destroy")
				if s.databaseExists(t, name) {
					t.Fatalf("round %d: the winner's destroy (deletion_policy = delete) did not drop its database", i)
				}
			}
			if engine == "postgres" {
				var left int
				if err := s.super(t, "").QueryRow(`SELECT count(*) FROM pg_database WHERE datname LIKE 'tenantdb\_claim\_%'`).Scan(&left); err != nil || left != 0 {
					t.Fatalf("the losers left %d nonce databases behind (%v)", left, err)
				}
			}
			t.Logf("%d races for one database name: exactly one winner each time (%v)", rounds, wins)
		})
	}
}

// TestAccRace_ownerUsername: two workspaces, each with its own database,
// claim one owner username at once. Exactly one wins, the other fails with
// PreExistingOwnerUser, and the loser's destroy leaves the winner's login
// working.
func TestAccRace_ownerUsername(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			rounds := raceRounds(t)
			for i := 0; i < rounds; i++ {
				user := uniqueName("raceapp")
				dbA, dbB := uniqueName("racea"), uniqueName("raceb")
				t.Cleanup(func() {
					s.dropDatabase(t, dbA, dbB)
					s.dropLogins(t, user)
				})
				a, b := newCLIWorkspace(t), newCLIWorkspace(t)
				a.write(s.serverHCL("") + ownerHCL(dbA, user, "Race-pw-A", 1, ""))
				b.write(s.serverHCL("") + ownerHCL(dbB, user, "Race-pw-B", 1, ""))
				for _, w := range []*cliWorkspace{a, b} {
					w.run("apply", "-auto-approve", "-target=tenantdb_tenant_database.db").mustSucceed(t, "create the database")
				}
				ra, rb := raceApply(t, a, b)
				winner, loser, lost, winnerDB, winnerPW := a, b, rb, dbA, "Race-pw-A"
				switch {
				case ra.Err == nil && rb.Err != nil:
				case rb.Err == nil && ra.Err != nil:
					winner, loser, lost, winnerDB, winnerPW = b, a, ra, dbB, "Race-pw-B"
				default:
					t.Fatalf("round %d: want exactly one winner; errors %v and %v\n%s\n%s", i, ra.Err, rb.Err, ra.Output, rb.Output)
				}
				lost.requireDiag(t, "error", "PreExistingOwnerUser")
				loser.run("destroy", "-auto-approve").mustSucceed(t, "loser's destroy")
				if err := s.as(user, winnerPW, winnerDB, "SELECT 1"); err != nil {
					t.Fatalf("round %d: after the loser's destroy the winner's owner cannot log in: %v", i, err)
				}
				winner.run("destroy", "-auto-approve").mustSucceed(t, "winner's destroy")
			}
			t.Logf("%d races for one owner username: exactly one winner each time", rounds)
		})
	}
}

// TestAccRace_grantsOnePrincipal: grants to one principal on many tenant
// databases, applied in parallel (Terraform's default parallelism), never
// fail (PostgreSQL: "tuple concurrently updated" on the role's catalog
// rows), and each database ends with exactly the declared grant.
func TestAccRace_grantsOnePrincipal(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			const tenants = 8
			user := uniqueName("many")
			s.principal(t, user)
			t.Cleanup(func() { s.dropLogins(t, user) })
			rounds := raceRounds(t)
			for r := 0; r < rounds; r++ {
				var hcl strings.Builder
				hcl.WriteString(s.serverHCL(""))
				var dbs []string
				for i := 0; i < tenants; i++ {
					db := uniqueName("many")
					dbs = append(dbs, db)
					fmt.Fprintf(&hcl, "resource \"tenantdb_tenant_database\" \"d%d\" {\n  server          = tenantdb_db_server.main.ref\n  name            = %q\n  deletion_policy = \"delete\"\n}\n", i, db)
					hcl.WriteString(grantHCL(fmt.Sprintf("g%d", i), fmt.Sprintf("tenantdb_tenant_database.d%d.name", i), user, `["SELECT", "INSERT"]`, ""))
				}
				t.Cleanup(func() { s.dropDatabase(t, dbs...) })
				w := newCLIWorkspace(t)
				w.write(hcl.String())
				w.run("apply", "-auto-approve", "-parallelism=10").mustSucceed(t, fmt.Sprintf("round %d: %d grants to one principal in parallel", r, tenants))
				for _, db := range dbs {
					// Read from the maintenance database: a session inside a
					// tenant database would (rightly) block its drop.
					if s.Engine == "postgres" {
						var can bool
						if err := s.super(t, "").QueryRow(`SELECT has_database_privilege($1, $2, 'CONNECT')`, user, db).Scan(&can); err != nil || !can {
							t.Fatalf("round %d: %s cannot connect to %s after the apply (%v)", r, user, db, err)
						}
					} else if got := s.grantResidue(t, db, user); len(got) == 0 {
						t.Fatalf("round %d: %s holds nothing on %s after the apply", r, user, db)
					}
				}
				w.run("destroy", "-auto-approve", "-parallelism=10").mustSucceed(t, fmt.Sprintf("round %d: destroy", r))
			}
			t.Logf("%d rounds of %d parallel grants to one principal: no failure", rounds, tenants)
		})
	}
}
