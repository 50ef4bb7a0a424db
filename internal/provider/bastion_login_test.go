// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The two other ways to log in to a bastion than an unencrypted key: an
// encrypted key with private_key_passphrase, and a running ssh-agent.

// bastionLoginCase is one login under test: the server, its bastion, a
// workspace with TRACE logs, and one tenant's names.
type bastionLoginCase struct {
	s                 accServer
	d                 *testserver.SSHD
	w                 *cliWorkspace
	logs              string
	db, owner, reader string
}

func newBastionLoginCase(t *testing.T, kind string) *bastionLoginCase {
	c := &bastionLoginCase{s: testAccServer(t, kind), d: testserver.StartSSHD(t), logs: t.TempDir(),
		db: uniqueName("bkl"), owner: uniqueName("bkl"), reader: uniqueName("rep")}
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH", filepath.Join(c.logs, "terraform.log"))
	c.s.principal(t, c.reader)
	t.Cleanup(func() {
		c.s.dropDatabase(t, c.db)
		c.s.dropLogins(t, c.owner, c.reader)
	})
	c.w = newCLIWorkspace(t).inOwnProcess() // the tunnel lives as long as the provider's process
	return c
}

// config: the tenant through the bastion, logged in with login (its
// ssh_bastions lines besides the pin), after head (e.g. a variable).
func (c *bastionLoginCase) config(head, login, pw string, version int) string {
	return head + bastionConfig(c.s, c.d, login+"\n"+fmt.Sprintf("known_hosts = %q", c.d.KnownHosts),
		[]string{c.db}, []string{c.owner}, c.reader, pw, version)
}

// refused: the apply fails saying every one of wants, and creates nothing.
// It returns the error text.
func (c *bastionLoginCase) refused(t *testing.T, what, config string, wants ...string) string {
	t.Helper()
	c.w.write(config)
	res := c.w.run("apply", "-auto-approve").mustFail(t, what)
	var said strings.Builder
	for _, dg := range res.Diagnostics {
		if dg.Severity == "error" {
			said.WriteString(dg.Summary + ": " + dg.Detail + "\n")
		}
	}
	flat := strings.Join(strings.Fields(said.String()), " ")
	for _, want := range wants {
		if !strings.Contains(flat, want) {
			t.Fatalf("%s: the error does not say %q:\n%s", what, want, said.String())
		}
	}
	if c.s.databaseExists(t, c.db) {
		t.Fatalf("%s: a database was created", what)
	}
	t.Logf("%s: %s", what, said.String())
	return res.Output
}

// wholeTenant applies the tenant (the owner and grantee log in, the next
// plan is empty), rotates the owner's password, and destroys it, checking
// the server at each step. It returns the state before destroy and a
// plan's JSON, for the secret scans.
func (c *bastionLoginCase) wholeTenant(t *testing.T, config func(pw string, version int) string) (stateText, planJSON string) {
	t.Helper()
	s := c.s
	c.w.write(config("Bkl-pw-1", 1))
	c.w.run("apply", "-auto-approve").mustSucceed(t, "apply through the bastion")
	if err := s.as(c.owner, "Bkl-pw-1", c.db, "SELECT 1"); err != nil {
		t.Fatalf("the owner cannot log in: %v", err)
	}
	if err := s.as(c.reader, principalPW, c.db, "SELECT 1"); err != nil {
		t.Fatalf("the grantee cannot reach the database: %v", err)
	}
	if plan := c.w.run("plan", "-detailed-exitcode"); plan.Err != nil {
		t.Fatalf("plan after apply is not empty (or failed): %v\n%s", plan.Err, plan.Output)
	}
	c.w.write(config("Bkl-pw-2", 2))
	c.w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's password through the bastion")
	if err := s.as(c.owner, "Bkl-pw-2", c.db, "SELECT 1"); err != nil {
		t.Fatalf("the owner cannot log in with the new password: %v", err)
	}
	if s.as(c.owner, "Bkl-pw-1", c.db, "SELECT 1") == nil {
		t.Fatal("the owner still logs in with the old password")
	}
	planJSON, _ = savedPlan(t, c.w)
	stateText = c.w.stateText()
	c.w.run("destroy", "-auto-approve").mustSucceed(t, "destroy through the bastion")
	if s.databaseExists(t, c.db) || s.loginExists(t, c.owner) {
		t.Fatal("destroy kept the database or the owner")
	}
	return stateText, planJSON
}

