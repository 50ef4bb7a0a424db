// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestAccGrantRefresh_shallow (PostgreSQL): with postgres_grant_refresh =
// "database" a no-op plan opens no connection into the tenant database (the
// server's log shows no statement there, and does show the plan's catalog
// reads), yet a revoked CONNECT and a dropped principal are still drift. A
// table-level REVOKE is what it cannot see; the default refresh sees it.
func TestAccGrantRefresh_shallow(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, user := uniqueName("shr"), uniqueName("shro"), uniqueName("shru")
	s.principal(t, user)
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, owner)
	})
	w := newCLIWorkspace(t)
	base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "") +
		grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, "")
	shallow := withProviderArg(base, "postgres_grant_refresh", "database")
	w.write(shallow)
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE t (v int)"); err != nil {
		t.Fatal(err)
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "cover the new table")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mark := s.MarkLog(t)
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "no-op plan")
	stmts, err := s.StatementsSince(ctx, mark, s.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	var maintenance int
	for _, st := range stmts {
		if st.Database == db {
			t.Fatalf("the shallow no-op plan ran a statement inside the tenant database: %s", st)
		}
		if st.Database != "" {
			maintenance++
		}
	}
	if maintenance == 0 {
		t.Fatalf("the log shows none of the plan's reads (%d statements): the check above proves nothing", len(stmts))
	}

	// Database-level drift is seen.
	s.exec(t, "", fmt.Sprintf("REVOKE CONNECT ON DATABASE %s FROM %s", s.ident(db), s.ident(user)))
	plan := w.run("plan", "-detailed-exitcode")
	if plan.Err == nil {
		t.Fatal("a revoked CONNECT was not seen by the shallow refresh")
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "restore CONNECT")
	if err := s.as(user, principalPW, db, "SELECT v FROM t"); err != nil {
		t.Fatalf("the grant was not restored: %v", err)
	}

	// Table-level drift: not seen shallow, seen by the default refresh.
	s.exec(t, db, "REVOKE SELECT ON t FROM "+s.ident(user))
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "shallow: table-level drift is not visible (documented)")
	w.write(base)
	if plan := w.run("plan", "-detailed-exitcode"); plan.Err == nil {
		t.Fatal("the default refresh did not see a table-level REVOKE")
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "restore the table grant")

	// A dropped principal is seen.
	w.write(shallow)
	s.exec(t, db, "DROP OWNED BY "+s.ident(user))
	s.exec(t, "", "DROP ROLE "+s.ident(user))
	drift := w.run("plan", "-detailed-exitcode")
	if drift.Err == nil {
		t.Fatal("a dropped principal was not seen by the shallow refresh")
	}
	drift.requireDiag(t, "warning", "DriftDetected")
	s.principal(t, user)
	w.run("apply", "-auto-approve").mustSucceed(t, "grant to the principal again")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}
