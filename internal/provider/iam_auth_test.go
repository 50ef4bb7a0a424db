// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"cloud.google.com/go/auth"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/go-sql-driver/mysql"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// iamServer is a db_server of its own on s whose admin (a fresh login with
// README's rights) holds token as its only password: the provider can log
// in only by sending exactly that token. No admin_passwords entry and no
// environment variable exist for the server's name.
type iamServer struct {
	accServer
	admin testserver.Login
	pam   bool // the admin logs in through PAM (pamService)
}

// iamAdmin: see iamServer.
func (s accServer) iamAdmin(t *testing.T, name string, token func(admin string) string) iamServer {
	return s.iamAdminVia(t, name, token, true)
}

// iamAdminVia is iamAdmin; viaPAM false keeps MariaDB's password plugin
// (a test that also logs in with the token as a stored password, which
// never uses the cleartext plugin).
func (s accServer) iamAdminVia(t *testing.T, name string, token func(admin string) string, viaPAM bool) iamServer {
	t.Helper()
	admin := s.CreateAdminLogin(t, uniqueName("iam"))
	admin.Password = token(admin.Username)
	var svc string
	if viaPAM && s.Engine != "postgres" {
		svc = s.pamService(t, admin.Password)
	}
	if s.Engine == "postgres" {
		s.exec(t, "", fmt.Sprintf("ALTER ROLE %s PASSWORD '%s'", s.ident(admin.Username), admin.Password))
	} else if svc != "" {
		// MariaDB 10.11: the login goes through PAM, whose plugin asks
		// the client for mysql_clear_password, as RDS's
		// AWSAuthenticationPlugin does; PAM accepts exactly the token.
		s.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' IDENTIFIED VIA pam USING '%s' REQUIRE SSL", admin.Username, svc))
	} else {
		// REQUIRE SSL: the server itself refuses this login without TLS,
		// as RDS does for IAM logins.
		s.exec(t, "", fmt.Sprintf("ALTER USER '%s'@'%%' IDENTIFIED BY '%s' REQUIRE SSL", admin.Username, admin.Password))
	}
	envMu.Lock()
	os.Unsetenv(AdminPasswordEnv(name))
	envMu.Unlock()
	return iamServer{accServer{Server: s.Server, name: name}, admin, svc != ""}
}

