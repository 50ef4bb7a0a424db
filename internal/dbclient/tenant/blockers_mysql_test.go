// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestBlockersMySQL_namedWhileWaiting (MySQL/MariaDB, issue 34 item 2): a
// superuser holds LOCK TABLES on the table CREATE USER writes (MariaDB
// mysql.global_priv, MySQL mysql.user), so an owner create waits until the
// operation's deadline ends it (KILL QUERY). The error names, read while
// it waited, what the admin can see of the holder:
//
//   - the documented minimal admin sees only its own sessions: the error
//     says a session it cannot see holds the lock, and which right (PROCESS)
//     or server setting would name it;
//   - an admin with PROCESS: the process list's other sessions, the
//     superuser's among them (connection id, user, how long), said to be
//     candidates, since the server does not say which lock each holds;
//   - MariaDB with the METADATA_LOCK_INFO plugin loaded: the holder and
//     the lock it holds (mysql.global_priv).
//
// Before, the error said only that the statement was cancelled.
func TestBlockersMySQL_namedWhileWaiting(t *testing.T) {
	for _, kind := range engines {
		if kind == "postgres" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			table := "mysql.user"
			if kind == "mariadb" {
				table = "mysql.global_priv"
			}
			withProcess := e.ts.CreateAdminLogin(t, uniqueName("blkadm"))
			e.super("GRANT PROCESS ON *.* TO '" + withProcess.Username + "'@'%'")
			superName := e.ts.Super.Username

			cases := []struct {
				name   string
				admin  func() *Server
				plugin bool
				want   func(superID int64) []string
			}{
				{"minimal admin", func() *Server { return e.s }, false, func(int64) []string {
					return []string{"a session the admin cannot see", "GRANT PROCESS ON *.* TO the admin"}
				}},
				{"admin with PROCESS", func() *Server { return e.serverAs(withProcess) }, false, func(id int64) []string {
					return []string{fmt.Sprintf("connection %d user %q, in its current state for", id, superName),
						"these are the other sessions the admin can see; the server does not say which lock each holds"}
				}},
			}
			if kind == "mariadb" {
				cases = append(cases, struct {
					name   string
					admin  func() *Server
					plugin bool
					want   func(superID int64) []string
				}{"admin with PROCESS, metadata_lock_info loaded", func() *Server { return e.serverAs(withProcess) }, true,
					func(id int64) []string {
						return []string{fmt.Sprintf("connection %d user %q, in its current state for", id, superName), "on mysql.global_priv"}
					}})
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if c.plugin {
						e.super("INSTALL SONAME 'metadata_lock_info'")
						t.Cleanup(func() { _, _ = e.superDB().Exec("UNINSTALL SONAME 'metadata_lock_info'") })
					}
					s := c.admin()
					db, user := e.newDB("blk"), e.newUser("blko")
					if _, _, err := s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
						t.Fatal(err)
					}
					super, err := e.superDB().Conn(e.ctx)
					if err != nil {
						t.Fatal(err)
					}
					defer super.Close()
					var superID int64
					if err := super.QueryRowContext(e.ctx, "SELECT CONNECTION_ID()").Scan(&superID); err != nil {
						t.Fatal(err)
					}
					if _, err := super.ExecContext(e.ctx, "LOCK TABLES "+table+" READ"); err != nil {
						t.Fatal(err)
					}
					defer func() { _, _ = super.ExecContext(context.Background(), "UNLOCK TABLES") }()

					ctx, cancel := context.WithTimeout(e.ctx, 3*time.Second)
					defer cancel()
					_, err = s.ClaimOwner(ctx, db, user, mustPassword(t, "Blocked-1"), mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
					if err == nil {
						t.Fatal("the owner create succeeded although CREATE USER was blocked")
					}
					t.Logf("the error: %v", err)
					for _, want := range c.want(superID) {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("the error lacks %q:\n%v", want, err)
						}
					}
				})
			}
		})
	}
}

// serverAs is the server reached as login (an admin of the test's own),
// with the default lock_timeout.
func (e *env) serverAs(login testserver.Login) *Server {
	e.t.Helper()
	s, err := e.reg.Server(e.ctx, adminSpec(e.t, e.ts, login))
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// TestBlockerQueries_runOnServer: each blocker query parses and runs on the
// server it is for (as the superuser, so a missing right is not what
// fails). MySQL's performance_schema query runs here with performance_schema
// off (its tables exist and are empty), which checks its SQL, not what it
// finds; MariaDB's needs the metadata_lock_info plugin.
func TestBlockerQueries_runOnServer(t *testing.T) {
	for _, kind := range engines {
		if kind == "postgres" {
			continue
		}
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			queries := map[string]string{"process list": session.ProcessListCandidates, "performance_schema": session.MySQLLockHolders}
			if kind == "mariadb" {
				e.super("INSTALL SONAME 'metadata_lock_info'")
				t.Cleanup(func() { _, _ = e.superDB().Exec("UNINSTALL SONAME 'metadata_lock_info'") })
				queries = map[string]string{"process list": session.ProcessListCandidates, "metadata_lock_info": session.MariadbLockHolders}
			}
			for name, q := range queries {
				args := []any{int64(1)}
				if strings.Count(q, "?") == 2 {
					args = append(args, int64(1))
				}
				rows, err := e.superDB().QueryContext(e.ctx, q, args...)
				if err != nil {
					t.Errorf("%s query: %v", name, err)
					continue
				}
				rows.Close()
			}
		})
	}
}
