// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestDropOwner_stillOwnsAfterReassign (PostgreSQL): a tenant session still
// open while its owner is offboarded used to make an object right after
// REASSIGN OWNED (a large object needs no privilege on any schema). The
// lock-out (NOLOGIN, its sessions ended) now comes first: that session is
// gone before the handover, and no new one opens. Something the login
// still owns after the handover (here made by a superuser as the login,
// the only way left) stops the drop at the read between REASSIGN and DROP
// OWNED (requireOwnsNothing): ErrStillOwns names the object and the
// statement that clears it (to the database's keeper role, never the
// admin); no DROP OWNED or DROP ROLE runs; after that statement the next
// destroy finishes and the object is the keeper's.
func TestDropOwner_stillOwnsAfterReassign(t *testing.T) {
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only: REASSIGN OWNED and DROP OWNED are PostgreSQL's")
	}
	e := newEnv(t, "postgres")
	db, user, pw := e.newDB("sto"), e.newUser("stoo"), "Still-owns-1"
	if _, _, err := e.s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}
	id, err := e.s.ClaimOwner(e.ctx, db, user, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
	if err != nil {
		t.Fatal(err)
	}
	tenant := e.mustOpenAs(user.String(), pw, db.String())
	defer tenant.Close()
	tenant.SetMaxOpenConns(1)
	exec(t, tenant, "CREATE TABLE kept (v int)", "INSERT INTO kept VALUES (1)")
	keeper := ddl.KeeperName(db).String()

	var played atomic.Bool
	var loOID uint32
	var ran []string
	onStatement(t, func(_ context.Context, st ddl.Statement) { ran = append(ran, st.String()) })
	onFinished(t, func(st ddl.Statement) {
		if strings.HasPrefix(st.String(), "REASSIGN OWNED BY") && !played.Swap(true) {
			if err := tenant.QueryRowContext(e.ctx, "SELECT pg_catalog.lo_create(0)").Scan(&loOID); err == nil {
				t.Errorf("the tenant's session made large object %d after REASSIGN OWNED: the lock-out did not end it", loOID)
			}
			c, err := e.superIn(db).Conn(e.ctx)
			if err == nil {
				defer c.Close()
				_, err = c.ExecContext(e.ctx, `SET ROLE "`+user.String()+`"`)
			}
			if err == nil {
				err = c.QueryRowContext(e.ctx, "SELECT pg_catalog.lo_create(0)").Scan(&loOID)
			}
			if err != nil {
				t.Errorf("a large object made as the login after REASSIGN OWNED: %v", err)
			}
		}
	})
	_, err = e.s.DropOwner(e.ctx, db, user, id, nil)
	if !played.Load() {
		t.Fatal("REASSIGN OWNED was never seen: the test played nothing")
	}
	if err == nil {
		t.Fatal("DropOwner succeeded while the login still owned a large object in the database")
	}
	for _, want := range []string{"still owns", "large object", `REASSIGN OWNED BY "` + user.String() + `" TO "` + keeper + `"`, "locked out"} {
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
	e.mustLoginFail(user.String(), pw, db.String())
	var loOwner string
	if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(lomowner) FROM pg_largeobject_metadata WHERE oid = $1`,
		loOID).Scan(&loOwner); err != nil || loOwner != user.String() {
		t.Errorf("large object %d owned by %q (%v), want the tenant %q: it must be left as it was", loOID, loOwner, err, user)
	}
	if n := e.rowCount(db, "kept"); n != 1 {
		t.Errorf("kept has %d rows, want 1", n)
	}

	// The recovery the error gives, as a superuser, then the destroy again.
	exec(t, e.superIn(db), `REASSIGN OWNED BY "`+user.String()+`" TO "`+keeper+`"`)
	if _, err := e.s.DropOwner(e.ctx, db, user, id, nil); err != nil {
		t.Fatalf("DropOwner after the recovery: %v", err)
	}
	if e.loginExists(user) {
		t.Error("the login exists after the recovery's destroy")
	}
	if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(lomowner) FROM pg_largeobject_metadata WHERE oid = $1`,
		loOID).Scan(&loOwner); err != nil || loOwner != keeper {
		t.Errorf("large object %d owned by %q (%v) after the destroy, want the keeper %q", loOID, loOwner, err, keeper)
	}
	if owner := e.tableOwner(db, "kept"); owner != keeper {
		t.Errorf("kept owned by %q after the destroy, want the keeper %q", owner, keeper)
	}
	if n := e.rowCount(db, "kept"); n != 1 {
		t.Errorf("kept has %d rows after the destroy, want 1", n)
	}
}