// hcl is the provider block (CA only) and the db_server with extra (the
// auth arguments) inside.
func (s iamServer) hcl(extra string) string {
	return caCertsHCL(map[string]string{s.name: s.CAPEM}) + strings.Replace(s.serverResourceHCL("main", s.name, s.Port, extra),
		fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", s.admin.Username), 1)
}

// signAtEpoch makes every AWS token of the provider (running in this test
// process) be signed inside a testing/synctest bubble, whose clock stands
// at testserver.TokenEpoch: the token is then known in advance. The
// signing itself is the SDK's (feature/rds/auth BuildAuthToken).
func signAtEpoch(t *testing.T) {
	t.Cleanup(dbclient.SetTokenClockForTesting(func(sign func()) {
		synctest.Test(t, func(*testing.T) { sign() })
	}))
}

// tokenNeedles are the forms of a token searched for: as sent, URL-encoded
// and, for an RDS token, its signature alone.
func tokenNeedles(token string) []string {
	out := []string{token, url.QueryEscape(token)}
	if _, sig, ok := strings.Cut(token, "X-Amz-Signature="); ok {
		out = append(out, sig)
	}
	return out
}

// iamTenantHCL is the whole tenant: database (deleted on destroy), its
// owner (password version v) and a grant to grantee.
func iamTenantHCL(db, owner, ownerPW string, v int, grantee string) string {
	return strings.Replace(ownerHCL(db, owner, ownerPW, v, ""), "name   = ", "deletion_policy = \"delete\"\n  name   = ", 1) +
		grantHCL("g", "tenantdb_tenant_database.db.name", grantee, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
}

// TestAccIAMAuth_awsRDSLifecycle: with auth = "aws_rds_iam" the provider
// logs in as an admin whose only password is the RDS token the AWS SDK
// presigns (testserver.PresignedRDSToken, the SDK's signer v4, not a copy
// of the algorithm) for the server's host, port, region and admin user at
// a fixed time, with the static credentials the standard chain finds in
// the environment; the provider's own token comes from feature/rds/auth
// BuildAuthToken, so the login works only if the two agree. Through it
// the whole tenant life cycle runs (iamLifecycle). MySQL 9.7 is left out:
// it stores at most 256 bytes of password (caching_sha2_password and
// sha256_password; its server has no mysql_native_password any more), and
// an RDS token is about 310 bytes; the token login itself runs on MySQL 9.7
// in the Google and Azure tests.
func TestAccIAMAuth_awsRDSLifecycle(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "a cloud token: how the provider gets and sends it, not what the server does with a password")
			base := testAccServer(t, kind)
			if base.Flavor == "mysql" {
				t.Skip("MySQL 9.7 stores at most 256 bytes of password; an RDS token is about 310 (see the comment)")
			}
			testserver.UseTestAWSChain(t, true)
			signAtEpoch(t)
			const region = "eu-west-1"
			var token string
			s := base.iamAdmin(t, "rds_"+kind, func(admin string) string {
				tok, err := testserver.PresignedRDSToken(t.Context(), base.Host, base.Port, region, admin, testserver.TokenEpoch)
				if err != nil {
					t.Fatal(err)
				}
				token = tok
				return tok
			})
			t.Logf("the admin's password is a %d-byte RDS token", len(token))
			s.lifecycle(t, fmt.Sprintf("  auth = %q\n  aws_region = %q\n", "aws_rds_iam", region), token,
				`\?tls=verify-full&auth=aws_rds_iam&aws_region=eu-west-1$`)
		})
	}
}

// TestAccIAMAuth_gcpCloudSQLLifecycle: auth = "gcp_cloudsql_iam" with a
// static token source in place of Google's application default
// credentials: the token is the admin's password, and the tenant life
// cycle runs through it (iamLifecycle); the service account to
// impersonate reaches the credential chain.
func TestAccIAMAuth_gcpCloudSQLLifecycle(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "a cloud token: how the provider gets and sends it, not what the server does with a password")
			base := testAccServer(t, kind)
			token := "ya29.c.tenantdb-" + uniqueName("gcp") + strings.Repeat("Gq7", 40)
			const sa = "tenantdb-admin@proj-1.iam.gserviceaccount.com"
			var asked []string
			t.Cleanup(dbclient.SetGCPTokenProviderForTesting(func(impersonate string) (auth.TokenProvider, error) {
				asked = append(asked, impersonate)
				return staticGoogleToken(token), nil
			}))
			s := base.iamAdmin(t, "gcp_"+kind, func(string) string { return token })
			s.lifecycle(t, fmt.Sprintf("  auth = %q\n  gcp_impersonate_service_account = %q\n", "gcp_cloudsql_iam", sa), token,
				`\?tls=verify-full&auth=gcp_cloudsql_iam&gcp_impersonate_service_account=tenantdb-admin%40proj-1\.iam\.gserviceaccount\.com$`)
			if len(asked) == 0 || asked[0] != sa {
				t.Fatalf("the credential chain was asked to impersonate %q, want %q", asked, sa)
			}
		})
	}
}

type staticGoogleToken string

// useGoogleToken makes a fresh static token (prefix names the test) the
// one Google's chain gives, for the rest of the test.
func useGoogleToken(t *testing.T, prefix string) string {
	token := "ya29.c." + uniqueName(prefix) + strings.Repeat("Tk5", 30)
	t.Cleanup(dbclient.SetGCPTokenProviderForTesting(func(string) (auth.TokenProvider, error) {
		return staticGoogleToken(token), nil
	}))
	return token
}

func (s staticGoogleToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Expiry: time.Now().Add(time.Hour)}, nil
}

