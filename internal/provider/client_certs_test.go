// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// testAccClientCertServer starts a server of kind whose admin must present
// a client certificate (testserver.WithClientCertAdmin), stopped when the
// test ends, under a server name of its own (its admin password reaches
// the provider through that name's environment variable).
func testAccClientCertServer(t *testing.T, kind string) accServer {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	if !testserver.EngineSelected(kind) {
		t.Skipf("%s=%q leaves %s out", testserver.EnvEngines, os.Getenv(testserver.EnvEngines), kind)
	}
	if b := strings.ToLower(strings.TrimSpace(os.Getenv(testserver.EnvBackend))); b == "docker" || b == "dsn" {
		// Only the local backend makes an admin that must present a
		// client certificate; make test runs this test there.
		t.Skipf("%s=%s: a server whose admin must present a client certificate is started by the local backend only", testserver.EnvBackend, b)
	}
	srv, err := testserver.StartKind(context.Background(), kind, testserver.WithClientCertAdmin())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	name := "mtls_" + kind
	envMu.Lock()
	os.Setenv(AdminPasswordEnv(name), srv.Admin.Password)
	envMu.Unlock()
	return accServer{Server: srv, name: name}
}

// TestAccClientCerts_tenant: a server that requires a client certificate
// of its admin (MariaDB/MySQL REQUIRE X509, PostgreSQL clientcert=verify-full)
// refuses the provider without client_certs, and nothing is created; with
// the certificate and key given by files, a whole tenant applies (database,
// owner, grant: the owner and the grantee log in), the owner's password
// rotates, a rotation of the client certificate plans an update of the
// db_server only (its client_cert_fingerprint) and applies, tls = "disable"
// with a client certificate is refused at plan time, and destroy drops the
// database and the owner on the server. No line of either private key is in
// state, in a plan's JSON or in the TRACE logs.
func TestAccClientCerts_tenant(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipTransportOnStandIn(t, kind)
			s := testAccClientCertServer(t, kind)
			logs := t.TempDir()
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_LOG_PATH", filepath.Join(logs, "terraform.log"))

			db, owner, reader := uniqueName("mtls"), uniqueName("mtls"), uniqueName("rep")
			s.principal(t, reader)
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, reader)
			})
			w := newCLIWorkspace(t)
			var keys []string
			useCert := func() string {
				t.Helper()
				certPEM, keyPEM, err := s.ClientCert(s.Admin.Username)
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, keyPEM)
				for file, text := range map[string]string{"client.pem": certPEM, "client-key.pem": keyPEM} {
					if err := os.WriteFile(filepath.Join(w.dir, file), []byte(text), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				return certFingerprint(t, certPEM)
			}
			cfg := func(withCert bool, tls, pw string, version int) string {
				return clientCertsConfig(s, withCert, tls, db, owner, reader, pw, version)
			}

			// Without the certificate: the server refuses the admin.
			w.write(cfg(false, "verify-full", "Mtls-pw-1", 1))
			res := w.run("apply", "-auto-approve").mustFail(t, "apply without a client certificate")
			if !strings.Contains(strings.Join(strings.Fields(res.Output), " "), "client_certs") {
				t.Fatalf("the refusal does not point at the provider's client_certs:\n%s", res.Output)
			}
			if s.databaseExists(t, db) {
				t.Fatal("a database was created although the admin was refused")
			}

			// With it: the whole tenant.
			fp1 := useCert()
			w.write(cfg(true, "verify-full", "Mtls-pw-1", 1))
			w.run("apply", "-auto-approve").mustSucceed(t, "apply with the client certificate")
			if !s.databaseExists(t, db) {
				t.Fatal("the database is not on the server")
			}
			if err := s.as(owner, "Mtls-pw-1", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in: %v", err)
			}
			if err := s.as(reader, principalPW, db, "SELECT 1"); err != nil {
				t.Fatalf("the grantee cannot reach the database: %v", err)
			}
			if got := w.stateAttr("tenantdb_db_server", "client_cert_fingerprint"); got != fp1 {
				t.Fatalf("client_cert_fingerprint = %v, want %s", got, fp1)
			}
			if plan := w.run("plan", "-detailed-exitcode"); plan.Err != nil {
				t.Fatalf("plan after apply is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}

			// The owner's password rotation.
			w.write(cfg(true, "verify-full", "Mtls-pw-2", 2))
			w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's password")
			if err := s.as(owner, "Mtls-pw-2", db, "SELECT 1"); err != nil {
				t.Fatalf("the owner cannot log in with the new password: %v", err)
			}
			if s.as(owner, "Mtls-pw-1", db, "SELECT 1") == nil {
				t.Fatal("the owner still logs in with the old password")
			}

			// A new client certificate: the server only.
			fp2 := useCert()
			planJSON, changes := savedPlan(t, w)
			for _, rc := range changes {
				want := "no-op"
				if rc.Type == "tenantdb_db_server" {
					want = "update"
				}
				if !slices.Equal(rc.Change.Actions, []string{want}) {
					t.Fatalf("a client certificate rotation plans %v on %s, want %s", rc.Change.Actions, rc.Address, want)
				}
			}
			if len(changes) != 4 {
				t.Fatalf("the plan has %d resources, want 4", len(changes))
			}
			w.run("apply", "-auto-approve").mustSucceed(t, "apply after rotating the client certificate")
			if got := w.stateAttr("tenantdb_db_server", "client_cert_fingerprint"); got != fp2 {
				t.Fatalf("client_cert_fingerprint = %v after the rotation, want %s", got, fp2)
			}

			// The guide's mutual TLS example, as written (issue 60 item 8):
			// its server created with the certificate and the key from a
			// variable, then an empty plan.
			guide := requireMarkedBlocks(t, bastionGuide, bastionGuideBlocks)
			mtls := guide["mtls.tf"]
			for _, r := range [][2]string{
				{`engine   = "postgres"`, fmt.Sprintf("engine   = %q", s.Engine)},
				{`host     = "db.internal"`, fmt.Sprintf("host     = %q\n  port     = %d", s.Host, s.Port)},
				{`username = "tenantdb_admin"`, fmt.Sprintf("username = %q", s.Admin.Username)},
			} {
				mtls = replaceIn(t, mtls, r[0], r[1])
			}
			certPEM, keyPEM, err := s.ClientCert(s.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, keyPEM)
			g := newCLIWorkspace(t)
			g.write("")
			g.files(map[string]string{"variables.tf": guide["variables.tf"], "mtls.tf": mtls, "ca.pem": s.CAPEM, "admin.crt": certPEM})
			g.setVar("admin_password", s.Admin.Password)
			g.setVar("admin_client_key", keyPEM)
			g.run("apply", "-auto-approve").mustSucceed(t, "the guide's mutual TLS example")
			g.requireEmptyPlan(t, "after the guide's mutual TLS example")

			// tls = "disable" cannot carry a client certificate.
			w.write(cfg(true, "disable", "Mtls-pw-2", 2))
			w.run("plan").mustFail(t, `plan with tls = "disable"`).requireDiag(t, "error", clientCertWithoutTLSSummary)
			w.write(cfg(true, "verify-full", "Mtls-pw-2", 2))

			stateText := w.stateText()
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			if s.databaseExists(t, db) {
				t.Fatal("destroy under delete kept the database")
			}
			if s.loginExists(t, owner) {
				t.Fatal("destroy kept the owner")
			}

			// The keys: nowhere. Each search first shows it searched the
			// right text.
			logText := readAll(t, logs)
			for what, text := range map[string]string{"the state": stateText, "the plan JSON": planJSON, "the TRACE log": logText} {
				if !strings.Contains(text, db) {
					t.Fatalf("%s does not name the tenant database: searching it proves nothing", what)
				}
				for _, k := range keys {
					if l := keyLeak(text, k); l != "" {
						t.Errorf("%s contains %s", what, l)
					}
				}
			}
			if !strings.Contains(logText, "client_certs") {
				t.Fatal("the TRACE log never mentions client_certs: the configuration did not reach it")
			}
		})
	}
}

