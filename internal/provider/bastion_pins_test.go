// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// pinsConfig is the provider block (CAs, the key in bastion-key, each
// server's pin lines) and a db_server per entry of bastions, through that
// sshd, plus extra.
func pinsConfig(s accServer, bastions map[string]*testserver.SSHD, pins map[string]string, extra string) string {
	var cas, pw, jumps, servers strings.Builder
	for _, name := range []string{s.name, "badname", "expired", "silent"} {
		d := bastions[name]
		if d == nil {
			continue
		}
		fmt.Fprintf(&cas, "    %s = %q\n", name, s.CAPEM)
		fmt.Fprintf(&jumps, "    %s = {\n      %s\n      %s\n    }\n", name, bastionKeyFile, strings.ReplaceAll(pins[name], "\n", "\n      "))
		label := "main"
		if name != s.name {
			label = name
			fmt.Fprintf(&pw, "    %s = \"Unused-pw-1\"\n", name) // never sent: the bastion is refused first
		}
		servers.WriteString(s.serverResourceHCL(label, name, s.Port,
			fmt.Sprintf("  ssh_bastion = {\n    host = \"127.0.0.1\"\n    port = %d\n    user = %q\n  }", d.Port, d.User)))
	}
	passwords := ""
	if pw.Len() > 0 {
		passwords = "  admin_passwords = {\n" + pw.String() + "  }\n"
	}
	return fmt.Sprintf("\nprovider \"tenantdb\" {\n  ca_certs = {\n%s  }\n%s  ssh_bastions = {\n%s  }\n}\n", cas.String(), passwords, jumps.String()) +
		servers.String() + extra
}

