// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

func TestAccDBServer_basic(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			addr := "tenantdb_db_server.main"
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: s.serverHCL(`  reserved_usernames = ["app", "replicator"]`),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(s.name)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("flavor"), knownvalue.StringExact(s.Flavor)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("version"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+$`))),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref"), knownvalue.StringExact(
								fmt.Sprintf(`%s://%s@%s:%d/%s?tls=verify-full&reserved_usernames=app,replicator`,
									s.Engine, s.Admin.Username, s.Host, s.Port, s.name))),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ca_fingerprint"), knownvalue.StringExact(caFingerprint("verify-full", s.CAPEM).ValueString())),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ca_cert"), knownvalue.Null()),
						},
					},
					{
						Config: s.serverHCL(`  reserved_usernames = ["app", "replicator"]`),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
					},
					{
						ResourceName:      addr,
						ImportState:       true,
						ImportStateId:     fmt.Sprintf(`{"name":%q,"engine":%q,"host":%q,"port":%d,"username":%q,"tls":"verify-full","reserved_usernames":["app","replicator"]}`, s.name, s.Engine, s.Host, s.Port, s.Admin.Username),
						ImportStateVerify: true,
					},
					{
						// An import ID of an earlier version, with the CA in it:
						// refused, saying where the CA went.
						ResourceName:  addr,
						ImportState:   true,
						ImportStateId: fmt.Sprintf(`{"name":%q,"engine":%q,"host":%q,"username":%q,"tls":"verify-full","ca_cert":%q}`, s.name, s.Engine, s.Host, s.Admin.Username, s.CAPEM),
						ExpectError:   regexp.MustCompile(`(?s)ca_cert\s+is\s+no\s+longer\s+part.*ca_certs\s+=\s+\{\s+` + s.name + `\s+=\s+file`),
					},
					{
						// Renaming a saved server is refused, not replaced.
						Config:      strings.Replace(s.serverHCL(""), fmt.Sprintf("name     = %q", s.name), `name     = "renamed"`, 1),
						ExpectError: regexp.MustCompile(`ImmutableAttribute`),
					},
				},
			})
		})
	}
}

// TestAccDBServer_missingAdminRights: a weaker admin is refused with each
// missing right and the statements that grant it.
func TestAccDBServer_missingAdminRights(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			weakName := uniqueName("weak")
			var weak = s.CreateLogin(t, weakName, "weak-Pass-1", weakGrants(engine, weakName)...)
			t.Setenv(AdminPasswordEnv(s.name), weak.Password)
			want := `(?s)MissingAdminRights.*CREATE USER.*GRANT CREATE, DROP, CREATE USER ON \*\.\* TO`
			if engine == "postgres" {
				want = `(?s)MissingAdminRights.*CREATEROLE.*ALTER ROLE .* CREATEDB CREATEROLE`
			}
			var proof noSQLProof
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					PreConfig:   func() { s.beforeRefusal(t, &proof, weak.Username) },
					Config:      strings.Replace(s.serverHCL(""), fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", weak.Username), 1),
					ExpectError: regexp.MustCompile(want),
				}},
			})
			proof.assert(t, "MissingAdminRights")
		})
	}
}

func weakGrants(engine, name string) []string {
	if engine == "postgres" {
		return []string{fmt.Sprintf(`ALTER ROLE %q CREATEDB`, name)}
	}
	return []string{fmt.Sprintf("GRANT CREATE, DROP ON *.* TO '%s'@'%%'", name)}
}

// TestAccDBServer_wrongCA: verify-full with the test CA works (every other
// test uses it); a CA that did not sign the server certificate fails at once
// with a TLS error naming the provider's ca_certs.
func TestAccDBServer_wrongCA(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipTransportOnStandIn(t, engine)
			s := testAccServer(t, engine)
			wrong := s.serverBlock(s.Port, testserver.UnrelatedCAPEM(t), "")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config: wrong,
					// A configuration error, named at once: not PrimaryUnavailable
					// after retries.
					ExpectError: regexp.MustCompile(strings.ReplaceAll(`TLS: the server certificate is not signed by the CA the provider's ca_certs gives server "`+s.name+`"`, " ", `\s+`)),
				}},
			})
		})
	}
}

