// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// secretNeedles is everything whose presence in a text means a password
// leaked: the password as is and as engines, Go and JSON escape it, every
// quote-free run of at least five bytes of it, its base64, its hex MD5,
// SHA-1 and SHA-256 (either case) and base64 SHA-1/SHA-256, and the MySQL
// native hash "*" + upper hex SHA1(SHA1(pw)) that MariaDB's SHOW GRANTS
// prints. A SCRAM verifier cannot be predicted without its salt: texts are
// checked for "SCRAM-SHA-256$" instead (see leak).
func secretNeedles(pw string) map[string]string {
	out := map[string]string{}
	add := func(what, s string) {
		if s != "" {
			if _, ok := out[s]; !ok {
				out[s] = what
			}
		}
	}
	add("the password", pw)
	add("the password, quotes doubled", strings.ReplaceAll(pw, "'", "''"))
	add("the password, backslash-escaped", strings.NewReplacer(`\`, `\\`, `'`, `\'`, `"`, `\"`).Replace(pw))
	add("the password, quotes doubled and backslashes escaped", strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(pw))
	if q := strconv.Quote(pw); len(q) > 2 {
		add("the password, Go-quoted", q[1:len(q)-1])
	}
	if b, err := json.Marshal(pw); err == nil && len(b) > 2 {
		add("the password, JSON-escaped", string(b[1:len(b)-1]))
	}
	for _, frag := range strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune("'\"`\\", r) }) {
		if len(frag) >= 5 {
			add("a quote-free fragment of the password", frag)
		}
	}
	add("base64 of the password", base64.StdEncoding.EncodeToString([]byte(pw)))
	m, s1, s256 := md5.Sum([]byte(pw)), sha1.Sum([]byte(pw)), sha256.Sum256([]byte(pw))
	for what, sum := range map[string][]byte{"MD5": m[:], "SHA-1": s1[:], "SHA-256": s256[:]} {
		add("hex "+what+" of the password", hex.EncodeToString(sum))
		add("hex "+what+" of the password", strings.ToUpper(hex.EncodeToString(sum)))
	}
	add("base64 SHA-1 of the password", base64.StdEncoding.EncodeToString(s1[:]))
	add("base64 SHA-256 of the password", base64.StdEncoding.EncodeToString(s256[:]))
	add("the MySQL native hash of the password", mysqlNativeHash(pw))
	return out
}

// mysqlNativeHash is mysql_native_password's stored form.
func mysqlNativeHash(pw string) string {
	inner := sha1.Sum([]byte(pw))
	outer := sha1.Sum(inner[:])
	return "*" + strings.ToUpper(hex.EncodeToString(outer[:]))
}

// leak returns a description of the first secret form found in text, or "".
func leak(text string, secrets ...string) string {
	for _, s := range secrets {
		for needle, what := range secretNeedles(s) {
			if strings.Contains(text, needle) {
				return fmt.Sprintf("%s (%q)", what, needle)
			}
		}
	}
	if strings.Contains(text, "SCRAM-SHA-256$") {
		return "a SCRAM-SHA-256 verifier"
	}
	return ""
}

// scanRecord counts what the checks searched, so the test can prove at the
// end that every step's plans and states were searched.
type scanRecord struct {
	mu     sync.Mutex
	plans  int
	states int
}

// noSecretInPlan fails when the plan, rendered as JSON, contains a form or
// digest of a secret. It first checks that the JSON is a plan of this
// configuration (it names the resource type), so it never passes by
// searching nothing.
type noSecretInPlan struct {
	secrets []string
	rec     *scanRecord
}

func (c noSecretInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if req.Plan == nil {
		resp.Error = fmt.Errorf("no plan to search")
		return
	}
	b, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	if !strings.Contains(string(b), `"tenantdb_db_server"`) {
		resp.Error = fmt.Errorf("the plan JSON does not describe this configuration, so searching it proves nothing: %.300s", b)
		return
	}
	if l := leak(string(b), c.secrets...); l != "" {
		resp.Error = fmt.Errorf("the plan contains %s", l)
		return
	}
	c.rec.mu.Lock()
	c.rec.plans++
	c.rec.mu.Unlock()
}

// noSecretInState is the same search over the state, which must name the
// tenant database.
type noSecretInState struct {
	secrets []string
	marker  string
	rec     *scanRecord
}

