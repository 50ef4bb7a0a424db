// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func tenantDatabaseHCL(name, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_database" %[1]q {
  server = tenantdb_db_server.main.ref
  name   = %[1]q
%[2]s
}
`, name, extra)
}

// importID builds the pinned JSON import ID from the test server.
func (s accServer) importID(extra map[string]any) string {
	id := map[string]any{"server": map[string]any{
		"name": s.name, "engine": s.Engine, "host": s.Host, "port": s.Port,
		"username": s.Admin.Username, "tls": "verify-full",
	}}
	for k, v := range extra {
		id[k] = v
	}
	b, _ := json.Marshal(id)
	return string(b)
}

func (s accServer) check(fn func() error) resource.TestCheckFunc {
	return func(*terraform.State) error { return fn() }
}

// TestAccTenantDatabase_lifecycle walks one database through create, no-op
// plan, in-place update, import and destroy under retain, on both engines.
func TestAccTenantDatabase_lifecycle(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			name := uniqueName("life")
			t.Cleanup(func() { s.dropDatabase(t, name) })
			wantCS, wantCO := "utf8mb4", "utf8mb4_unicode_ci"
			changedCO, updateStep := "utf8mb4_bin", resource.TestStep{}
			if engine == "postgres" {
				wantCS, wantCO = "UTF8", "C"
			}
			base := s.serverHCL("") + tenantDatabaseHCL(name, "")
			if engine == "postgres" {
				// PostgreSQL cannot change a locale: refused at plan time.
				updateStep = resource.TestStep{
					Config:      s.serverHCL("") + tenantDatabaseHCL(name, `collation = "en_US.UTF-8"`),
					ExpectError: regexp.MustCompile(`ImmutableAttribute`),
				}
			} else {
				updateStep = resource.TestStep{
					Config: s.serverHCL("") + tenantDatabaseHCL(name, fmt.Sprintf("collation = %q", changedCO)),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("tenantdb_tenant_database."+name, plancheck.ResourceActionUpdate),
					}},
					Check: s.check(func() error {
						if _, co := s.charsetCollation(t, name); co != changedCO {
							return fmt.Errorf("collation on server = %q, want %q", co, changedCO)
						}
						return nil
					}),
				}
			}
			addr := "tenantdb_tenant_database." + name
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: base,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("database_created"), knownvalue.Bool(true)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("deletion_policy"), knownvalue.StringExact("retain")),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(s.name+"/"+name)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("character_set"), knownvalue.StringExact(wantCS)),
							statecheck.ExpectKnownValue("tenantdb_db_server.main", tfjsonpath.New("flavor"), knownvalue.StringExact(s.Flavor)),
						},
						Check: s.check(func() error {
							cs, co := s.charsetCollation(t, name)
							if cs != wantCS || co != wantCO {
								return fmt.Errorf("server has %s/%s, want %s/%s", cs, co, wantCS, wantCO)
							}
							return nil
						}),
					},
					{
						Config: base,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
					},
					updateStep,
					{
						ResourceName:            addr,
						ImportState:             true,
						ImportStateId:           s.importID(map[string]any{"name": name}),
						ImportStateVerify:       true,
						ImportStateVerifyIgnore: []string{"database_created"},
					},
					{
						ResourceName:    addr,
						ImportState:     true,
						ImportStateKind: resource.ImportBlockWithID,
						ImportStateId:   s.importID(map[string]any{"name": name}),
						Config:          s.serverHCL("") + tenantDatabaseHCL(name, collationFor(engine, changedCO)),
					},
					{
						// Data written by the tenant in between must survive a
						// destroy under retain.
						PreConfig: func() {
							s.exec(t, name, "CREATE TABLE orders (id INT PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)")
						},
						Config: s.serverHCL(""),
						Check: s.check(func() error {
							if !s.databaseExists(t, name) {
								return fmt.Errorf("database %s was dropped under retain", name)
							}
							var n int
							if err := s.super(t, name).QueryRow("SELECT COUNT(*) FROM orders").Scan(&n); err != nil || n != 2 {
								return fmt.Errorf("rows after retain: %d, %v", n, err)
							}
							return nil
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantDatabase_deletePolicy: delete drops what this resource
// created, and never what it imported.
func TestAccTenantDatabase_deletePolicy(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			created, foreign := uniqueName("del"), uniqueName("imp")
			t.Cleanup(func() { s.dropDatabase(t, foreign) })
			del := `deletion_policy = "delete"`
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				CheckDestroy: s.check(func() error {
					if s.databaseExists(t, created) {
						return fmt.Errorf("%s survived destroy under delete", created)
					}
					if !s.databaseExists(t, foreign) {
						return fmt.Errorf("imported database %s was dropped", foreign)
					}
					return nil
				}),
				Steps: []resource.TestStep{
					{
						Config: s.serverHCL("") + tenantDatabaseHCL(created, del),
						Check: s.check(func() error {
							if !s.databaseExists(t, created) {
								return fmt.Errorf("%s not created", created)
							}
							return nil
						}),
					},
					{
						Config: s.serverHCL(""),
						Check: s.check(func() error {
							if s.databaseExists(t, created) {
								return fmt.Errorf("%s not dropped under delete", created)
							}
							return nil
						}),
					},
					{
						PreConfig:          func() { s.exec(t, "", "CREATE DATABASE "+s.ident(foreign)) },
						Config:             s.serverHCL("") + tenantDatabaseHCL(foreign, del),
						ResourceName:       "tenantdb_tenant_database." + foreign,
						ImportState:        true,
						ImportStateId:      s.importID(map[string]any{"name": foreign}),
						ImportStatePersist: true,
					},
					{
						Config: s.serverHCL("") + tenantDatabaseHCL(foreign, del),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue("tenantdb_tenant_database."+foreign, tfjsonpath.New("database_created"), knownvalue.Bool(false)),
							statecheck.ExpectKnownValue("tenantdb_tenant_database."+foreign, tfjsonpath.New("deletion_policy"), knownvalue.StringExact("delete")),
						},
					},
					{
						Config: s.serverHCL(""),
						Check: s.check(func() error {
							if !s.databaseExists(t, foreign) {
								return fmt.Errorf("imported %s dropped", foreign)
							}
							return nil
						}),
					},
				},
			})
		})
	}
}

// TestAccTenantDatabase_refusals: DatabasePreExists, drift, rename.
func TestAccTenantDatabase_refusals(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			pre, drift := uniqueName("pre"), uniqueName("drift")
			t.Cleanup(func() {
				s.dropDatabase(t, pre, drift)
			})
			preCreate := "CREATE DATABASE " + s.ident(pre) + " CHARACTER SET latin1"
			if engine == "postgres" {
				preCreate = "CREATE DATABASE " + s.ident(pre)
			}
			var proof noSQLProof
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						PreConfig: func() {
							s.exec(t, "", preCreate)
							s.beforeRefusal(t, &proof, "")
						},
						Config:      s.serverHCL("") + tenantDatabaseHCL(pre, `deletion_policy = "delete"`),
						ExpectError: regexp.MustCompile(`DatabasePreExists`),
					},
					{
						// Nothing ran against the foreign database: only the
						// claim itself (CREATE DATABASE, which failed) may
						// appear, and the catalog is unchanged.
						PreConfig: func() {
							proof.assertOnly(t, "DatabasePreExists", "CREATE DATABASE")
							if engine == "postgres" {
								var ok bool
								s.super(t, "").QueryRow(`SELECT has_database_privilege('public', $1, 'CONNECT')`, pre).Scan(&ok)
								if !ok {
									t.Errorf("PUBLIC lost CONNECT on the pre-existing database %s", pre)
								}
							} else if cs, _ := s.charsetCollation(t, pre); cs != "latin1" {
								t.Errorf("pre-existing database changed: charset %s", cs)
							}
						},
						Config: s.serverHCL("") + tenantDatabaseHCL(drift, ""),
					},
					{
						PreConfig: func() { s.exec(t, "", "DROP DATABASE "+s.ident(drift)) },
						Config:    s.serverHCL("") + tenantDatabaseHCL(drift, ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("tenantdb_tenant_database."+drift, plancheck.ResourceActionCreate),
						}},
						Check: s.check(func() error {
							if !s.databaseExists(t, drift) {
								return fmt.Errorf("drifted database %s not re-created", drift)
							}
							return nil
						}),
					},
					{
						Config: s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" %q {
  server = tenantdb_db_server.main.ref
  name   = "%s_renamed"
}
`, drift, drift),
						PreConfig:   func() { s.beforeRefusal(t, &proof, "") },
						ExpectError: regexp.MustCompile(`ImmutableAttribute`),
					},
				},
			})
			proof.assert(t, "ImmutableAttribute (rename)")
		})
	}
}

