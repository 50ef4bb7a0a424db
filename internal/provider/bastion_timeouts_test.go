// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// viaBastion is s reached only through a real OpenSSH bastion: its
// serverHCL names the database testserver.BastionOnlyHost, a host name
// only that sshd resolves (its own /etc/hosts, testserver.SSHDResolves),
// with ssh_bastion and the provider's ssh_bastions entry (the key and the
// bastion's known_hosts line, inline). Any connection the provider opens
// without the bastion (a pool's, KILL QUERY's, pgx's cancel request's)
// fails to resolve the name. The harness's own sessions (superuser, logins)
// still reach the server directly.
func (s accServer) viaBastion(t *testing.T) accServer {
	t.Helper()
	s.bastion = testserver.StartSSHD(t, testserver.SSHDResolves(testserver.BastionOnlyHost, s.Host))
	return s
}

// bastionServerBlock is serverBlock through s.bastion.
func (s accServer) bastionServerBlock(port int, caPEM, extra string) string {
	d := s.bastion
	login := fmt.Sprintf("  ssh_bastions = {\n    %s = {\n      private_key = %q\n      known_hosts = %q\n    }\n  }\n",
		hclKey(s.name), d.ClientKeyPEM, d.KnownHosts)
	provider := strings.Replace(caCertsHCL(map[string]string{s.name: caPEM}),
		"\nprovider \"tenantdb\" {\n", "\nprovider \"tenantdb\" {\n"+login, 1)
	jump := fmt.Sprintf("  ssh_bastion = {\n    host = \"127.0.0.1\"\n    port = %d\n    user = %q\n  }\n", d.Port, d.User)
	server := strings.Replace(s.serverResourceHCL("main", s.name, port, jump+extra),
		fmt.Sprintf("  host     = %q\n", s.Host), fmt.Sprintf("  host     = %q\n", testserver.BastionOnlyHost), 1)
	return provider + server
}

// TestAccSSHBastion_timeouts: lock and operation timeouts, cancels and
// kill points behave through an SSH bastion as without one (issue 44). The
// server is reached only through the bastion (viaBastion: a host name only
// the sshd resolves), and each case is the direct test's own body:
//
//   - lock_timeout: a lock wait past lock_timeout fails in about that
//     time, describing the session that holds the lock (MySQL family:
//     TestAccLockTimeout_dropBlocked's destroy under a metadata lock;
//     PostgreSQL: TestAccLockTimeout_rotationBlocked's REASSIGN OWNED
//     under ACCESS SHARE), and the operation is undone;
//   - operation_timeout: the statement is stopped ON THE SERVER
//     (TestAccOperationTimeout_cancelledOnServer: KILL QUERY, from a second
//     connection that must go through the bastion too; the admin runs no
//     statement after the apply and nothing lands once the lock goes;
//     PostgreSQL: ..._cancelledOnServerPostgres: pgx's cancel request, a
//     new connection dialled by the provider's DialFunc to the channel's
//     address, so through the bastion; the ALTER ROLE never commits);
//   - kill_point / timeout_point: the kill-point suite's owner create,
//     terraform and the provider SIGKILLed after the middle statement, and
//     the operation's deadline at that statement (KILL QUERY / cancel
//     request through the bastion); the next apply converges, the server
//     holds what the configuration says, destroy leaves nothing.
//
// A KILL QUERY or cancel request dialled past the bastion fails to resolve
// the name, the statement runs on and the test fails (checked).
func TestAccSSHBastion_timeouts(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccServer(t, kind).viaBastion(t)
			t.Run("lock_timeout", func(t *testing.T) {
				if s.Engine == "postgres" {
					s.lockTimeoutRotationBlocked(t)
					return
				}
				// The blocker is looked up while the statement waits, on
				// another connection through the bastion. The minimal admin
				// (no PROCESS) is told it cannot see the session and what
				// right would show it, as directly.
				if out := s.lockTimeoutDropBlocked(t); !strings.Contains(out, "blocked by") {
					t.Fatalf("the lock-timeout error does not describe the session holding the lock:\n%s", out)
				}
			})
			t.Run("operation_timeout", func(t *testing.T) {
				if s.Engine == "postgres" {
					s.operationTimeoutCancelled(t)
					return
				}
				s.operationTimeoutKilled(t)
			})
			op := killOps()[slices.IndexFunc(killOps(), func(op killOp) bool { return op.name == "owner_create" })]
			for _, point := range []struct {
				kind string
				at   func(*testing.T, *cliWorkspace, int) ([]string, bool)
			}{{"kill", s.applyStoppedAfter}, {"timeout", s.applyTimedOutAt}} {
				t.Run(point.kind+"_point", func(t *testing.T) {
					reached := false
					at := func(t *testing.T, w *cliWorkspace, k int) ([]string, bool) {
						stmts, stopped := point.at(t, w, k)
						reached = stopped
						return stmts, stopped
					}
					stmts := s.terraformInterruptPoint(t, op, 0, "", "forward", point.kind, at)
					k := (len(stmts) + 1) / 2
					t.Logf("%s point at statement %d of %d: %s", point.kind, k, len(stmts), statementAt(stmts, k))
					s.terraformInterruptPoint(t, op, k, statementAt(stmts, k), "forward", point.kind, at)
					if !reached {
						t.Fatalf("the apply ended before its statement %d: no %s point", k, point.kind)
					}
				})
			}
		})
	}
}