// TestAccSSHBastion_pins: host-key pins through real terraform (issue 60
// items 1, 2, 4 and 5), on a real OpenSSH bastion with the three host key
// types OpenSSH installs and a host certificate on its ed25519 key. Each
// pin is proven by a refresh (a plan of an existing server connects
// through the bastion; so does a plan of creates, issue 57): the server is created pinning the ed25519
// known_hosts line alone, then the ecdsa line alone, the rsa key's
// fingerprint alone and an @cert-authority line each refresh with an
// empty plan; @revoked with the same key's fingerprint fails the plan
// naming @revoked. Servers whose certificate names another host or has
// expired are refused at their create, saying so, and one behind a bastion
// that accepts and never answers fails after one connect timeout, naming
// that bastion as the hop that did not answer (item 6). Last, the bastion's
// session is stopped (SIGSTOP, as when NAT state is lost) in the middle of
// an apply, between two tenants (a terraform_data's local-exec waits for
// the test): the provider's keepalives (every 200 ms in this build) give
// the link up, the next tenant's connection dials the bastion again, and
// the apply completes.
func TestAccSSHBastion_pins(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccServer(t, kind)
			ca, err := testserver.NewSSHCA()
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			d := testserver.StartSSHD(t, testserver.SSHDAllHostKeyTypes(),
				testserver.SSHDHostCertificate(ca, []string{"127.0.0.1"}, now.Add(-time.Hour), now.Add(time.Hour)))
			if len(d.HostKeys) != 3 {
				t.Fatalf("the bastion has %d host keys, want ed25519, ecdsa and rsa", len(d.HostKeys))
			}
			dbs := []string{uniqueName("pin"), uniqueName("pin")}
			t.Cleanup(func() { s.dropDatabase(t, dbs...) })

			w := newCLIWorkspaceTagged(t, "killpoints").inOwnProcess() // the tunnel lives as long as the provider's process
			w.env = append(w.env, "TENANTDB_TEST_SSH_KEEPALIVE=200ms")
			write(t, filepath.Join(w.dir, "bastion-key"), d.ClientKeyPEM)
			main := map[string]*testserver.SSHD{s.name: d}
			pinned := func(pin string) string { return pinsConfig(s, main, map[string]string{s.name: pin}, "") }

			// Item 1: one pinned key of a multi-key bastion connects.
			w.write(pinned(fmt.Sprintf("known_hosts = %q", d.HostKeys[0].KnownHosts)))
			w.run("apply", "-auto-approve").mustSucceed(t, "create the server pinning the ed25519 known_hosts line alone")
			for _, c := range []struct{ what, pin string }{
				{"the ecdsa known_hosts line alone", fmt.Sprintf("known_hosts = %q", d.HostKeys[1].KnownHosts)},
				{"the rsa key's fingerprint alone", fmt.Sprintf("host_key_fingerprint = %q", d.HostKeys[2].Fingerprint)},
				// Item 2: the certificate, through its CA.
				{"an @cert-authority line", fmt.Sprintf("known_hosts = %q", d.CertAuthorityLine(ca.PublicKey()))},
			} {
				w.write(pinned(c.pin))
				w.requireEmptyPlan(t, "refreshing through the bastion pinned by "+c.what)
			}

			// Item 4: @revoked refuses whatever else is set.
			ed := d.HostKeys[0]
			w.write(pinned(fmt.Sprintf("known_hosts = %q\nhost_key_fingerprint = %q", d.RevokedLine(ed), ed.Fingerprint)))
			revoked := w.run("plan", "-detailed-exitcode").mustFail(t, "a plan with the pinned key @revoked")
			if flat := strings.Join(strings.Fields(revoked.Output), " "); !strings.Contains(flat, "@revoked") || !strings.Contains(flat, ed.Fingerprint) {
				t.Fatalf("the refusal of a revoked key does not say @revoked and name %s:\n%s", ed.Fingerprint, revoked.Output)
			}

			// Item 2: a certificate for another name, an expired one; and
			// item 6: a bastion that accepts and never answers, named as
			// the hop that timed out, after one connect timeout (created
			// in the same apply, so its 10 s overlap the others).
			badName := testserver.StartSSHD(t, testserver.SSHDHostCertificate(ca, []string{"bastion.other"}, now.Add(-time.Hour), now.Add(time.Hour)))
			expired := testserver.StartSSHD(t, testserver.SSHDHostCertificate(ca, []string{"127.0.0.1"}, now.Add(-2*time.Hour), now.Add(-time.Hour)))
			silent := &testserver.SSHD{Port: testserver.MuteListener(t), User: d.User}
			good := fmt.Sprintf("known_hosts = %q", ed.KnownHosts)
			w.write(pinsConfig(s, map[string]*testserver.SSHD{s.name: d, "badname": badName, "expired": expired, "silent": silent}, map[string]string{
				s.name:    good,
				"badname": fmt.Sprintf("known_hosts = %q", badName.CertAuthorityLine(ca.PublicKey())),
				"expired": fmt.Sprintf("known_hosts = %q", expired.CertAuthorityLine(ca.PublicKey())),
				"silent":  fmt.Sprintf("host_key_fingerprint = %q", ed.Fingerprint),
			}, ""))
			start := time.Now()
			refused := w.run("apply", "-auto-approve").mustFail(t, "servers behind a certificate for another name, an expired one, a silent bastion")
			if took := time.Since(start); took > 40*time.Second {
				t.Errorf("the apply took %s: the silent bastion was retried", took.Round(time.Second))
			}
			for _, c := range []struct {
				port int
				want string
			}{{badName.Port, "certificate"}, {expired.Port, "certificate"}, {silent.Port, "did not answer in time"}} {
				found := false
				for _, dg := range refused.Diagnostics {
					flat := strings.Join(strings.Fields(dg.Detail), " ")
					found = found || (dg.Severity == "error" && strings.Contains(flat, "127.0.0.1:"+strconv.Itoa(c.port)) &&
						strings.Contains(flat, c.want) && !strings.Contains(flat, "reachable and writable"))
				}
				if !found {
					t.Fatalf("no error naming the bastion on port %d and saying %q:\n%s", c.port, c.want, refused.Output)
				}
			}

			// Item 5: the session stopped between two tenants of one apply.
			freeze := fmt.Sprintf(`
resource "tenantdb_tenant_database" "t0" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}

resource "terraform_data" "freeze" {
  depends_on = [tenantdb_tenant_database.t0]
  provisioner "local-exec" {
    command = "touch freeze-now; for i in $(seq 600); do [ -e frozen ] && exit 0; sleep 0.1; done; exit 1"
  }
}

resource "tenantdb_tenant_database" "t1" {
  depends_on      = [terraform_data.freeze]
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
`, dbs[0], dbs[1])
			w.write(pinsConfig(s, main, map[string]string{s.name: good}, freeze))
			logins := strings.Count(d.Log(), "Accepted publickey")
			done := make(chan cliResult, 1)
			go func() { done <- w.run("apply", "-auto-approve") }()
			var frozenAt time.Time
			var res cliResult
		wait:
			for {
				select {
				case res = <-done:
					break wait
				case <-time.After(20 * time.Millisecond):
				}
				if !frozenAt.IsZero() {
					continue
				}
				if _, err := os.Stat(filepath.Join(w.dir, "freeze-now")); err != nil {
					continue
				}
				live := establishedTo(t, d.Port)
				d.FreezeSessions(t)
				// Go on once the provider has given the link up (its end
				// closed: the stopped session's socket in CLOSE_WAIT), so
				// the next tenant needs a new SSH connection.
				for deadline := time.Now().Add(30 * time.Second); len(live) > 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					still := establishedTo(t, d.Port)
					for remote := range live {
						if !still[remote] {
							delete(live, remote)
						}
					}
				}
				if len(live) > 0 {
					t.Errorf("the provider kept its stopped SSH connection for 30 s: no keepalive gave it up")
				}
				frozenAt = time.Now()
				write(t, filepath.Join(w.dir, "frozen"), "")
			}
			res.mustSucceed(t, "the apply whose bastion session was stopped between two tenants")
			if frozenAt.IsZero() {
				t.Fatal("the apply never reached the freeze")
			}
			if took := time.Since(frozenAt); took > time.Minute {
				t.Errorf("the apply took %s after the freeze", took.Round(time.Second))
			}
			for _, db := range dbs {
				if !s.databaseExists(t, db) {
					t.Fatalf("database %s is not on the server", db)
				}
			}
			if n := strings.Count(d.Log(), "Accepted publickey"); n < logins+2 {
				t.Errorf("%d SSH logins during the apply, want 2 or more (the first, and the redial after the freeze)", n-logins)
			}
		})
	}
}

// establishedTo is the remote ends of the established TCP connections to
// 127.0.0.1:port (read from /proc/net/tcp).
func establishedTo(t *testing.T, port int) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	local := fmt.Sprintf("0100007F:%04X", port)
	out := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 3 && f[1] == local && f[3] == "01" { // 01: ESTABLISHED
			out[f[2]] = true
		}
	}
	return out
}
