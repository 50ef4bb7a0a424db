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

// TestAccSOCKS5_tenant runs a tenant through a SOCKS5 proxy
// (testserver.StartSOCKS5) on each kind of server: with a wrong proxy
// password the apply is refused and nothing is created; with the right
// credentials a whole tenant applies (the owner and grantee log in, the
// proxy relayed the connections), the owner's password rotates, moving the
// server to OpenSSH's own SOCKS5 proxy (ssh -D through a real sshd, no
// authentication) applies through it with an empty plan after, a refresh
// with ssh -D stopped cannot reach the server, and destroy drops the
// database and owner. The proxy password (from an ephemeral variable, as a
// real configuration gives it) is in no state, plan JSON or TRACE log.
func TestAccSOCKS5_tenant(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			s := testAccServer(t, kind)
			const proxyPW = "Proxy-secret-4f9c1"
			authed := testserver.StartSOCKS5(t, "tenantdb", proxyPW)
			// Without authentication: OpenSSH's own SOCKS5 proxy, ssh -D
			// through a real sshd (the proxy with credentials is test code:
			// ssh -D offers none).
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
			w := newCLIWorkspace(t)

			t.Setenv("TF_VAR_proxy_password", "not-the-password")
			w.write(socks5Config(s, authed.URL(), "tenantdb", db, owner, reader, "Socks-pw-1", 1))
			w.run("apply", "-auto-approve").mustFail(t, "apply with a wrong proxy password")
			if authed.Refused.Load() == 0 || s.databaseExists(t, db) {
				t.Fatalf("the proxy refused %d logins; database exists: %t", authed.Refused.Load(), s.databaseExists(t, db))
			}

			t.Setenv("TF_VAR_proxy_password", proxyPW)
			w.write(socks5Config(s, authed.URL(), "tenantdb", db, owner, reader, "Socks-pw-1", 1))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through the proxy")
			if authed.Connections.Load() == 0 {
				t.Fatal("the proxy relayed nothing")
			}
			if err := s.as(owner, "Socks-pw-1", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in: %v", err)
			}
			if err := s.as(reader, principalPW, db, "SELECT 1"); err != nil {
				t.Fatalf("the grantee cannot reach the database: %v", err)
			}
			w.write(socks5Config(s, authed.URL(), "tenantdb", db, owner, reader, "Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's password through the proxy")
			if err := s.as(owner, "Socks-pw-2", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in with the new password: %v", err)
			}
			planJSON, _ := savedPlan(t, w)

			w.write(socks5Config(s, open.URL(), "", db, owner, reader, "Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through ssh -D (no authentication)")
			if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
				t.Fatalf("plan through ssh -D is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}
			// The path really is the proxy: with ssh -D gone, a refresh
			// cannot reach the server (a warning keeps state as last read).
			open.Stop()
			down := w.run("plan", "-refresh-only")
			down.requireDiag(t, "warning", summaryRefresh)
			open = testserver.StartSSHD(t).DynamicForward(t)
			w.write(socks5Config(s, open.URL(), "", db, owner, reader, "Socks-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply through a new ssh -D")
			stateText := w.stateText()
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy through the proxy")
			if s.databaseExists(t, db) || s.loginExists(t, owner) {
				t.Fatal("destroy kept the database or the owner")
			}
			logText := readAll(t, logs)
			for what, text := range map[string]string{"the state": stateText, "the plan JSON": planJSON, "the TRACE log": logText} {
				if !strings.Contains(text, db) {
					t.Fatalf("%s does not name the tenant database: searching it proves nothing", what)
				}
				if l := leak(text, proxyPW); l != "" {
					t.Errorf("%s contains %s", what, l)
				}
			}
		})
	}
}
