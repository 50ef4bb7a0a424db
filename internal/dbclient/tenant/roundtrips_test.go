// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestRoundTrips_postgresOwnerAndGrantCreate (PostgreSQL) counts, from the
// server's statement log, what the admin sends for an owner create and a
// grant create (reads, statements, transaction control), so a change to
// the transactions or the reads shows in numbers (TESTING.md). Each change
// runs as one transaction: exactly one BEGIN and one COMMIT.
func TestRoundTrips_postgresOwnerAndGrantCreate(t *testing.T) {
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only")
	}
	e := newEnv(t, "postgres")
	e.ts.RequireStatementLog(t)
	db, owner, pw := e.newDB("rt"), e.newUser("rto"), "Round-trip-1"
	grantee := e.plainLogin("rtg", "Grantee1")
	if _, _, err := e.s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}
	count := func(what string, run func() error) {
		t.Helper()
		mark := e.ts.MarkLog(t)
		if err := run(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		stmts, err := e.ts.StatementsSince(e.ctx, mark, e.ts.Admin.Username)
		if err != nil {
			t.Fatal(err)
		}
		var reads, changes, control int
		for _, st := range stmts {
			text := strings.ToUpper(strings.TrimSpace(st.Text))
			switch {
			case text == "BEGIN" || text == "COMMIT" || text == "ROLLBACK" || strings.HasPrefix(text, "SAVEPOINT") || strings.HasPrefix(text, "RELEASE"):
				control++
			case strings.HasPrefix(text, "SELECT") || strings.HasPrefix(text, "WITH") || strings.HasPrefix(text, "SHOW"):
				reads++
			default:
				changes++
			}
		}
		t.Logf("%s: %d round trips: %d reads, %d changes, %d transaction control", what, len(stmts), reads, changes, control)
		for _, st := range stmts {
			t.Logf("  [%s] %.110s", st.Database, st.Text)
		}
	}
	count("owner create", func() error {
		_, err := e.s.ClaimOwner(e.ctx, db, owner, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
		return err
	})
	count("grant create", func() error {
		_, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT", "INSERT"))
		return err
	})
}