// TestAccTenantDatabase_unreachableDelete: under delete, an unreachable
// server is an error and the resource stays in state until the drop really
// happens.
func TestAccTenantDatabase_unreachableDelete(t *testing.T) {
	skipOnStandIn(t, "postgres", "an unreachable server: no release answers")
	s := testAccServer(t, "postgres")
	name := uniqueName("unreach")
	t.Cleanup(func() { s.dropDatabase(t, name) })
	proxy := newTCPProxy(t, s.Host, s.Port)
	config := s.serverHCLAt(proxy.port, "") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
`, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		CheckDestroy: s.check(func() error {
			if s.databaseExists(t, name) {
				return fmt.Errorf("%s not dropped once reachable", name)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{Config: config},
			{
				// Destroy while the server is unreachable: an error, and
				// the resource stays in state (the drop is deferred).
				PreConfig:   proxy.Down,
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)PrimaryUnavailable.*drop database.*stays in state`),
			},
			{
				PreConfig: proxy.Up,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: s.check(func() error {
					if !s.databaseExists(t, name) {
						return fmt.Errorf("%s vanished while the drop was deferred", name)
					}
					return nil
				}),
			},
		},
	})
}

// collationFor is the collation the lifecycle test leaves the database with.
func collationFor(engine, changed string) string {
	if engine == "postgres" {
		return ""
	}
	return fmt.Sprintf("collation = %q", changed)
}