// TestAccIAMAuth_azureEntraLifecycle: auth = "azure_entra" with a static
// credential in place of azidentity's default chain: it is asked for the
// configured scope (a sovereign cloud's here) and tenant, its token is the
// admin's password, and the tenant life cycle runs through it.
func TestAccIAMAuth_azureEntraLifecycle(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "a cloud token: how the provider gets and sends it, not what the server does with a password")
			base := testAccServer(t, kind)
			token := "eyJ0eXAiOiJKV1QifQ.tenantdb-" + uniqueName("az") + strings.Repeat("Az9", 40) + ".c2lnbmF0dXJl"
			const scope, tenant = "https://ossrdbms-aad.database.usgovcloudapi.net/.default", "72f988bf-86f1-41af-91ab-2d7cd011db47"
			var mu sync.Mutex
			var asked []policy.TokenRequestOptions
			t.Cleanup(dbclient.SetAzureCredentialForTesting(func(string) (azcore.TokenCredential, error) {
				return staticEntraToken{token: token, asked: func(o policy.TokenRequestOptions) {
					mu.Lock()
					asked = append(asked, o)
					mu.Unlock()
				}}, nil
			}))
			s := base.iamAdmin(t, "az_"+kind, func(string) string { return token })
			s.lifecycle(t, fmt.Sprintf("  auth = %q\n  azure_scope = %q\n  azure_tenant_id = %q\n", "azure_entra", scope, tenant), token,
				`\?tls=verify-full&auth=azure_entra&azure_tenant_id=72f988bf-86f1-41af-91ab-2d7cd011db47&azure_scope=https%3A%2F%2F`)
			mu.Lock()
			defer mu.Unlock()
			if len(asked) == 0 || asked[0].Scopes[0] != scope || asked[0].TenantID != tenant {
				t.Fatalf("the credential was asked for %+v, want scope %s in tenant %s", asked, scope, tenant)
			}
		})
	}
}

type staticEntraToken struct {
	token string
	asked func(policy.TokenRequestOptions)
}

func (s staticEntraToken) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	s.asked(o)
	return azcore.AccessToken{Token: s.token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// lifecycle runs a whole tenant through the token login: database (deleted
// on destroy), owner (logs in with its password and writes), grant (the
// grantee reads), a rotation of the owner's password (the new one logs in,
// the old one no longer), destroy (database, owner and the grantee's rows
// gone). MySQL and MariaDB: the admin is REQUIRE SSL and the server
// refuses the same token without TLS (tlsOnly). The token (raw,
// URL-encoded, an RDS token's signature) is in no plan, no state, no TRACE
// log line. ref must match the db_server's ref.
func (s iamServer) lifecycle(t *testing.T, authHCL, token, ref string) {
	t.Helper()
	db, owner, grantee := uniqueName("iam"), uniqueName("own"), uniqueName("rdr")
	s.principal(t, grantee)
	t.Cleanup(func() { s.dropDatabase(t, db); s.dropLogins(t, owner, grantee) })
	logs := t.TempDir()
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", filepath.Join(logs, "terraform.log"))

	server := s.hcl(authHCL)
	rec := &scanRecord{}
	secrets := tokenNeedles(token)
	planScan := noSecretInPlan{secrets, rec}
	plans := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planScan}, PostApplyPostRefresh: []plancheck.PlanCheck{planScan}}
	states := []statecheck.StateCheck{noSecretInState{secrets, db, rec}}
	const pw1, pw2 = "Iam-owner-pw-1", "Iam-owner-pw-2"
	tenantWorks := func(pw, old string) func() error {
		return func() error {
			if !s.databaseExists(t, db) {
				return fmt.Errorf("database %s was not created", db)
			}
			if err := s.as(owner, pw, db, "CREATE TABLE IF NOT EXISTS "+s.table(db, "t")+" (v int)",
				"INSERT INTO "+s.table(db, "t")+" VALUES (1)"); err != nil {
				return fmt.Errorf("the owner cannot write with its password: %v", err)
			}
			if err := s.as(grantee, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
				return fmt.Errorf("the grantee cannot read: %v", err)
			}
			if old != "" && s.as(owner, old, db, "SELECT 1") == nil {
				return fmt.Errorf("the owner's old password still logs in after the rotation")
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{
				Config: server + iamTenantHCL(db, owner, pw1, 1, grantee), ConfigPlanChecks: plans, ConfigStateChecks: states,
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("tenantdb_db_server.main", "ref", regexp.MustCompile(ref)),
					s.check(tenantWorks(pw1, "")),
					s.check(func() error { return s.tlsOnly(token) }),
				),
			},
			{
				Config: server + iamTenantHCL(db, owner, pw2, 2, grantee), ConfigPlanChecks: plans, ConfigStateChecks: states,
				Check: s.check(tenantWorks(pw2, pw1)),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if s.databaseExists(t, db) || s.loginExists(t, owner) {
				return fmt.Errorf("destroy left the database or the owner")
			}
			// PostgreSQL's ACLs went with the database; MySQL's mysql.db
			// rows would outlive it.
			if s.Engine == "postgres" {
				return nil
			}
			if r := s.grantResidue(t, db, grantee); len(r) > 0 {
				return fmt.Errorf("destroy left the grantee's rows %v", r)
			}
			return nil
		},
	})
	if rec.plans == 0 || rec.states == 0 {
		t.Fatalf("searched %d plans and %d states for the token", rec.plans, rec.states)
	}
	b, err := os.ReadFile(filepath.Join(logs, "terraform.log"))
	if err != nil || !strings.Contains(string(b), "tenantdb_db_server") {
		t.Fatalf("the TRACE log was not written (%v), so searching it proves nothing", err)
	}
	if l := leak(string(b), secrets...); l != "" {
		t.Fatalf("the TRACE log contains %s", l)
	}
}