// clientCertsConfig: the provider gives server s its CA and (withCert) the
// client certificate in client.pem / client-key.pem; a database under
// delete, its owner and a grant to reader.
func clientCertsConfig(s accServer, withCert bool, tls, db, owner, reader, pw string, version int) string {
	certs := ""
	if withCert {
		certs = fmt.Sprintf("  client_certs = {\n    %s = {\n      cert = file(\"${path.module}/client.pem\")\n      key  = file(\"${path.module}/client-key.pem\")\n    }\n  }\n", hclKey(s.name))
	}
	return fmt.Sprintf(`
provider "tenantdb" {
  ca_certs = { %[1]s = %[2]q }
%[3]s}

resource "tenantdb_db_server" "main" {
  name     = %[4]q
  engine   = %[5]q
  host     = %[6]q
  port     = %[7]d
  username = %[8]q
  tls      = %[9]q
}

`, hclKey(s.name), s.CAPEM, certs, s.name, s.Engine, s.Host, s.Port, s.Admin.Username, tls) +
		tenantBlockHCL("t0", db, owner, reader, pw, version)
}

// tenantBlockHCL is one tenant under label: a database under delete, its
// owner (password pw at version) and a SELECT grant to reader.
func tenantBlockHCL(label, db, owner, reader, pw string, version int) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_database" %[1]q {
  server          = tenantdb_db_server.main.ref
  name            = %[2]q
  deletion_policy = "delete"
}

resource "tenantdb_tenant_owner" %[1]q {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.%[1]s.name
  username            = %[3]q
  password_wo         = %[5]q
  password_wo_version = %[6]d
}

resource "tenantdb_tenant_grant" %[1]q {
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.%[1]s.name
  username   = %[4]q
  privileges = ["SELECT"]
}
`, label, db, owner, reader, pw, version)

}

// certFingerprint is the SHA-256 (hex) of the certificate's DER.
func certFingerprint(t *testing.T, certPEM string) string {
	t.Helper()
	b, _ := pem.Decode([]byte(certPEM))
	if b == nil {
		t.Fatal("no PEM certificate")
	}
	sum := sha256.Sum256(b.Bytes)
	return hex.EncodeToString(sum[:])
}

// keyLeak describes the first form of the private key keyPEM found in
// text: the PEM, any line of its base64, its DER as hex, or "".
func keyLeak(text, keyPEM string) string {
	if strings.Contains(text, "PRIVATE KEY") {
		return "a PEM private key header"
	}
	b, _ := pem.Decode([]byte(keyPEM))
	if b == nil {
		return "an unreadable key (test bug)"
	}
	if strings.Contains(text, hex.EncodeToString(b.Bytes)) {
		return "the key's DER as hex"
	}
	for _, line := range strings.Split(keyPEM, "\n") {
		if len(line) < 16 || strings.HasPrefix(line, "-----") {
			continue
		}
		for _, form := range []string{line, strings.ReplaceAll(line, "/", `\/`), strings.ReplaceAll(line, "+", `\u002b`)} {
			if strings.Contains(text, form) {
				return fmt.Sprintf("a line of the key's base64 (%.12s…)", line)
			}
		}
	}
	return ""
}

// readAll is every file under dir, concatenated.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