// TestAccTenantDatabase_inUse: a drop under delete refuses while a session
// this provider did not open is connected, lists it, and terminates nothing.
func TestAccTenantDatabase_inUse(t *testing.T) {
	s := testAccServer(t, "postgres")
	name := uniqueName("inuse")
	t.Cleanup(func() { s.dropDatabase(t, name) })
	// One pinned connection: a *sql.DB would quietly reconnect after its
	// session was killed, so the check compares the backend PID instead.
	var pool *sql.DB
	var session *sql.Conn
	var pid int
	backendPID := func() (int, error) {
		var p int
		err := session.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&p)
		return p, err
	}
	closeSession := func() {
		if session != nil {
			session.Close()
			session = nil
		}
		if pool != nil {
			pool.Close()
			pool = nil
		}
	}
	t.Cleanup(closeSession)
	withDB := s.serverHCL("") + tenantDatabaseHCL(name, `deletion_policy = "delete"`)
	var proof noSQLProof
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		CheckDestroy: s.check(func() error {
			if s.databaseExists(t, name) {
				return fmt.Errorf("%s not dropped after the session ended", name)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{Config: withDB},
			{
				PreConfig: func() {
					var err error
					if pool, err = s.Open(s.Super, name); err == nil {
						session, err = pool.Conn(context.Background())
					}
					if err == nil {
						pid, err = backendPID()
					}
					if err != nil {
						t.Fatal(err)
					}
					s.beforeRefusal(t, &proof, "")
				},
				Config:      s.serverHCL(""),
				ExpectError: regexp.MustCompile(`(?s)DatabaseInUse.*tenantdb_super`),
			},
			{
				PreConfig: func() {
					proof.assert(t, "DatabaseInUse")
					if now, err := backendPID(); err != nil || now != pid {
						t.Errorf("the foreign session was terminated: backend pid %d before, %d (%v) after", pid, now, err)
					}
					if !s.databaseExists(t, name) {
						t.Errorf("%s dropped while in use", name)
					}
					closeSession()
				},
				Config: withDB,
			},
		},
	})
}