// tlsOnly: on MySQL and MariaDB the server refuses the admin's token
// without TLS (REQUIRE SSL) and accepts it over TLS; what the provider did
// through this admin therefore went over TLS. (PostgreSQL: not checked
// here; the harness's pg_hba also admits plaintext, and the provider
// refuses tls = "disable" with IAM at plan time.)
func (s iamServer) tlsOnly(token string) error {
	if s.Engine == "postgres" {
		return nil
	}
	cleartext := true
	login := func(tlsCfg *tls.Config) error {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = s.admin.Username, token, "tcp", fmt.Sprintf("%s:%d", s.Host, s.Port)
		cfg.TLS, cfg.AllowCleartextPasswords = tlsCfg, cleartext
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return err
		}
		db := sql.OpenDB(c)
		defer db.Close()
		return db.Ping()
	}
	if err := login(nil); err == nil {
		return fmt.Errorf("the server let the admin in without TLS")
	}
	if err := login(&tls.Config{InsecureSkipVerify: true}); err != nil {
		return fmt.Errorf("the admin's token over TLS: %v", err)
	}
	if s.pam {
		// The server asks for mysql_clear_password: a client that may
		// not send a clear password cannot log in at all.
		cleartext = false
		if err := login(&tls.Config{InsecureSkipVerify: true}); !errors.Is(err, mysql.ErrCleartextPassword) {
			return fmt.Errorf("without the cleartext plugin the login gave %v, want the driver's %v", err, mysql.ErrCleartextPassword)
		}
	}
	return nil
}

