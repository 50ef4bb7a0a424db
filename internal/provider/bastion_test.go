// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// bastionKeyFile is an ssh_bastions entry's line giving the key in
// bastion-key in the workspace.
const bastionKeyFile = `private_key = file("${path.module}/bastion-key")`

// bastionLoginHCL is the provider's ssh_bastions entry for name: login is
// its attribute lines (the key or agent, and the pin).
func bastionLoginHCL(name, login string) string {
	return fmt.Sprintf("  ssh_bastions = {\n    %s = {\n      %s\n    }\n  }\n", hclKey(name), strings.ReplaceAll(login, "\n", "\n      "))
}

// bastionConfig: the server s through the sshd d logged in with login
// (bastionLoginHCL), and n tenants (database under delete, owner with
// password pw at version, and a grant to reader).
func bastionConfig(s accServer, d *testserver.SSHD, login string, dbs, owners []string, reader, pw string, version int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nprovider \"tenantdb\" {\n  ca_certs = { %s = %q }\n%s}\n", hclKey(s.name), s.CAPEM, bastionLoginHCL(s.name, login))
	b.WriteString(s.serverResourceHCL("main", s.name, s.Port,
		fmt.Sprintf("  ssh_bastion = {\n    host = \"127.0.0.1\"\n    port = %d\n    user = %q\n  }", d.Port, d.User)))
	for i := range dbs {
		b.WriteString(tenantBlockHCL(fmt.Sprintf("t%d", i), dbs[i], owners[i], reader, pw, version))
	}
	return b.String()
}

