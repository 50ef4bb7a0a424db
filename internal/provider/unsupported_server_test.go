// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestAccUnsupportedServer_postgres14: PostgreSQL 14 is refused with
// UnsupportedServer, naming the server's version and the 15+ it needs, both
// when a tenantdb_db_server is created and when a tenant_database reaches
// the server through an inline `server` object; and the server's own
// statement log shows that the admin connected and ran no DDL/DCL, and its
// catalog is unchanged.
//
// It needs a PostgreSQL 14 bin dir (initdb, postgres) in
// TENANTDB_TEST_POSTGRES14_BINDIR and skips without one; scripts/pg-matrix.sh
// (make testacc-pg-matrix) fetches one and sets it. The 14 server is this
// test's own (testserver.WithPostgresBinDir), started on the local backend.
func TestAccUnsupportedServer_postgres14(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	dir := os.Getenv(testserver.EnvPostgres14BinDir)
	if dir == "" {
		t.Skipf("set %s to a PostgreSQL 14 bin dir (make testacc-pg-matrix does)", testserver.EnvPostgres14BinDir)
	}
	if !testserver.EngineSelected(testserver.EnginePostgres) {
		t.Skipf("%s leaves out postgres", testserver.EnvEngines)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := testserver.Start(ctx, testserver.EnginePostgres, testserver.WithPostgresBinDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	v, err := ddl.ParseVersion(srv.Version())
	if err != nil {
		t.Fatal(err)
	}
	if v.Major != 14 {
		t.Fatalf("%s=%s started PostgreSQL %s, want 14", testserver.EnvPostgres14BinDir, dir, srv.Version())
	}
	t.Logf("PostgreSQL %s on %s", srv.Version(), srv.Addr())
	srv.RequireStatementLog(t)

	s := accServer{Server: srv, name: "pg14"}
	envMu.Lock()
	os.Setenv(AdminPasswordEnv(s.name), s.Admin.Password)
	envMu.Unlock()
	t.Cleanup(func() {
		envMu.Lock()
		os.Unsetenv(AdminPasswordEnv(s.name))
		envMu.Unlock()
	})

	// Summary, then the detail naming the version and the minimum;
	// terraform wraps the detail, so any whitespace between words.
	words := func(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }
	want := regexp.MustCompile(`(?s)Error: ` + words(`UnsupportedServer: server "pg14"`) + `.*` +
		words(fmt.Sprintf("The server is PostgreSQL %s; tenantdb needs PostgreSQL 15 or later.", v)))

	database := uniqueName("pg14")
	inline := fmt.Sprintf(`
resource "tenantdb_tenant_database" "t" {
  server          = %s
  name            = %q
  deletion_policy = "delete"
}
`, inlineServer(t, fmt.Sprintf(`{
    name     = %q
    engine   = "postgres"
    host     = %q
    port     = %d
    username = %q
    tls      = "verify-full"
  }`, s.name, s.Host, s.Port, s.Admin.Username)), database) + caCertsHCL(map[string]string{s.name: s.CAPEM})

	var proof noSQLProof
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { s.beforeRefusal(t, &proof, "") },
				Config:      s.serverHCL(""),
				ExpectError: want,
			},
			{
				PreConfig: func() {
					proof.assertReached(t, "tenantdb_db_server on PostgreSQL 14")
					s.beforeRefusal(t, &proof, "")
				},
				Config:      inline,
				ExpectError: want,
			},
		},
	})
	proof.assertReached(t, "tenantdb_tenant_database on PostgreSQL 14")
	if s.databaseExists(t, database) {
		t.Errorf("database %s exists on the PostgreSQL 14 server", database)
	}
}

// inlineServer writes a tenant resource's `server` argument from an HCL
// object: as is when the attribute is an object, inside jsonencode when it is
// the ref's string form.
func inlineServer(t *testing.T, object string) string {
	t.Helper()
	var resp fwresource.SchemaResponse
	NewTenantDatabaseResource().Schema(context.Background(), fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("tenant_database schema: %v", resp.Diagnostics)
	}
	if _, ok := resp.Schema.Attributes["server"].(schema.StringAttribute); ok {
		return "jsonencode(" + object + ")"
	}
	return object
}

// assertReached is assert for a refusal that needs the server's answer (its
// version): the admin must have sent something (the provider reached the
// server as the admin, so the log searched is the one that matters), and
// none of it DDL/DCL; the catalog is unchanged.
func (p *noSQLProof) assertReached(t *testing.T, what string) {
	t.Helper()
	if !p.taken {
		t.Fatalf("%s: no statement-log mark was taken before the refusal", what)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stmts, err := p.s.StatementsSince(ctx, p.mark, p.login)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) == 0 {
		t.Fatalf("%s: the statement log shows nothing from %q since the mark: the refusal was not decided by the server's answer", what, p.login)
	}
	for _, st := range stmts {
		t.Logf("%s: the admin sent %s", what, testserver.RedactSecrets(st.String()))
	}
	p.assert(t, what)
}