// TestValidate_hostAndPort: a host that is not a bare host name or IP
// address, and a port outside 1-65535 (an explicit 0 included), are refused
// at validate time, with no server, on tenantdb_db_server and on a tenant's
// inline `server` object alike. ::1 is the one IPv6 form and is accepted.
func TestValidate_hostAndPort(t *testing.T) {
	t.Parallel()
	dbServer := func(host, port string) string {
		return fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name     = "offline"
  engine   = "mysql"
  host     = %q
  username = "tenantdb_admin"
  %s
}
`, host, port)
	}
	inline := func(host, port string) string {
		if port != "" {
			port = ", " + port
		}
		return fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server = jsonencode({ name = "x", engine = "mysql", host = %q, username = "a" %s })
  name   = "acme"
}
`, host, port)
	}
	const badHost = `InvalidIdentifier: host `
	// The db_server's attribute validator, or the inline server's check.
	badPort := func(n string) string {
		return `(?s)port.*(must be between 1 and 65535, got: ` + n + `|` + n + ` is outside 1-65535)`
	}
	cases := []struct {
		name, host, port, want string
	}{
		{"port 0", "127.0.0.1", "port = 0", badPort("0")},
		{"port -1", "127.0.0.1", "port = -1", badPort("-1")},
		{"port 65536", "127.0.0.1", "port = 65536", badPort("65536")},
		{"host with port", "db:3306", "", badHost + `"db:3306"`},
		{"bracketed IPv6 with port", "[::1]:5432", "", badHost + `"\[::1\]:5432"`},
		{"bracketed IPv6", "[::1]", "", badHost + `"\[::1\]"`},
		{"leading space", " db.internal", "", badHost + `" db.internal"`},
		{"trailing space", "db.internal ", "", badHost + `"db.internal "`},
		{"empty", "", "", badHost + `""`},
		{"url", "mysql://db", "", badHost},
		{"user@host", "admin@db", "", badHost},
		{"socket path", "/run/mysqld/mysqld.sock", "", badHost},
	}
	for _, c := range cases {
		for kind, config := range map[string]string{
			"db_server": dbServer(c.host, c.port),
			"inline":    inline(c.host, c.port),
		} {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				resource.UnitTest(t, resource.TestCase{
					ProtoV6ProviderFactories: testAccProviders,
					Steps: []resource.TestStep{{
						Config:      config,
						PlanOnly:    true,
						ExpectError: regexp.MustCompile(c.want),
					}},
				})
			})
		}
	}
	// The accepted forms plan (no server is needed to plan a create).
	for _, host := range []string{"::1", "127.0.0.1", "db.internal"} {
		for kind, config := range map[string]string{
			"db_server": dbServer(host, ""),
			"inline":    inline(host, ""),
		} {
			t.Run(kind+"/accepts "+host, func(t *testing.T) {
				t.Parallel()
				resource.UnitTest(t, resource.TestCase{
					ProtoV6ProviderFactories: testAccProviders,
					Steps: []resource.TestStep{{
						Config:             config,
						PlanOnly:           true,
						ExpectNonEmptyPlan: true,
					}},
				})
			})
		}
	}
}

// TestServerRefValidate: the same rules in serverRef.validate, which tenant
// resources run in ModifyPlan and before every connection (values that were
// unknown at validate time), and the port defaulting in refFromModel: only
// an omitted port means the default.
func TestServerRefValidate(t *testing.T) {
	t.Parallel()
	ok := serverRef{Name: "main", Engine: "mysql", Host: "::1", Port: 3306, Username: "a", TLS: "require"}
	if err := ok.validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	for _, c := range []struct {
		mutate func(*serverRef)
		want   string
	}{
		{func(r *serverRef) { r.Host = "[::1]" }, `InvalidIdentifier: host "[::1]"`},
		{func(r *serverRef) { r.Host = "db:3306" }, `InvalidIdentifier: host "db:3306"`},
		{func(r *serverRef) { r.Host = "" }, `InvalidIdentifier: host ""`},
		{func(r *serverRef) { r.Port = 0 }, "port 0 is outside 1-65535"},
		{func(r *serverRef) { r.Port = -1 }, "port -1 is outside 1-65535"},
		{func(r *serverRef) { r.Port = 65536 }, "port 65536 is outside 1-65535"},
	} {
		r := ok
		c.mutate(&r)
		if err := r.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %s", r, err, c.want)
		}
	}

	model := func(port types.Int64) serverRefModel {
		return serverRefModel{
			Name: types.StringValue("main"), Engine: types.StringValue("postgres"), Host: types.StringValue("db"),
			Port: port, Username: types.StringValue("a"), TLS: types.StringNull(),
			ReservedUsernames: types.SetNull(types.StringType),
		}
	}
	r, known, diags := refFromModel(t.Context(), model(types.Int64Null()))
	if !known || diags.HasError() || r.Port != 5432 || r.validate() != nil {
		t.Errorf("omitted port: %+v known=%v %v, want the default 5432", r, known, diags)
	}
	r, _, _ = refFromModel(t.Context(), model(types.Int64Value(0)))
	if r.Port != 0 || r.validate() == nil {
		t.Errorf("explicit port 0 became %d and validates: it must be refused, not defaulted", r.Port)
	}
}

// TestAccDBServer_configErrors: a host that does not resolve and the other
// engine's port are reported as what they are, through terraform.
func TestAccDBServer_configErrors(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			other := testAccServer(t, map[string]string{"mariadb": "postgres", "mysql": "postgres", "postgres": "mariadb"}[engine])
			proto := map[string]string{"mysql": "MySQL", "postgres": "PostgreSQL"}[s.Engine]
			hcl := s.serverHCL("")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config:      strings.Replace(hcl, fmt.Sprintf("host     = %q", s.Host), `host     = "nonexistent.invalid"`, 1),
						ExpectError: regexp.MustCompile(strings.ReplaceAll(`DNS: host nonexistent\.invalid not found`, " ", `\s+`)),
					},
					{
						Config: strings.Replace(hcl, fmt.Sprintf("port     = %d", s.Port), fmt.Sprintf("port     = %d", other.Port), 1),
						// Terraform wraps the detail: any space may be a line break.
						ExpectError: regexp.MustCompile(`(?s)` + strings.ReplaceAll(`does not speak the `+proto+` protocol.* is engine/port right\?`, " ", `\s+`)),
					},
				},
			})
		})
	}
}

