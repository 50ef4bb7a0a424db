// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestAccTenantOwner_connectionLimit (issue 58): a limit of 2 lets the
// owner hold two sessions and the server refuses the third with its own
// error; the tenant cannot raise its own limit (the server's error, also
// bundled with its own password change on MySQL/MariaDB); a DBA's change
// is planned and restored; an import reads it; a username rotation creates
// the new login with it before the old one is dropped; null restores the
// server's default; and destroy (deletion_policy = "delete") offboards
// while the tenant holds sessions at its limit. Every value is read from
// the server, and on MySQL/MariaDB the owner mark (MAX_UPDATES_PER_HOUR)
// is checked to stay apart from the limit.
func TestAccTenantOwner_connectionLimit(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			db, user, user2 := uniqueName("conn"), uniqueName("app"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, user, user2)
			})
			pw, addr := "Conn-limit-1", "tenantdb_tenant_owner.o"
			cfg := func(login, extra string) string {
				return s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
`, db) + ownerBlockHCL(login, pw, 1, extra)
			}
			limit2 := `connection_limit = 2`
			var held []*sql.Conn // sessions at the limit during destroy
			t.Cleanup(func() {
				for _, c := range held {
					c.Close()
				}
			})
			// MySQL/MariaDB: a host change moves the account create-before-drop,
			// with the limit; later steps keep the new host.
			moved, host := "", "%"
			var hostStep []resource.TestStep
			if s.Engine != "postgres" {
				moved, host = "\n  host = \"127.0.0.1\"", "127.0.0.1"
				t.Cleanup(func() { s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'127.0.0.1'", user2)) })
				hostStep = []resource.TestStep{{
					Config: cfg(user2, limit2+moved),
					Check: s.check(func() error {
						if s.loginExists(t, user2) {
							return fmt.Errorf("the old account '%s'@'%%' survived the host change", user2)
						}
						return s.wantConnLimitAt(t, user2, host, "2")
					}),
				}}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				CheckDestroy: s.check(func() error {
					if s.loginExists(t, user2) || s.databaseExists(t, db) || (host != "%" && s.count(t, "", "SELECT COUNT(*) FROM mysql.user WHERE User = ?", user2) != 0) {
						return fmt.Errorf("destroy with the owner at its connection limit left login %s or database %s", user2, db)
					}
					return nil
				}),
				Steps: append(append([]resource.TestStep{
					{
						Config: cfg(user, limit2),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("connection_limit"), knownvalue.Int64Exact(2)),
						},
						Check: s.check(func() error {
							if err := s.wantConnLimit(t, user, "2"); err != nil {
								return err
							}
							_, release, err := s.holdSessions(user, pw, db, 2)
							release()
							if err != nil {
								return err
							}
							if err := s.tenantRaisesOwnLimit(user, pw, db); err != nil {
								return err
							}
							if err := s.wantConnLimit(t, user, "2"); err != nil {
								return err
							}
							return s.wantOwnerMark(t, kind, user, db)
						}),
					},
					{
						// A DBA changes it out of band: planned, and restored.
						PreConfig: func() { s.setConnLimit(t, user, 5) },
						Config:    cfg(user, limit2),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(addr, tfjsonpath.New("connection_limit"), knownvalue.Int64Exact(2)),
						}},
						Check: s.check(func() error { return s.wantConnLimit(t, user, "2") }),
					},
					{
						ResourceName:            addr,
						ImportState:             true,
						ImportStateId:           s.importID(map[string]any{"database": db, "username": user}),
						ImportStateVerify:       true,
						ImportStateVerifyIgnore: []string{"password_wo_version", "user_created"},
					},
					{
						// A username rotation creates the new login with the limit.
						Config: cfg(user2, limit2),
						Check: s.check(func() error {
							if s.loginExists(t, user) {
								return fmt.Errorf("the old login %s survived the rotation", user)
							}
							if err := s.wantConnLimit(t, user2, "2"); err != nil {
								return err
							}
							return s.wantOwnerMark(t, kind, user2, db)
						}),
					},
				}, hostStep...),
					resource.TestStep{
						// Null restores the server's default.
						Config: cfg(user2, moved),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("connection_limit"), knownvalue.Null()),
						},
						Check: s.check(func() error { return s.wantConnLimitAt(t, user2, host, "") }),
					},
					resource.TestStep{
						// Destroy follows with the tenant's sessions at its limit.
						Config: cfg(user2, limit2+moved),
						Check: s.check(func() error {
							conns, _, err := s.holdSessions(user2, pw, db, 2)
							held = conns
							return err
						}),
					},
				),
			})
		})
	}
}

// connLimitOf reads a login's own connection limit as the superuser:
// PostgreSQL rolconnlimit, MySQL/MariaDB max_user_connections.
func (s accServer) connLimitOf(t *testing.T, user, host string) string {
	t.Helper()
	q, args := `SELECT max_user_connections FROM mysql.user WHERE User = ? AND Host = ?`, []any{user, host}
	if s.Engine == "postgres" {
		q, args = `SELECT rolconnlimit FROM pg_roles WHERE rolname = $1`, []any{user}
	}
	var v string
	if err := s.super(t, "").QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// wantConnLimit checks the server's value; "" is none (PostgreSQL -1,
// MySQL/MariaDB 0).
func (s accServer) wantConnLimit(t *testing.T, user, want string) error {
	t.Helper()
	return s.wantConnLimitAt(t, user, "%", want)
}

// wantConnLimitAt is wantConnLimit for the account at host (MySQL/MariaDB).
func (s accServer) wantConnLimitAt(t *testing.T, user, host, want string) error {
	t.Helper()
	if want == "" {
		want = "0"
		if s.Engine == "postgres" {
			want = "-1"
		}
	}
	if got := s.connLimitOf(t, user, host); got != want {
		return fmt.Errorf("login %s (host %s) has connection limit %s on the server, want %s", user, host, got, want)
	}
	return nil
}

// setConnLimit is a DBA's out-of-band change.
func (s accServer) setConnLimit(t *testing.T, user string, n int) {
	t.Helper()
	if s.Engine == "postgres" {
		s.exec(t, "", fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT %d", s.ident(user), n))
		return
	}
	s.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' WITH MAX_USER_CONNECTIONS %d", user, n))
}

// holdSessions opens n sessions as the login and keeps them, then checks
// that one more is refused with the server's own error.
func (s accServer) holdSessions(user, pw, db string, n int) ([]*sql.Conn, func(), error) {
	pool, err := s.Open(testserver.Login{Username: user, Password: pw}, db)
	if err != nil {
		return nil, func() {}, err
	}
	var conns []*sql.Conn
	release := func() {
		for _, c := range conns {
			c.Close()
		}
		pool.Close()
	}
	ctx := context.Background()
	for i := 0; i < n; i++ {
		c, err := pool.Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
		}
		if err != nil {
			return conns, release, fmt.Errorf("session %d of %d as %s was refused: %v", i+1, n, user, err)
		}
		conns = append(conns, c)
	}
	refused := regexp.MustCompile(`max_user_connections|too many connections for role`)
	c, err := pool.Conn(ctx)
	if err == nil {
		err = c.PingContext(ctx)
		c.Close()
	}
	if err == nil || !refused.MatchString(err.Error()) {
		return conns, release, fmt.Errorf("session %d as %s: got %v, want the server's connection limit error", n+1, user, err)
	}
	return conns, release, nil
}

// tenantRaisesOwnLimit: the owner's own attempts to lift its limit fail
// with the server's error (on MySQL/MariaDB also bundled with its own
// password change, which MySQL 9.7 lets a login bundle with ATTRIBUTE).
func (s accServer) tenantRaisesOwnLimit(user, pw, db string) error {
	attempts := []string{fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT 100", s.ident(user))}
	denied := regexp.MustCompile(`permission denied|42501`)
	if s.Engine != "postgres" {
		attempts = []string{
			"ALTER USER CURRENT_USER() WITH MAX_USER_CONNECTIONS 100",
			fmt.Sprintf("ALTER USER '%s'@'%%' IDENTIFIED BY '%s' WITH MAX_USER_CONNECTIONS 100", user, pw),
		}
		denied = regexp.MustCompile(`Error 1227|Access denied`)
	}
	for _, q := range attempts {
		if err := s.as(user, pw, db, q); err == nil || !denied.MatchString(err.Error()) {
			return fmt.Errorf("the tenant raising its own limit: got %v, want the server's access error", err)
		}
	}
	return nil
}

// wantOwnerMark (MySQL/MariaDB): the owner mark is untouched by the limit.
func (s accServer) wantOwnerMark(t *testing.T, kind, user, db string) error {
	t.Helper()
	if s.Engine == "postgres" {
		return nil
	}
	if got, want := s.updateLimit(t, user), ownerMarkOf(t, kind, db); got != want {
		return fmt.Errorf("login %s: MAX_UPDATES_PER_HOUR %d, want the owner mark %d", user, got, want)
	}
	return nil
}

// TestTenantOwner_connectionLimitRange: 0 and negative limits are refused
// when the configuration is validated, before any server is known or
// reached (0 means no connection on PostgreSQL and no limit on MySQL).
func TestTenantOwner_connectionLimitRange(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"0", "-1", "2147483648"} {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			TerraformVersionChecks:   writeOnlyTerraform,
			Steps: []resource.TestStep{{
				Config: `
resource "tenantdb_tenant_owner" "o" {
  server              = "unknown"
  database            = "acme"
  username            = "acme_app"
  password_wo         = "pw"
  password_wo_version = 1
  connection_limit    = ` + n + `
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`connection_limit ` + regexp.QuoteMeta(n) + ` is out of range`),
			}},
		})
	}
}