func (c noSecretInState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil {
		resp.Error = fmt.Errorf("no state to search")
		return
	}
	b, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if !strings.Contains(string(b), c.marker) {
		resp.Error = fmt.Errorf("the state does not hold %q, so searching it proves nothing", c.marker)
		return
	}
	if l := leak(string(b), c.secrets...); l != "" {
		resp.Error = fmt.Errorf("the state contains %s", l)
		return
	}
	c.rec.mu.Lock()
	c.rec.states++
	c.rec.mu.Unlock()
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int { return testserver.ClosedPort(t) }

// extraServerHCL is a second tenantdb_db_server on s, with its own name
// (and so its own admin password) and port. Its CA is the provider's
// ca_certs entry for name, which the caller's provider block must hold
// (caCertsHCL) when the server is connected to; ca is that CA, no longer
// written here (a db_server no longer takes ca_cert).
func (s accServer) extraServerHCL(label, name string, port int, ca string) string {
	_ = ca
	return s.serverResourceHCL(label, name, port, "")
}

// TestAccSecrets_adminPasswordNowhere passes the admin password through the
// provider block from an ephemeral variable, runs with TF_LOG=TRACE, and
// provokes the provider's own refusal (DatabasePreExists) and the server's
// own errors: a wrong admin password (a hostile one, full of quotes and
// backslashes), a TLS failure (a CA that did not sign the server's
// certificate) and an unreachable server. It then searches every step's
// plan JSON and state, every diagnostic and both logs for both passwords in
// every escaped form and for their digests (hex MD5, SHA-1, SHA-256, the
// MySQL native hash) and for any SCRAM verifier. Each search first checks
// that what it searches holds what matters: the refusal or server error it
// provoked, the configuration's resources, the statement log lines.
func TestAccSecrets_adminPasswordNowhere(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			secret := s.Admin.Password
			const wrongPW = `Wr0ng-'adm1n'-\"pw\"-` + "`x`%_?"
			secrets := []string{secret, wrongPW}
			logs := t.TempDir()
			t.Setenv(AdminPasswordEnv(s.name), "") // only the provider block supplies it
			t.Setenv("TF_ACC_LOG", "TRACE")
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_ACC_LOG_PATH", filepath.Join(logs, "terraform.log"))
			name, pre := uniqueName("sec"), uniqueName("secpre")
			t.Cleanup(func() { s.dropDatabase(t, name, pre) })

			// The digests searched for are the ones the server keeps.
			if s.Engine == "mysql" {
				var stored string
				if err := s.super(t, "").QueryRow(`SELECT authentication_string FROM mysql.user WHERE User = ? LIMIT 1`, s.Admin.Username).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				// MySQL 9 keeps a salted caching_sha2_password hash: nothing
				// the password alone yields, so only its form is checked.
				if (s.Flavor == "mysql" && !strings.HasPrefix(stored, "$A$")) || (s.Flavor != "mysql" && stored != mysqlNativeHash(secret)) {
					t.Fatalf("the server stores the admin password as %.3s…, not as the native hash searched for", stored)
				}
			} else {
				var stored string
				if err := s.super(t, "").QueryRow(`SELECT rolpassword FROM pg_authid WHERE rolname = $1`, s.Admin.Username).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(stored, "SCRAM-SHA-256$") {
					t.Fatalf("the server does not store a SCRAM verifier for the admin (%.14s…)", stored)
				}
			}

			hcl := fmt.Sprintf(`
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "wrong_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
provider "tenantdb" {
  admin_passwords = {
    %s      = var.admin_password
    wrongpw = var.wrong_password
    wrongca = var.admin_password
    gone    = var.admin_password
  }
  ca_certs = {
    %[1]s   = %[2]q
    wrongpw = %[2]q
    wrongca = %[3]q
    gone    = %[2]q
  }
}
`, s.name, s.CAPEM, testserver.UnrelatedCAPEM(t)) + s.serverResourceHCL("main", s.name, s.Port, "") + tenantDatabaseHCL(name, `deletion_policy = "delete"`)
			vars := config.Variables{"admin_password": config.StringVariable(secret), "wrong_password": config.StringVariable(wrongPW)}

			rec := &scanRecord{}
			planScan := noSecretInPlan{secrets, rec}
			allPlans := resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{planScan},
				PostApplyPreRefresh:  []plancheck.PlanCheck{planScan},
				PostApplyPostRefresh: []plancheck.PlanCheck{planScan},
			}
			stateScan := []statecheck.StateCheck{noSecretInState{secrets, name, rec}}

			// Error steps: the diagnostics are captured by ErrorCheck,
			// which accepts only the error the step provoked.
			type provoked struct {
				what string
				want *regexp.Regexp
				text string
			}
			var (
				mu       sync.Mutex
				expected *provoked
				seen     []*provoked
			)
			expect := func(what, pattern string) func() {
				return func() {
					mu.Lock()
					defer mu.Unlock()
					expected = &provoked{what: what, want: regexp.MustCompile(pattern)}
				}
			}
			errorStep := func(what, pattern, cfg string, pre func()) resource.TestStep {
				return resource.TestStep{
					PreConfig: func() {
						if pre != nil {
							pre()
						}
						expect(what, pattern)()
					},
					Config: cfg, ConfigVariables: vars,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{planScan}},
				}
			}
			refused := `Access\s+denied\s+for\s+user|password\s+authentication\s+failed`
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				ErrorCheck: func(err error) error {
					mu.Lock()
					defer mu.Unlock()
					p := expected
					expected = nil
					if p == nil {
						return err
					}
					if !p.want.MatchString(err.Error()) {
						return fmt.Errorf("%s: want an error matching %q, got: %w", p.what, p.want, err)
					}
					p.text = err.Error()
					seen = append(seen, p)
					return nil
				},
				Steps: []resource.TestStep{
					{
						Config: hcl, ConfigVariables: vars,
						ConfigPlanChecks: allPlans, ConfigStateChecks: stateScan,
					},
					// The provider's own refusal.
					errorStep("DatabasePreExists", `DatabasePreExists`, hcl+tenantDatabaseHCL(pre, ""),
						func() { s.exec(t, "", "CREATE DATABASE "+s.ident(pre)) }),
					// The server's own errors.
					errorStep("wrong admin password", `(?s)wrongpw.*(`+refused+`).*password\s+came\s+from`,
						hcl+s.extraServerHCL("wrongpw", "wrongpw", s.Port, s.CAPEM), nil),
					errorStep("TLS failure", `(?s)wrongca.*(certificate signed by unknown authority|x509)`,
						hcl+s.extraServerHCL("wrongca", "wrongca", s.Port, testserver.UnrelatedCAPEM(t)), nil),
					errorStep("unreachable server", `(?s)gone.*(connection refused|PrimaryUnavailable)`,
						hcl+s.extraServerHCL("gone", "gone", closedPort(t), s.CAPEM), nil),
					{
						Config: hcl, ConfigVariables: vars,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), planScan},
							PostApplyPreRefresh:  []plancheck.PlanCheck{planScan},
							PostApplyPostRefresh: []plancheck.PlanCheck{planScan},
						},
						ConfigStateChecks: stateScan,
					},
				},
			})
			if t.Failed() {
				return
			}

			// Every provoked error happened, said what it was, and carries
			// no secret.
			var whats []string
			for _, p := range seen {
				whats = append(whats, p.what)
				t.Logf("%s:\n%s", p.what, p.text)
				if l := leak(p.text, secrets...); l != "" {
					t.Errorf("the diagnostics of %s contain %s:\n%s", p.what, l, p.text)
				}
			}
			if want := []string{"DatabasePreExists", "wrong admin password", "TLS failure", "unreachable server"}; !slices.Equal(whats, want) {
				t.Fatalf("provoked errors seen: %q, want %q: a step that should fail did not", whats, want)
			}
			// Plans: before, after apply and after refresh of each success
			// step, before apply of the error step whose plan succeeds (the
			// unreachable server: the plan warns); the refusal, the wrong
			// password and the TLS failure fail the plan itself (issue 57's
			// preflight), so no plan of theirs exists: their diagnostics
			// are searched above. States: each success.
			if rec.plans < 3+1+3 || rec.states < 2 {
				t.Fatalf("searched %d plans and %d states, want at least 7 and 2", rec.plans, rec.states)
			}

			var searched int
			var sawStatement, sawWrongServer bool
			filepath.Walk(logs, func(p string, info os.FileInfo, err error) error {
				if err != nil || info.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				searched += len(b)
				sawStatement = sawStatement || (strings.Contains(string(b), name) && strings.Contains(string(b), "tenantdb statement"))
				sawWrongServer = sawWrongServer || strings.Contains(string(b), "wrongpw")
				if l := leak(string(b), secrets...); l != "" {
					t.Errorf("%s contains %s", p, l)
				}
				return nil
			})
			if !sawStatement {
				t.Fatalf("the logs never show the statements on database %s: they do not cover the apply, so the search proves nothing", name)
			}
			if !sawWrongServer {
				t.Fatalf("the logs never mention the server with the wrong password: they do not cover that step")
			}
			if searched < 10000 {
				t.Fatalf("only %d bytes of TRACE logs were written: the search proves nothing", searched)
			}
			t.Logf("searched %d bytes of TRACE logs, %d plans, %d states and %d diagnostics", searched, rec.plans, rec.states, len(seen))
		})
	}
}
