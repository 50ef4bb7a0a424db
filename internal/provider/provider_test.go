// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

func TestMain(m *testing.M) {
	// Fail loudly: without terraform the testing library tries to download
	// it and exits without a FAIL line.
	if os.Getenv("TF_ACC") != "" {
		if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
			if _, err := exec.LookPath(p); err != nil {
				fmt.Fprintf(os.Stderr, "FAIL: TF_ACC_TERRAFORM_PATH: %v\n", err)
				os.Exit(1)
			}
		} else if _, err := exec.LookPath("terraform"); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: terraform is not on PATH; acceptance tests need terraform >= 1.11")
			os.Exit(1)
		}
	}
	os.Setenv("CHECKPOINT_DISABLE", "1")
	childRuntimeSettings()
	pluginSocketsInOwnDir()
	code := testserver.RunMain(m)
	for _, dir := range cleanupDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// testAccProviders serves the provider in-process for terraform: a fresh
// provider (and connection registry) per terraform command, as a real
// plugin process would have. The testing library never stops an in-process
// provider, so the previous command's registry is closed when the next one
// starts (acceptance tests run one command at a time); otherwise every
// command leaves its admin pool open and a few dozen PostgreSQL commands a
// minute exhaust the server's connection slots (53300), which a real plugin
// process, ended by terraform after each command, never does.
var testAccProviders = map[string]func() (tfprotov6.ProviderServer, error){
	"tenantdb": func() (tfprotov6.ProviderServer, error) {
		p := New("test")().(*tenantdbProvider)
		openRegistries.mu.Lock()
		for _, r := range openRegistries.open {
			r.Close()
		}
		openRegistries.open = []*dbclient.Registry{p.registry}
		openRegistries.mu.Unlock()
		// As main serves it: releasingServer in front of the framework.
		return pluginserver.ReleaseRequests(providerserver.NewProtocol6(p)()), nil
	},
}

var openRegistries struct {
	mu   sync.Mutex
	open []*dbclient.Registry
}

// accServer is a shared throwaway server plus the server name the test
// configuration gives it; its admin password reaches the provider through
// the TENANTDB_ADMIN_PASSWORD_<NAME> fallback.
type accServer struct {
	*testserver.Server
	name string
	// bastion: when set, serverHCL reaches the server only through this
	// sshd, at a host name only it resolves (viaBastion).
	bastion *testserver.SSHD
}

var envMu sync.Mutex