// TestAccDBServer_ipv6: host = "::1", the one documented IPv6 form, works
// for both engines end to end. The test servers listen on 127.0.0.1 only,
// so a forwarder on [::1] stands in front of them (the server certificate
// names ::1, so verify-full checks it).
func TestAccDBServer_ipv6(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipTransportOnStandIn(t, engine)
			s := testAccServer(t, engine)
			if s.CAPEM == "" || s.Host != "127.0.0.1" {
				t.Skipf("needs the local test servers (backend %s)", s.Backend)
			}
			port, accepted := ipv6Forward(t, s.Addr())
			hcl := strings.Replace(s.serverHCL(""), fmt.Sprintf("host     = %q", s.Host), `host     = "::1"`, 1)
			hcl = strings.Replace(hcl, fmt.Sprintf("port     = %d", s.Port), fmt.Sprintf("port     = %d", port), 1)
			addr := "tenantdb_db_server.main"
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: hcl,
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref"), knownvalue.StringRegexp(regexp.MustCompile(`@\[::1\]:\d+/`))),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("flavor"), knownvalue.StringExact(s.Flavor)),
						},
					},
					{
						Config: hcl,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
					},
				},
			})
			if accepted.Load() == 0 {
				t.Fatal("no connection went through [::1]")
			}
		})
	}
}

// ipv6Forward relays connections from [::1]:<port> to target until the
// test ends; it counts accepted connections. Skips where ::1 cannot be bound.
func ipv6Forward(t *testing.T, target string) (int, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("cannot listen on [::1] here: %v", err)
	}
	var accepted atomic.Int64
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().(*net.TCPAddr).Port, &accepted
}

// TestAccDBServer_overPrivilegedAdmin: an admin holding more than the
// documented rights (a PostgreSQL superuser; MySQL/MariaDB ALL PRIVILEGES
// ON *.* WITH GRANT OPTION) is accepted with one warning that names the
// server and gives the statements that narrow the login; after running
// them as written, the next apply has no such warning. The documented
// minimal admin never gets it.
func TestAccDBServer_overPrivilegedAdmin(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			minimal := newCLIWorkspace(t)
			minimal.write(s.serverHCL(""))
			minimal.run("apply", "-auto-approve").mustSucceed(t, "minimal admin").forbidDiag(t, summaryAdminTooStrong)

			name := uniqueName("strong")
			grant := fmt.Sprintf("GRANT ALL PRIVILEGES ON *.* TO '%s'@'%%' WITH GRANT OPTION", name)
			if engine == "postgres" {
				grant = fmt.Sprintf(`ALTER ROLE %q SUPERUSER`, name)
			}
			strong := s.CreateLogin(t, name, "strong-Pass-1", grant)
			t.Setenv(AdminPasswordEnv(s.name), strong.Password)
			w := newCLIWorkspace(t)
			w.write(strings.Replace(s.serverHCL(""), fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", strong.Username), 1))
			d := w.run("apply", "-auto-approve").mustSucceed(t, "over-privileged admin").requireDiag(t, "warning", summaryAdminTooStrong)
			// MariaDB prints ALL as ALL, or as the list of every privilege
			// when the grantor held less than everything: either is named.
			wantRight, narrow := "ON *.*", "REVOKE "
			if engine == "postgres" {
				wantRight, narrow = "SUPERUSER", fmt.Sprintf(`ALTER ROLE %q NOSUPERUSER CREATEDB CREATEROLE;`, name)
			}
			for _, want := range []string{fmt.Sprintf("Server %q", s.name), fmt.Sprintf("%q", name), wantRight, narrow} {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("warning detail lacks %q:\n%s", want, d.Detail)
				}
			}
			if strings.Contains(d.Detail, strong.Password) {
				t.Error("the warning carries the admin password")
			}
			// The statements run as written (one per line, after the last colon).
			block := d.Detail[strings.LastIndex(d.Detail, ":\n")+1:]
			var stmts []string
			for _, line := range strings.Split(block, "\n") {
				if line = strings.TrimSuffix(strings.TrimSpace(line), ";"); line != "" {
					stmts = append(stmts, line)
				}
			}
			if len(stmts) == 0 {
				t.Fatalf("no statements in the warning:\n%s", d.Detail)
			}
			s.MustExec(t, stmts...)
			// Touch the server so it is checked again (a reserved name changes).
			w.write(strings.Replace(s.serverHCL(`  reserved_usernames = ["x"]`), fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", strong.Username), 1))
			w.run("apply", "-auto-approve").mustSucceed(t, "narrowed admin").forbidDiag(t, summaryAdminTooStrong)
		})
	}
}