// TestAccSSHBastion_passphrase logs in to a real OpenSSH bastion with a key
// ssh-keygen encrypted (private_key_passphrase from an ephemeral
// variable), on each kind of server. A wrong passphrase is refused before
// any connection, with an error naming the server's ssh_bastions entry and
// saying the passphrase does not decrypt the key; nothing is created. With
// the right one a whole tenant applies, rotates and is destroyed (checked
// on the server). Neither passphrase nor the key is in the state, a plan's
// JSON, the TRACE log or the error text.
func TestAccSSHBastion_passphrase(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			c := newBastionLoginCase(t, kind)
			const passphrase, wrong = "Key-passphrase-8b3e", "Wrong-passphrase-2c6a"
			keyPEM, pub := testserver.NewEncryptedSSHKey(t, passphrase)
			c.d.Authorize(t, pub)
			if err := os.WriteFile(filepath.Join(c.w.dir, "bastion-key"), []byte(keyPEM), 0o600); err != nil {
				t.Fatal(err)
			}
			const head = "\nvariable \"key_passphrase\" {\n  type      = string\n  sensitive = true\n  ephemeral = true\n}\n"
			login := bastionKeyFile + "\nprivate_key_passphrase = var.key_passphrase"
			config := func(pw string, version int) string { return c.config(head, login, pw, version) }

			t.Setenv("TF_VAR_key_passphrase", wrong)
			errText := c.refused(t, "a wrong passphrase", config("Bkl-pw-1", 1),
				fmt.Sprintf("ssh_bastions[%q]", c.s.name), "private_key_passphrase does not decrypt the SSH private key")

			t.Setenv("TF_VAR_key_passphrase", passphrase)
			stateText, planJSON := c.wholeTenant(t, config)
			logText := readAll(t, c.logs)
			for what, text := range map[string]string{"the state": stateText, "the plan JSON": planJSON, "the TRACE log": logText,
				"the error text": errText} {
				if !strings.Contains(text, c.db) && what != "the error text" { // refused checked what it says
					t.Fatalf("%s does not name the tenant database: searching it proves nothing", what)
				}
				if l := leak(text, passphrase, wrong); l != "" {
					t.Errorf("%s contains %s", what, l)
				}
				if l := keyLeak(text, keyPEM); l != "" {
					t.Errorf("%s contains %s", what, l)
				}
			}
		})
	}
}

// TestAccSSHBastion_agent logs in to a real OpenSSH bastion through a real
// ssh-agent (agent_socket, no private_key), on each kind of server. While
// the agent holds only a key the bastion does not authorise, the apply is
// refused saying the bastion refused every key of that agent, and nothing
// is created; once ssh-add gives it the user's key, a whole tenant
// applies, rotates and is destroyed (checked on the server).
func TestAccSSHBastion_agent(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			c := newBastionLoginCase(t, kind)
			agent := testserver.StartSSHAgent(t)
			other, _ := testserver.NewSSHKey(t)
			agent.Add(t, other)
			login := fmt.Sprintf("agent_socket = %q", agent.Socket)
			config := func(pw string, version int) string { return c.config("", login, pw, version) }

			c.refused(t, "an agent without the user's key", config("Bkl-pw-1", 1),
				"refused user "+fmt.Sprintf("%q", c.d.User), "every key of the ssh-agent at "+agent.Socket, fmt.Sprintf("ssh_bastions[%q]", c.s.name))

			agent.Add(t, c.d.ClientKeyPEM)
			c.wholeTenant(t, config)
		})
	}
}
