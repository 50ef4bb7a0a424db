// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// socks5Config: server s through the proxy at proxyURL (credentials user
// and the ephemeral variable proxy_password, TF_VAR_proxy_password, in the
// provider block when user is set), one tenant. operation_timeout is short
// so that a refresh with the proxy gone gives up soon.
func socks5Config(s accServer, proxyURL, user, db, owner, reader, pw string, version int) string {
	creds := ""
	if user != "" {
		creds = fmt.Sprintf("  socks5_proxies = {\n    %s = { username = %q, password = var.proxy_password }\n  }\n", hclKey(s.name), user)
	}
	return "\nvariable \"proxy_password\" {\n  type      = string\n  default   = \"\"\n  sensitive = true\n  ephemeral = true\n}\n" +
		fmt.Sprintf("\nprovider \"tenantdb\" {\n  operation_timeout = \"30s\"\n  ca_certs = { %s = %q }\n%s}\n", hclKey(s.name), s.CAPEM, creds) +
		s.serverResourceHCL("main", s.name, s.Port, fmt.Sprintf("  socks5_proxy = %q", proxyURL)) +
		tenantBlockHCL("t0", db, owner, reader, pw, version)
}

// TestAccSOCKS5_tenant runs a tenant through two real SOCKS5 proxies on
// each kind of server: Debian's dante-server with username/password
// authentication (testserver.StartDante) and OpenSSH's own, without
// (ssh -D through the harness's sshd). A wrong proxy password is refused
// with an error that says so, and nothing is created; with the right one
// a whole tenant applies (the owner and grantee log in, danted logged the
// connections it relayed) and the owner's password rotates; with danted
// stopped a refresh cannot reach the server (the path really is the
// proxy). Moving the server to ssh -D applies with an empty plan after,
// and with ssh -D stopped a refresh cannot reach the server either; moving
// back to danted, destroy drops the database and owner through it. The
// proxy passwords (from an ephemeral variable, as a real configuration
// gives them) are in no state, plan JSON, TRACE log or error text.
func TestAccSOCKS5_tenant(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccServer(t, kind)
			const proxyPW, wrongPW = "Proxy-secret-4f9c1", "Wrong-proxy-7d2e8"
			authed := testserver.StartDante(t, proxyPW)
			open := testserver.StartSSHD(t).DynamicForward(t)
			logs := t.TempDir()
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_LOG_PATH", filepath.Join(logs, "terraform.log"))
			db, owner, reader := uniqueName("sox"), uniqueName("sox"), uniqueName("rep")
			s.principal(t, reader)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, reader)
			})
			w := newCLIWorkspace(t).inOwnProcess() // the proxied connections live as long as the provider's process
			var errorText strings.Builder
			viaDante := func(pw string, version int) string {
				return socks5Config(s, authed.URL(), authed.User, db, owner, reader, pw, version)
			}
			unreachable := func(what string) {
				t.Helper()
				down := w.run("plan", "-refresh-only")
				down.requireDiag(t, "warning", summaryRefresh)
				errorText.WriteString(down.Output)
				if strings.Contains(down.Output, `"type":"resource_drift"`) {
					t.Fatalf("%s: the refresh changed state:\n%s", what, down.Output)
				}
			}

			t.Setenv("TF_VAR_proxy_password", wrongPW)
			w.write(viaDante("Socks-pw-1", 1))
			res := w.run("apply", "-auto-approve").mustFail(t, "apply with a wrong proxy password")
			errorText.WriteString(res.Output)
			if flat := strings.Join(strings.Fields(res.Output), " "); !strings.Contains(flat, "refused the username and password") ||
				!strings.Contains(flat, authed.User) {
				t.Fatalf("the error does not say the proxy refused the login:\n%s", res.Output)
			}
			for _, dg := range res.Diagnostics {
				if dg.Severity == "error" {
					t.Logf("wrong proxy password: %s: %s", dg.Summary, dg.Detail)
				}
			}
			if authed.Refused() == 0 || s.databaseExists(t, db) {
				t.Fatalf("danted refused %d logins; database exists: %t", authed.Refused(), s.databaseExists(t, db))
			}

			t.Setenv("TF_VAR_proxy_password", proxyPW)
			w.write(viaDante("Socks-pw-1", 1))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through danted")
			if authed.Relayed() == 0 {
				t.Fatalf("danted relayed nothing:\n%s", authed.Log())
			}
			if err := s.as(owner, "Socks-pw-1", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in: %v", err)
			}
			if err := s.as(reader, principalPW, db, "SELECT 1"); err != nil {
				t.Fatalf("the grantee cannot reach the database: %v", err)
			}
			w.write(viaDante("Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's password through danted")
			if err := s.as(owner, "Socks-pw-2", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in with the new password: %v", err)
			}
			if s.as(owner, "Socks-pw-1", db, "SELECT 1") == nil {
				t.Fatal("the owner still logs in with the old password")
			}
			planJSON, _ := savedPlan(t, w)
			// The path really is the proxy: with danted stopped, a refresh
			// cannot reach the server (a warning keeps state as last read).
			authed.Stop(t)
			unreachable("danted stopped")
			authed.Start(t)

			w.write(socks5Config(s, open.URL(), "", db, owner, reader, "Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through ssh -D (no authentication)")
			if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
				t.Fatalf("plan through ssh -D is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}
			open.Stop()
			unreachable("ssh -D stopped")

			w.write(viaDante("Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "move back to danted")
			stateText := w.stateText()
			relayed := authed.Relayed()
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy through danted")
			if s.databaseExists(t, db) || s.loginExists(t, owner) {
				t.Fatal("destroy kept the database or the owner")
			}
			if authed.Relayed() == relayed {
				t.Fatal("destroy did not go through danted")
			}
			logText := readAll(t, logs)
			for what, text := range map[string]string{"the state": stateText, "the plan JSON": planJSON, "the TRACE log": logText,
				"the error text": errorText.String()} {
				if !strings.Contains(text, db) {
					t.Fatalf("%s does not name the tenant database: searching it proves nothing", what)
				}
				if l := leak(text, proxyPW, wrongPW); l != "" {
					t.Errorf("%s contains %s", what, l)
				}
			}
		})
	}
}
