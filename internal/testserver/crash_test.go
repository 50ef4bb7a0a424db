// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestCrashRestart: Crash kills the server at once (its port stops
// answering), Restart brings it back on the same port with its data, and
// the statement log still works.
func TestCrashRestart(t *testing.T) {
	for _, kind := range testserver.Kinds() {
		t.Run(kind, func(t *testing.T) {
			if !testserver.EngineSelected(kind) {
				t.Skipf("%s leaves out %s", testserver.EnvEngines, kind)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv, err := testserver.StartKind(ctx, kind)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Stop() })
			super, err := srv.SuperDB("")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := super.Exec("CREATE DATABASE crash_survivor"); err != nil {
				t.Fatal(err)
			}
			pid := srv.PID()
			if err := srv.Crash(); err != nil {
				t.Fatal(err)
			}
			if err := super.PingContext(ctx); err == nil {
				t.Fatal("the server still answers after Crash")
			}
			if err := srv.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			if srv.PID() == pid {
				t.Fatal("the restarted server has the crashed one's pid")
			}
			q := `SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'crash_survivor'`
			if kind == testserver.KindPostgres {
				q = `SELECT count(*) FROM pg_database WHERE datname = 'crash_survivor'`
			}
			var n int
			if err := super.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 1 {
				t.Fatalf("after the restart the database is %d times there (%v), want once", n, err)
			}
			mark := srv.MarkLog(t)
			if _, err := super.Exec("DROP DATABASE crash_survivor"); err != nil {
				t.Fatal(err)
			}
			if ddl, err := srv.DDLSince(ctx, mark, srv.Super.Username); err != nil || len(ddl) != 1 {
				t.Fatalf("the statement log after the restart shows %v (%v), want the one DROP", ddl, err)
			}
		})
	}
}