// TestAccSSHBastion_tenant runs a tenant through a real OpenSSH bastion
// (testserver.StartSSHD) on each kind of server. Refused, with nothing
// created on the server: a pinned fingerprint that is not the bastion's
// (the error names the fingerprint seen), known_hosts without the
// bastion's key (unknown host key, fingerprint named), and a user key the
// bastion does not authorise. Then, with the right key and known_hosts: a
// whole tenant (database, owner, grant; the owner and the grantee log in;
// the next plan is empty), the owner's password rotation, an apply with
// the bastion down fails (the connections really go through it), sshd
// killed in the middle of an apply of more tenants (run one resource at a
// time) and the next apply converging with an empty plan after it, and
// a plan after the bastion's host key changed failing (an error, not a
// refresh warning), and destroy dropping every database and owner. The
// bastion's private key is in no state, plan JSON or TRACE log.
func TestAccSSHBastion_tenant(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccServer(t, kind)
			d := testserver.StartSSHD(t)
			logs := t.TempDir()
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_LOG_PATH", filepath.Join(logs, "terraform.log"))

			const tenants = 4
			reader := uniqueName("rep")
			s.principal(t, reader)
			var dbs, owners []string
			for range tenants {
				dbs, owners = append(dbs, uniqueName("bst")), append(owners, uniqueName("bst"))
			}
			t.Cleanup(func() {
				s.dropDatabase(t, dbs...)
				s.dropLogins(t, append(owners, reader)...)
			})
			w := newCLIWorkspace(t).inOwnProcess() // the tunnel lives as long as the provider's process
			useKey := func(keyPEM string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(w.dir, "bastion-key"), []byte(keyPEM), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			good := fmt.Sprintf("known_hosts = %q", d.KnownHosts)
			cfg := func(pin string, n int, pw string, version int) string {
				return bastionConfig(s, d, bastionKeyFile+"\n"+pin, dbs[:n], owners[:n], reader, pw, version)
			}
			refused := func(what, pin string, wants ...string) {
				t.Helper()
				w.write(cfg(pin, 1, "Bastion-pw-1", 1))
				res := w.run("apply", "-auto-approve").mustFail(t, what)
				flat := strings.Join(strings.Fields(res.Output), " ")
				for _, want := range wants {
					if !strings.Contains(flat, want) {
						t.Fatalf("%s: the error does not say %q:\n%s", what, want, res.Output)
					}
				}
				if s.databaseExists(t, dbs[0]) {
					t.Fatalf("%s: a database was created", what)
				}
			}

			useKey(d.ClientKeyPEM)
			other := testserver.StartSSHD(t) // another host key, for the wrong pins
			refused("a pinned fingerprint that is not the bastion's", fmt.Sprintf("host_key_fingerprint = %q", other.HostKeyFingerprint),
				d.HostKeyFingerprint, "none of the pinned keys (host_key_fingerprint "+other.HostKeyFingerprint, "not the pinned "+other.HostKeyFingerprint)
			refused("known_hosts without the bastion's key", fmt.Sprintf("known_hosts = %q", other.KnownHosts),
				d.HostKeyFingerprint, "unknown host key")
			unauthorised, _ := testserver.NewSSHKey(t)
			useKey(unauthorised)
			refused("a key the bastion does not authorise", good, "refused user", "authorized_keys")
			other.Kill(t)

			// Through the bastion: a whole tenant.
			useKey(d.ClientKeyPEM)
			w.write(cfg(good, 1, "Bastion-pw-1", 1))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through the bastion")
			checkTenant := func(i int, pw string) {
				t.Helper()
				if !s.databaseExists(t, dbs[i]) {
					t.Fatalf("database %s is not on the server", dbs[i])
				}
				if err := s.as(owners[i], pw, dbs[i], "SELECT 1"); err != nil {
					t.Fatalf("owner %s cannot log in: %v", owners[i], err)
				}
				if err := s.as(reader, principalPW, dbs[i], "SELECT 1"); err != nil {
					t.Fatalf("the grantee cannot reach %s: %v", dbs[i], err)
				}
			}
			checkTenant(0, "Bastion-pw-1")
			if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
				t.Fatalf("plan after apply is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}
			if ref := w.stateServer("tenantdb_tenant_database"); ref.SSH != fmt.Sprintf("%s@127.0.0.1:%d", d.User, d.Port) {
				t.Fatalf("the tenant's ref has ssh %q", ref.SSH)
			}
			w.write(cfg(good, 1, "Bastion-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's password through the bastion")
			checkTenant(0, "Bastion-pw-2")
			if s.as(owners[0], "Bastion-pw-1", dbs[0], "SELECT 1") == nil {
				t.Fatal("the owner still logs in with the old password")
			}
			planJSON, _ := savedPlan(t, w)

			// The bastion down: nothing reaches the server.
			d.Kill(t)
			w.write(cfg(good, 2, "Bastion-pw-2", 2))
			w.run("apply", "-auto-approve").mustFail(t, "apply with the bastion down")
			if s.databaseExists(t, dbs[1]) {
				t.Fatal("a database was created with the bastion down: the connection did not go through it")
			}
			d.Start(t)

			// Killed in the middle of an apply (its SSH connection and every
			// channel drop) and back a second later, while the apply still
			// runs: the provider dials the bastion again, as it reconnects
			// after a lost database connection, and settles what was in
			// flight. The next apply converges whatever this one reported.
			w.write(cfg(good, tenants, "Bastion-pw-2", 2))
			done := make(chan cliResult, 1)
			go func() { done <- w.run("apply", "-auto-approve", "-parallelism=1") }()
			killed := false
		wait:
			for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				select {
				case res := <-done:
					done <- res
					break wait
				default:
				}
				if s.databaseExists(t, dbs[1]) {
					d.Kill(t)
					killed = true
					time.Sleep(time.Second)
					d.Start(t)
					break
				}
			}
			res := <-done
			if !killed {
				t.Fatalf("the apply ended before the bastion could be killed:\n%s", res.Output)
			}
			t.Logf("the apply with the bastion killed in it: err=%v", res.Err)
			for _, dg := range res.Diagnostics {
				t.Logf("  %s: %s: %.400s", dg.Severity, dg.Summary, dg.Detail)
			}
			// A kill that lands between CREATE DATABASE and its claim mark
			// leaves the one documented window (on a direct connection
			// too): DatabasePreExists saying the connection was lost during
			// the create. The test then does what that refusal says: import.
			imported := map[int]bool{}
			next := w.run("apply", "-auto-approve")
			if next.Err != nil {
				var imports strings.Builder
				for _, dg := range next.Diagnostics {
					if dg.Severity != "error" {
						continue
					}
					i := slices.IndexFunc(dbs, func(db string) bool { return strings.Contains(dg.Summary, strconv.Quote(db)) })
					if !strings.HasPrefix(dg.Summary, "DatabasePreExists") || !strings.Contains(dg.Detail, "The connection was lost") || i < 0 {
						t.Fatalf("apply after the bastion came back: %s: %s", dg.Summary, dg.Detail)
					}
					imported[i] = true
					fmt.Fprintf(&imports, "\nimport {\n  to = tenantdb_tenant_database.t%d\n  id = jsonencode({ server = tenantdb_db_server.main.ref, name = %q })\n}\n", i, dbs[i])
				}
				t.Logf("the kill left the lost-create window on %v: importing, as the refusal says", imported)
				w.write(cfg(good, tenants, "Bastion-pw-2", 2) + imports.String())
				w.run("apply", "-auto-approve").mustSucceed(t, "apply after the bastion came back, with the import the refusal gives")
			}
			for i := range tenants {
				checkTenant(i, "Bastion-pw-2")
			}
			if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
				t.Fatalf("plan after converging is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}

			// The bastion's host key changed between apply and plan: the
			// plan fails (a drift check in CI goes red), naming the key
			// presented; it never reads as "No changes".
			restore := d.SwapHostKey(t)
			changed := w.run("plan", "-detailed-exitcode").mustFail(t, "plan with the bastion's host key changed")
			if flat := strings.Join(strings.Fields(changed.Output), " "); !strings.Contains(flat, "SSH bastion host key not proven") ||
				!strings.Contains(flat, "none of the pinned keys") || strings.Contains(flat, "No changes") {
				t.Fatalf("plan with a changed host key does not fail on the unproven bastion:\n%s", changed.Output)
			}
			restore()

			stateText := w.stateText()
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy through the bastion")
			for i := range tenants {
				if s.databaseExists(t, dbs[i]) != imported[i] {
					t.Fatalf("after destroy, database %s exists: %t (imported, so never dropped: %t)", dbs[i], !imported[i], imported[i])
				}
				if s.loginExists(t, owners[i]) {
					t.Fatalf("destroy kept %s", owners[i])
				}
			}
			logText := readAll(t, logs)
			for what, text := range map[string]string{"the state": stateText, "the plan JSON": planJSON, "the TRACE log": logText} {
				if !strings.Contains(text, dbs[0]) {
					t.Fatalf("%s does not name the tenant database: searching it proves nothing", what)
				}
				for _, k := range []string{d.ClientKeyPEM, unauthorised} {
					if l := keyLeak(text, k); l != "" {
						t.Errorf("%s contains %s", what, l)
					}
				}
			}
		})
	}
}