// adminDDLSince is the DDL and DCL the admin login ran since mark, read
// from the server's statement log (waiting at most a minute for it).
func (s accServer) adminDDLSince(t *testing.T, mark testserver.LogMark) []testserver.Statement {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stmts, err := s.DDLSince(ctx, mark, s.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	return stmts
}

// testAccServer is the shared server of a kind: "mariadb", "mysql" (MySQL
// 9.7) or "postgres" (testserver.Kinds). s.Engine is the provider's engine
// name, "mysql" for MariaDB and MySQL alike.
func testAccServer(t *testing.T, kind string) accServer {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	requireAccName(t)
	s := testserver.SharedKind(t, kind)
	// One name per kind: the admin password reaches the provider through
	// a process-wide variable named after it.
	name := map[string]string{testserver.KindMariaDB: "maria", testserver.KindMySQL: "my", testserver.KindPostgres: "pg"}[kind]
	envMu.Lock()
	os.Setenv(AdminPasswordEnv(name), s.Admin.Password)
	envMu.Unlock()
	return accServer{Server: s, name: name}
}

// testAccServerOnly is testAccServer for a test that runs on one kind of
// server only; why says what makes it that kind's alone, and is the skip
// message where TENANTDB_TEST_ENGINES leaves the kind out (make test runs
// every kind, each in one of its runs: the other runs skip the test).
func testAccServerOnly(t *testing.T, kind, why string) accServer {
	t.Helper()
	if !testserver.EngineSelected(kind) {
		t.Skipf("%s only: %s (%s=%q leaves %s out)", kind, why, testserver.EnvEngines, os.Getenv(testserver.EnvEngines), kind)
	}
	return testAccServer(t, kind)
}

// serverHCL declares the tenantdb_db_server for s. extra is added inside
// the block (e.g. a different username).
func (s accServer) serverHCL(extra string) string { return s.serverHCLAt(s.Port, extra) }

// serverHCLAt is serverHCL with another port (a proxy in front of s).
func (s accServer) serverHCLAt(port int, extra string) string {
	return s.serverBlock(port, s.CAPEM, extra)
}

// serverBlock is the db_server block with a given port, and the provider
// block giving it the CA bundle caPEM. A configuration has one provider
// block: tests that declare more servers use caCertsHCL and
// serverResourceHCL instead.
func (s accServer) serverBlock(port int, caPEM, extra string) string {
	if s.bastion != nil {
		return s.bastionServerBlock(port, caPEM, extra)
	}
	return caCertsHCL(map[string]string{s.name: caPEM}) + s.serverResourceHCL("main", s.name, port, extra)
}

// serverResourceHCL is a tenantdb_db_server block (verify-full) on s with
// its own label and name; its CA comes from the provider block.
func (s accServer) serverResourceHCL(label, name string, port int, extra string) string {
	return fmt.Sprintf(`
resource "tenantdb_db_server" %q {
  name     = %q
  engine   = %q
  host     = %q
  port     = %d
  username = %q
  tls      = "verify-full"
%s
}
`, label, name, s.Engine, s.Host, port, s.Admin.Username, extra)
}

// caCertsHCL is the provider block giving each named server its CA
// (ca_certs); admin passwords come from the environment.
func caCertsHCL(cas map[string]string) string {
	var b strings.Builder
	b.WriteString("\nprovider \"tenantdb\" {\n  ca_certs = {\n")
	for _, name := range slices.Sorted(maps.Keys(cas)) {
		fmt.Fprintf(&b, "    %s = %q\n", hclKey(name), cas[name])
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

var uniq atomic.Int64

// uniqueName returns a fresh database/login name for one test.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, os.Getpid()%10000, uniq.Add(1))
}

// super opens the superuser pool, for inspection and out-of-band changes.
func (s accServer) super(t *testing.T, database string) *sql.DB {
	t.Helper()
	db, err := s.SuperDB(database)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// databaseExists queries the server, not Terraform.
func (s accServer) databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`
	if s.Engine == "postgres" {
		q = `SELECT COUNT(*) FROM pg_database WHERE datname = $1`
	}
	if err := s.super(t, "").QueryRow(q, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func (s accServer) charsetCollation(t *testing.T, name string) (string, string) {
	t.Helper()
	var cs, co string
	q := `SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`
	if s.Engine == "postgres" {
		q = `SELECT pg_encoding_to_char(encoding), datcollate FROM pg_database WHERE datname = $1`
	}
	if err := s.super(t, "").QueryRow(q, name).Scan(&cs, &co); err != nil {
		t.Fatal(err)
	}
	return cs, co
}

func (s accServer) exec(t *testing.T, database string, stmts ...string) {
	t.Helper()
	db := s.super(t, database)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// ident quotes a test-chosen name for out-of-band SQL in tests.
// administersOnlyItsRoles: PostgreSQL 16+ limits a CREATEROLE admin to the
// roles it administers (ddl.AdministersRolesItCreates).
func (s accServer) administersOnlyItsRoles(t *testing.T) bool {
	t.Helper()
	if s.Engine != "postgres" {
		return false
	}
	v, err := ddl.ParseVersion(s.Version())
	if err != nil {
		t.Fatal(err)
	}
	return ddl.AdministersRolesItCreates(ddl.ServerInfo{Flavor: ddl.FlavorPostgres, Version: v})
}

func (s accServer) ident(name string) string {
	if s.Engine == "postgres" {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// engines lists the server kinds the acceptance tests run on: "mariadb",
// "mysql" (MySQL 9.7) and "postgres", as TENANTDB_TEST_ENGINES and
// -run 'TestX/<kind>' select them. The loop variable is a kind; compare
// s.Engine for the provider's engine ("mysql" for both MySQL servers).
func engines() []string { return testserver.Kinds() }

// skipUnselectedKind skips a test that needs no server when
// TENANTDB_TEST_ENGINES leaves its kind out (testAccServer does the same
// for tests with a server).
func skipUnselectedKind(t *testing.T, kind string) {
	t.Helper()
	requireAccName(t)
	if !testserver.EngineSelected(kind) {
		t.Skipf("%s=%q leaves out %s", testserver.EnvEngines, os.Getenv(testserver.EnvEngines), kind)
	}
}

// providerEngine is the provider's engine name for a server kind.
func providerEngine(kind string) string {
	engine, _ := testserver.KindServer(kind)
	return engine
}

// dropDatabase removes a test database out of band (test cleanup). On
// PostgreSQL the superuser's own cached pool may still be connected to it.
func (s accServer) dropDatabase(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		q := "DROP DATABASE IF EXISTS " + s.ident(name)
		if s.Engine == "postgres" {
			q += " WITH (FORCE)"
		}
		s.exec(t, "", q)
	}
}

// skipTransportOnStandIn skips a test of a transport in front of the
// server (an SSH bastion, a SOCKS5 proxy) in a process whose family runs
// on a newer release (mariadb11, postgres18): what it proves is the
// provider's dialer and the tunnel, the same bytes whatever release is
// behind it, so the family's default release proves it for both, and the
// newest run spends its time on what differs (TESTING.md, "Where the time
// goes"). TENANTDB_TEST_TRANSPORT=all runs them on the stand-ins too.
func skipTransportOnStandIn(t *testing.T, kind string) {
	t.Helper()
	skipOnStandIn(t, kind, "a transport test: the dialer and tunnel do not depend on the server's release")
}

// skipOnStandIn skips, on a stand-in kind (MariaDB 11.8, PostgreSQL 18), a
// test whose proof the server's release cannot change: what the provider
// decides or sends before any server-specific SQL (plan-time refusals,
// state upgrades, Terraform's saved-plan flow, TLS, certificates and
// cloud tokens, the peers' move). It runs on its family's default release
// (MariaDB 10.11, PostgreSQL 15) and on MySQL 9.7; TESTING.md lists these
// tests. TENANTDB_TEST_STANDINS=all (or TENANTDB_TEST_TRANSPORT=all, its
// older name for the transport tests) runs them on the stand-ins too.
func skipOnStandIn(t *testing.T, kind, why string) {
	t.Helper()
	if !testserver.StandIn(kind) || os.Getenv("TENANTDB_TEST_STANDINS") == "all" || os.Getenv("TENANTDB_TEST_TRANSPORT") == "all" {
		return
	}
	t.Skipf("%s; it runs on %s's default release (TENANTDB_TEST_STANDINS=all runs it on %s=%q too)",
		why, kind, testserver.EnvEngines, os.Getenv(testserver.EnvEngines))
}

// skipInStandInRun is skipOnStandIn for a test that reaches no server:
// it runs in the runs of the default releases, not again in a stand-in's.
func skipInStandInRun(t *testing.T, why string) {
	t.Helper()
	for _, family := range []string{"mariadb", "postgres"} {
		if testserver.StandIn(family) {
			skipOnStandIn(t, family, why)
		}
	}
}

// requireAccName fails a test that uses a server of a kind but is not named
// TestAcc...: scripts/testacc.sh runs the TestAcc tests on every kind, each
// in a run of its own, and every other test once, so a server test under
// another name would silently run on two kinds of five.
func requireAccName(t *testing.T) {
	t.Helper()
	if !strings.HasPrefix(t.Name(), "TestAcc") {
		t.Fatalf("%s uses a server of a kind: name it TestAcc... so that make test runs it on every kind (scripts/testacc.sh)", t.Name())
	}
}
