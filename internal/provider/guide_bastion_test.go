// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The examples of templates/guides/bastion-proxy-mutual-tls.md.tmpl are
// run as written (the mutual TLS one by TestAccClientCerts_tenant, on its
// server that requires a client certificate) (issue 60 item 8), as the Getting started and
// migration guides are: its marked blocks are the user's files (NAME.tf)
// and shell steps. Only what is the user's own is the test's: the
// bastion's address, port and user, the database's private name and port,
// the engine, the key's path and the admin's password (each replaced in
// the guide's text, failing when the guide no longer holds it), and
// ca.pem.

const bastionGuide = "../../templates/guides/bastion-proxy-mutual-tls.md.tmpl"

var bastionGuideBlocks = []string{"variables.tf", "bastion.tf", "bastion-known-hosts", "bastion-fingerprint", "bastion-apply", "proxy.tf", "mtls.tf"}

// TestAccGuideBastion: on a real OpenSSH bastion with the three host key
// types OpenSSH installs, which alone resolves the database's private name:
// the guide's ssh-keygen line prints exactly the fingerprint to pin; its
// ssh-keyscan line writes the known_hosts file its configuration reads
// (one ed25519 line: the provider must offer only that key type); a plan
// of the creates succeeds with the bastion down (the guide: it connects
// nowhere); the guide's apply step creates the server through the bastion
// (the server's create connects and checks the admin's rights; the name
// resolves nowhere else), the next plan is empty, and a plan with the
// bastion down warns that it could not refresh, naming the bastion as the
// hop that failed (issue 60 item 6). Then the SOCKS5 example, through a
// real danted with a username and password: the server is created through
// the proxy (its log counts the relay) and the next plan is empty.
func TestAccGuideBastion(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccServer(t, kind)
			blocks := requireMarkedBlocks(t, bastionGuide, bastionGuideBlocks)
			d := testserver.StartSSHD(t, testserver.SSHDAllHostKeyTypes(), testserver.SSHDResolves(testserver.BastionOnlyHost, s.Host))
			w := newCLIWorkspace(t).inOwnProcess() // the tunnel lives as long as the provider's process
			env := append(append(os.Environ(), w.env...), "TF_IN_AUTOMATION=1", "TF_INPUT=0", "TF_CLI_ARGS=-no-color",
				"TF_CLI_ARGS_apply=-auto-approve")

			// The fingerprint, cut out of ssh-keygen -lf's line.
			pub := filepath.Join(w.dir, "ssh_host_ed25519_key.pub")
			write(t, pub, strings.SplitN(d.HostKeys[0].KnownHosts, " ", 2)[1]+" root@bastion\n")
			out := runBlock(t, w.dir, env, "bastion-fingerprint", replaceIn(t, blocks["bastion-fingerprint"], "/etc/ssh/ssh_host_ed25519_key.pub", pub))
			if strings.TrimSpace(out) != d.HostKeyFingerprint {
				t.Fatalf("the guide's fingerprint step prints %q, want exactly %q", out, d.HostKeyFingerprint)
			}

			// known_hosts, as the guide writes it.
			scan := replaceIn(t, blocks["bastion-known-hosts"], "-p 22 bastion.example.com", fmt.Sprintf("-p %d 127.0.0.1", d.Port))
			runBlock(t, w.dir, env, "bastion-known-hosts", scan)
			if kh, err := os.ReadFile(filepath.Join(w.dir, "bastion_known_hosts")); err != nil || !strings.Contains(string(kh), d.HostKeys[0].KnownHosts) {
				t.Fatalf("the guide's ssh-keyscan step wrote %q (%v), want the ed25519 line %q", kh, err, d.HostKeys[0].KnownHosts)
			}

			// The configuration: the guide's files, with this server's values.
			cfg := blocks["bastion.tf"]
			for _, r := range [][2]string{
				{`engine   = "mysql"`, fmt.Sprintf("engine   = %q", s.Engine)},
				{`host     = "db.private.internal"`, fmt.Sprintf("host     = %q\n  port     = %d", testserver.BastionOnlyHost, s.Port)},
				{`username = "tenantdb_admin"`, fmt.Sprintf("username = %q", s.Admin.Username)},
				{`host = "bastion.example.com"`, `host = "127.0.0.1"`},
				{"port = 22 ", fmt.Sprintf("port = %d ", d.Port)},
				{`user = "tenantdb"`, fmt.Sprintf("user = %q", d.User)},
			} {
				cfg = replaceIn(t, cfg, r[0], r[1])
			}
			w.write("") // the terraform block naming the provider's source
			w.files(map[string]string{"variables.tf": blocks["variables.tf"], "bastion.tf": cfg})
			write(t, filepath.Join(w.dir, "ca.pem"), s.CAPEM)
			write(t, filepath.Join(w.dir, "bastion-key"), d.ClientKeyPEM)
			w.setVar("bastion_key", d.ClientKeyPEM)
			w.setVar("admin_password", s.Admin.Password)

			// A plan of creates checks them through the bastion (issue 57's
			// preflight): with the bastion down, a warning naming it, and
			// the plan goes on.
			d.Kill(t)
			downPlan := w.run("plan").mustSucceed(t, "a plan of creates with the bastion down (the guide: a warning, the plan goes on)")
			if dg := downPlan.requireDiag(t, "warning", summaryPreflightSkipped); !strings.Contains(strings.Join(strings.Fields(dg.Detail), " "),
				fmt.Sprintf("the SSH bastion 127.0.0.1:%d cannot be reached", d.Port)) {
				t.Fatalf("the plan's warning does not name the bastion: %q", dg.Detail)
			}
			d.Start(t)

			apply := replaceIn(t, blocks["bastion-apply"], "~/.ssh/tenantdb_bastion", "bastion-key")
			apply = replaceIn(t, apply, "'change-me'", "'"+strings.ReplaceAll(s.Admin.Password, "'", `'\''`)+"'")
			out = runBlock(t, w.dir, env, "bastion-apply", apply)
			requireOutput(t, "bastion-apply", out, "Apply complete! Resources: 1 added")
			if st := w.stateText(); strings.Contains(st, "PRIVATE KEY") || strings.Contains(st, s.Admin.Password) {
				t.Fatal("the bastion key or the admin password is in the state")
			}
			w.requireEmptyPlan(t, "after the guide's apply (a refresh through the bastion, ed25519 pinned, three key types offered)")
			// Once the server exists, a plan refreshes it through the
			// bastion: with the bastion down, the warning names that hop.
			d.Kill(t)
			down := w.run("plan").mustSucceed(t, "a plan with the bastion down once the server exists")
			flat := strings.Join(strings.Fields(down.Output), " ")
			if want := fmt.Sprintf("the SSH bastion 127.0.0.1:%d cannot be reached", d.Port); !strings.Contains(flat, "Could not refresh") ||
				!strings.Contains(flat, want) || strings.Contains(flat, "reachable and writable") {
				t.Fatalf("a refresh with the bastion down does not warn naming the bastion (%q):\n%s", want, down.Output)
			}

			// The SOCKS5 example: danted with a username and password
			// (the proxy resolves the host: socks5h://).
			proxy := testserver.StartDante(t, "Guide-proxy-pw-1")
			socks := blocks["proxy.tf"]
			for _, r := range [][2]string{
				{`username = "tenantdb", password`, fmt.Sprintf("username = %q, password", proxy.User)},
				{`engine       = "postgres"`, fmt.Sprintf("engine       = %q", s.Engine)},
				{`host         = "db.private.internal"`, fmt.Sprintf("host         = %q\n  port         = %d", s.Host, s.Port)},
				{`username     = "tenantdb_admin"`, fmt.Sprintf("username     = %q", s.Admin.Username)},
				{`"socks5h://proxy.internal:1080"`, strconv.Quote(proxy.URL())},
			} {
				socks = replaceIn(t, socks, r[0], r[1])
			}
			wp := newCLIWorkspace(t).inOwnProcess()
			wp.write("")
			wp.files(map[string]string{"variables.tf": blocks["variables.tf"], "proxy.tf": socks})
			write(t, filepath.Join(wp.dir, "ca.pem"), s.CAPEM)
			wp.setVar("admin_password", s.Admin.Password)
			wp.setVar("proxy_password", proxy.Password)
			relayed := proxy.Relayed()
			wp.run("apply", "-auto-approve").mustSucceed(t, "the guide's SOCKS5 example")
			if proxy.Relayed() == relayed {
				t.Fatal("the SOCKS5 example's server was created without a connection through the proxy")
			}
			wp.requireEmptyPlan(t, "after the guide's SOCKS5 example")
		})
	}
}
