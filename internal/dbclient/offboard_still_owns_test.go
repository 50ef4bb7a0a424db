// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestDropOwner_stillOwnsAfterReassign (PostgreSQL): a tenant session still
// open while its owner is offboarded makes an object right after
// REASSIGN OWNED (a large object needs no privilege on any schema, so the
// tenant can make one after its database was handed to the admin). The
// login then owns it, and DROP OWNED would drop it: the read between the
// two (requireOwnsNothing) stops the drop. ErrStillOwns names the object
// and the statement that clears it; no DROP OWNED or DROP ROLE runs, the
// login and everything it made stay; after that statement, the next
// destroy finishes and the object is the admin's.
func TestDropOwner_stillOwnsAfterReassign(t *testing.T) {
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only: REASSIGN OWNED and DROP OWNED are PostgreSQL's")
	}
	e := newEnv(t, "postgres")
	db, user, pw := e.newDB("sto"), e.newUser("stoo"), "Still-owns-1"
	if _, _, err := e.s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}
	id, err := e.s.ClaimOwner(e.ctx, db, user, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
	if err != nil {
		t.Fatal(err)
	}
	tenant := e.mustOpenAs(user.String(), pw, db.String())
	defer tenant.Close()
	tenant.SetMaxOpenConns(1)
	exec(t, tenant, "CREATE TABLE kept (v int)", "INSERT INTO kept VALUES (1)")

	var played atomic.Bool
	var loOID uint32
	var ran []string
	onStatement(t, func(_ context.Context, st ddl.Statement) { ran = append(ran, st.String()) })
	onFinished(t, func(st ddl.Statement) {
		if strings.HasPrefix(st.String(), "REASSIGN OWNED BY") && !played.Swap(true) {
			if err := tenant.QueryRowContext(e.ctx, "SELECT pg_catalog.lo_create(0)").Scan(&loOID); err != nil {
				t.Errorf("the tenant's large object after REASSIGN OWNED: %v", err)
			}
		}
	})
	_, _, err = e.s.DropOwner(e.ctx, db, user, id)
	if !played.Load() {
		t.Fatal("REASSIGN OWNED was never seen: the test played nothing")
	}
	if err == nil {
		t.Fatal("DropOwner succeeded while the login still owned a large object in the database")
	}
	for _, want := range []string{"still owns", "large object", `REASSIGN OWNED BY "` + user.String() + `" TO "` + e.ts.Admin.Username + `"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	for _, st := range ran {
		if strings.HasPrefix(st, "DROP OWNED") || strings.HasPrefix(st, "DROP ROLE") {
			t.Errorf("%s ran although the login still owned something", st)
		}
	}
	if !e.loginExists(user) {
		t.Fatal("the login was dropped")
	}
	var loOwner string
	if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(lomowner) FROM pg_largeobject_metadata WHERE oid = $1`,
		loOID).Scan(&loOwner); err != nil || loOwner != user.String() {
		t.Errorf("large object %d owned by %q (%v), want the tenant %q: it must be left as it was", loOID, loOwner, err, user)
	}
	if n := e.rowCount(db, "kept"); n != 1 {
		t.Errorf("kept has %d rows, want 1", n)
	}

	// The recovery the error gives, as a superuser, then the destroy again.
	tenant.Close()
	exec(t, e.superIn(db), `REASSIGN OWNED BY "`+user.String()+`" TO "`+e.ts.Admin.Username+`"`)
	if _, _, err := e.s.DropOwner(e.ctx, db, user, id); err != nil {
		t.Fatalf("DropOwner after the recovery: %v", err)
	}
	if e.loginExists(user) {
		t.Error("the login exists after the recovery's destroy")
	}
	if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(lomowner) FROM pg_largeobject_metadata WHERE oid = $1`,
		loOID).Scan(&loOwner); err != nil || loOwner != e.ts.Admin.Username {
		t.Errorf("large object %d owned by %q (%v) after the destroy, want the admin", loOID, loOwner, err)
	}
	if n := e.rowCount(db, "kept"); n != 1 {
		t.Errorf("kept has %d rows after the destroy, want 1", n)
	}
}
