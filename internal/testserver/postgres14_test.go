// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestPostgres14 starts PostgreSQL 14 from TENANTDB_TEST_POSTGRES14_BINDIR
// (scripts/pg-matrix.sh sets it; skipped without it) with
// WithPostgresBinDir: the same TLS, admin and superuser as on 15+, and a
// statement log read from csvlog (14 has no jsonlog) that holds what the
// admin sent, multi-line statements, refused ones and ones that failed to
// parse included, exactly as TestStatementLogWindow and
// TestStatementLogPostgresFailedStatements expect on 15+.
func TestPostgres14(t *testing.T) {
	dir := os.Getenv(testserver.EnvPostgres14BinDir)
	if dir == "" {
		t.Skipf("set %s to a PostgreSQL 14 bin dir (initdb, postgres) to run this test", testserver.EnvPostgres14BinDir)
	}
	if !testserver.EngineSelected(testserver.EnginePostgres) {
		t.Skipf("%s leaves out postgres", testserver.EnvEngines)
	}
	ctx := context.Background()
	srv, err := testserver.Start(ctx, testserver.EnginePostgres, testserver.WithPostgresBinDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if !strings.HasPrefix(srv.Version(), "14.") {
		t.Fatalf("server version %q from %s, want 14.x", srv.Version(), dir)
	}
	t.Logf("PostgreSQL %s on %s, started in %v", srv.Version(), srv.Addr(), srv.StartupTime())
	if _, err := os.Stat(srv.Dir() + "/postgres.csv"); err != nil {
		t.Errorf("no csvlog: %v", err)
	}
	srv.RequireStatementLog(t)

	admin := openVerifyFull(t, srv, srv.Admin)
	tag := uniqueTag()
	before := "SELECT 'before mark " + tag + "'"
	mustExec(t, admin, before)
	mark := srv.MarkLog(t)
	multi := fmt.Sprintf("SELECT 'line one\n\"line\" ''two'' %s'", tag)
	create := "CREATE DATABASE pg14_" + tag
	syntax := "CREAT DATABASE syntax_" + tag
	parse := fmt.Sprintf("SELECT * FROM no_such_table_%s WHERE a = $1", tag)
	refused := "ALTER SYSTEM SET work_mem = '8MB' -- " + tag
	mustExec(t, admin, multi, create)
	for _, q := range []string{syntax, refused} {
		if _, err := admin.Exec(q); err == nil {
			t.Fatalf("%q succeeded", q)
		}
	}
	if _, err := admin.Exec(parse, 1); err == nil {
		t.Fatalf("%q succeeded", parse)
	}
	srv.MustExec(t, "SELECT 'super "+tag+"'")

	got, err := srv.StatementsSince(ctx, mark, srv.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	want := []testserver.Statement{
		{Kind: "statement", Text: multi}, {Kind: "statement", Text: create},
		{Kind: "error", Text: syntax}, {Kind: "statement", Text: refused}, {Kind: "error", Text: parse},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("admin's statements since the mark:\n%s\nwant\n%s", dump(got), dump(want))
	}
	ddl, err := srv.DDLSince(ctx, mark, srv.Admin.Username)
	if err != nil || fmt.Sprint(ddl) != fmt.Sprint([]testserver.Statement{want[1], want[3]}) {
		t.Errorf("DDLSince = %v, %v; want the CREATE DATABASE and the ALTER SYSTEM", ddl, err)
	}
	if err := srv.CheckNoDDL(ctx, mark, srv.Admin.Username); err == nil || !strings.Contains(err.Error(), create) {
		t.Errorf("CheckNoDDL = %v, want an error naming %q", err, create)
	}
	super, err := srv.StatementsSince(ctx, mark, srv.Super.Username)
	if err != nil || len(super) != 1 || super[0].Text != "SELECT 'super "+tag+"'" {
		t.Errorf("superuser's statements since the mark = %v, %v; want only its SELECT (fences left out)", super, err)
	}
	// A window with nothing in it reads as empty, not as an error.
	quiet := srv.MarkLog(t)
	srv.AssertNoDDL(t, quiet, srv.Admin.Username)
}