// TestAccIAMAuth_refusedAtPlan: with a cloud method, tls = "disable", an
// admin_passwords entry and the environment fallback are refused at plan
// time (no server is reached: the port is closed); a token that cannot be
// had (no AWS credentials anywhere in the chain) fails the plan of the
// server's create (its preflight connects as the apply would) with an
// error naming AWS and the chain step, not a database error.
func TestAccIAMAuth_refusedAtPlan(t *testing.T) {
	skipInStandInRun(t, "refused at plan (the port closed) or by the token's source, before any server")
	testserver.UseTestAWSChain(t, false)
	// The real clock; and credential chains resolved earlier in this
	// process are forgotten, so the empty environment is read.
	t.Cleanup(dbclient.SetTokenClockForTesting(func(sign func()) { sign() }))
	port := closedPort(t)
	server := func(name, extra string) string {
		return fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name       = %q
  engine     = "postgres"
  host       = "127.0.0.1"
  port       = %d
  username   = "tenantdb_admin"
  auth       = "aws_rds_iam"
  aws_region = "eu-west-1"
%s
}
`, name, port, extra)
	}
	t.Setenv(AdminPasswordEnv("iamenv"), "stored")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{Config: server("iamtls", `  tls = "disable"`), PlanOnly: true, ExpectError: regexp.MustCompile(`needs TLS`)},
			{
				Config:   `provider "tenantdb" { admin_passwords = { iampw = "stored" } }` + server("iampw", ""),
				PlanOnly: true, ExpectError: regexp.MustCompile(`remove\s+admin_passwords\["iampw"\]`),
			},
			{Config: server("iamenv", ""), PlanOnly: true, ExpectError: regexp.MustCompile(`TENANTDB_ADMIN_PASSWORD_IAMENV\s+is\s+set`)},
			{
				Config:      server("iamnocreds", ""),
				ExpectError: regexp.MustCompile(`(?s)token:\s+server\s+"iamnocreds":\s+AWS:\s+cannot\s+get\s+a\s+login\s+token.*retrieving\s+credentials\s+from\s+the\s+default\s+chain`),
			},
		},
	})
}

// TestAccIAMAuth_switchMethod: a server moves from its stored password to
// a token login (the token being the same secret, so both log in): the
// plan updates the db_server (which tests the new login) and each tenant
// resource's `server` in place, the apply runs no DDL, and the next plan
// is empty. Back to the password: the same.
func TestAccIAMAuth_switchMethod(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "a cloud token: how the provider gets and sends it, not what the server does with a password")
			base := testAccServer(t, kind)
			token := useGoogleToken(t, "sw")
			s := base.iamAdminVia(t, "sw_"+kind, func(string) string { return token }, false)
			db, owner, grantee := uniqueName("sw"), uniqueName("own"), uniqueName("rdr")
			s.principal(t, grantee)
			t.Cleanup(func() { s.dropDatabase(t, db); s.dropLogins(t, owner, grantee) })
			tenant := iamTenantHCL(db, owner, "Sw-owner-pw-1", 1, grantee)
			withPassword, withToken := s.hcl(""), s.hcl(`  auth = "gcp_cloudsql_iam"`)
			storedPassword := func(set bool) {
				envMu.Lock()
				defer envMu.Unlock()
				if set {
					os.Setenv(AdminPasswordEnv(s.name), token)
				} else {
					os.Unsetenv(AdminPasswordEnv(s.name))
				}
			}
			t.Cleanup(func() { storedPassword(false) })
			var mark testserver.LogMark
			switchTo := func(cfg string, password bool) []resource.TestStep {
				return []resource.TestStep{
					{
						PreConfig: func() { storedPassword(password); mark = s.MarkLog(t) },
						Config:    cfg + tenant,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("tenantdb_db_server.main", plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction("tenantdb_tenant_database.db", plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction("tenantdb_tenant_owner.o", plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction("tenantdb_tenant_grant.g", plancheck.ResourceActionUpdate),
						}},
						Check: func(*terraform.State) error { s.AssertNoDDL(t, mark, s.admin.Username); return nil },
					},
					{Config: cfg + tenant, PlanOnly: true},
				}
			}
			steps := []resource.TestStep{{PreConfig: func() { storedPassword(true) }, Config: withPassword + tenant}}
			steps = append(steps, switchTo(withToken, false)...)
			steps = append(steps, switchTo(withPassword, true)...)
			resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders, TerraformVersionChecks: writeOnlyTerraform, Steps: steps})
		})
	}
}

// pamService prepares MariaDB 10.11 (the host's server) to check a login
// by PAM: the auth_pam plugin (the harness starts the server with
// pam_use_cleartext_plugin, so it asks for mysql_clear_password) and a PAM
// service whose pam_exec accepts exactly token. It returns the service
// name, or "" where that cannot be set up (another server kind, no PAM
// module, /etc/pam.d not writable): the test then uses a password login.
func (s accServer) pamService(t *testing.T, token string) string {
	t.Helper()
	v, err := ddl.ParseVersion(s.Version())
	if err != nil || s.Flavor != "mariadb" || v.Major != 10 {
		return "" // MariaDB 11.8 runs from its own root, with its own /etc/pam.d
	}
	if s.Backend != "local" {
		// The PAM service is a file in this machine's /etc/pam.d, which a
		// container's (or a given server's) MariaDB does not read: the
		// token is then the admin's stored password, as on MariaDB 11.8.
		t.Logf("no PAM check of the cleartext login: the %s backend's server does not read this machine's /etc/pam.d", s.Backend)
		return ""
	}
	const pamExec = "/lib/x86_64-linux-gnu/security/pam_exec.so"
	if _, err := os.Stat(pamExec); err != nil {
		t.Logf("no PAM check of the cleartext login: %v", err)
		return ""
	}
	var installed int
	if err := s.super(t, "").QueryRow(`SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'pam'`).Scan(&installed); err != nil {
		t.Fatal(err)
	}
	if installed == 0 {
		s.exec(t, "", "INSTALL SONAME 'auth_pam'")
	}
	var cleartext bool
	if err := s.super(t, "").QueryRow(`SELECT @@pam_use_cleartext_plugin`).Scan(&cleartext); err != nil || !cleartext {
		t.Fatalf("the harness's MariaDB should run with pam_use_cleartext_plugin (%v)", err)
	}
	dir := t.TempDir()
	check := filepath.Join(dir, "check.sh")
	script := "#!/bin/sh\n# pam_exec expose_authtok: the password on stdin, NUL-terminated\n" +
		"[ \"$(tr -d '\\000')\" = \"$(cat " + filepath.Join(dir, "token") + ")\" ]\n"
	svc := "tenantdb-test-" + uniqueName("pam")
	conf := filepath.Join("/etc/pam.d", svc)
	for _, f := range []struct {
		path, text string
		mode       os.FileMode
	}{{filepath.Join(dir, "token"), token, 0o600}, {check, script, 0o700},
		{conf, "auth required " + pamExec + " expose_authtok quiet " + check + "\naccount required pam_permit.so\n", 0o644}} {
		if err := os.WriteFile(f.path, []byte(f.text), f.mode); err != nil {
			t.Logf("no PAM check of the cleartext login: %v", err)
			return ""
		}
	}
	t.Cleanup(func() { os.Remove(conf) })
	return svc
}

// TestAccIAMAuth_rejectedTokenNotInError: a token the server rejects
// fails the apply with the server's refusal and says the password was a
// login token, and the error text holds no form of the token.
func TestAccIAMAuth_rejectedTokenNotInError(t *testing.T) {
	for _, kind := range engines() {
		t.Run(kind, func(t *testing.T) {
			skipOnStandIn(t, kind, "a cloud token: how the provider gets and sends it, not what the server does with a password")
			base := testAccServer(t, kind)
			token := useGoogleToken(t, "rj")
			s := base.iamAdmin(t, "rj_"+kind, func(string) string { return "Not-the-token-1" })
			var seen string
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				// Without ExpectError, which would take the error first.
				ErrorCheck: func(err error) error {
					seen = err.Error()
					if l := leak(seen, tokenNeedles(token)...); l != "" {
						return fmt.Errorf("the error contains %s", l)
					}
					if !regexp.MustCompile(`(?s)(Access\s+denied|password\s+authentication\s+failed).*came from\s+a\s+login\s+token`).MatchString(seen) {
						return fmt.Errorf("want the server's refusal of the token, got: %w", err)
					}
					return nil
				},
				Steps: []resource.TestStep{{Config: s.hcl(`  auth = "gcp_cloudsql_iam"`)}},
			})
			if seen == "" {
				t.Fatal("no error was searched")
			}
		})
	}
}
