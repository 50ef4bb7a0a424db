// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The guards below were, before these tests, caught only by acceptance
// tests (issue 38 item 5): each test here fails, in seconds and without
// Terraform, when its guard is removed. The comment on each says which
// removal it was seen failing on.

// claimTenant makes a database and its owner the way the provider does
// (ClaimDatabase, ClaimOwner: the owner carries its mark) and returns the
// owner login's identity, as state records it.
func (e *env) claimTenant(prefix, pw string) (ddl.DatabaseName, ddl.Username, proof.Identity) {
	e.t.Helper()
	db, owner := e.newDB(prefix), e.newUser(prefix+"o")
	if _, _, err := e.s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		e.t.Fatalf("ClaimDatabase %s: %v", db, err)
	}
	id, err := e.s.ClaimOwner(e.ctx, db, owner, mustPassword(e.t, pw), mustPrivileges(e.t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{})
	if err != nil {
		e.t.Fatalf("ClaimOwner %s: %v", owner, err)
	}
	return db, owner, id
}

// TestGuard_passwordChangeChecksIdentity: the owner login was dropped and
// re-created by someone else (PostgreSQL: renamed away, a new role takes the
// name; MariaDB: dropped and created again). SetOwnerPassword with the
// recorded identity refuses IdentityMismatch and the new login keeps its
// own password. Seen failing with requireOwnLogin removed from
// SetOwnerPassword: the foreign login's password was changed.
func TestGuard_passwordChangeChecksIdentity(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner, recorded := e.claimTenant("gpw", "Owner-pw-1")
		if e.isPG() {
			// The database keeps its owner (renamed); a new role takes the name.
			was := e.newUser("gpwwas")
			e.super(fmt.Sprintf(`ALTER ROLE %q RENAME TO %q`, owner, was),
				fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD '%s'`, owner, granteePW))
		} else {
			e.recreatePrincipal(db, owner)
		}
		_, err := e.s.SetOwnerPassword(e.ctx, db, owner, mustPassword(t, "Changed-pw-2"), false, recorded)
		wantReason(t, err, ddl.IdentityMismatch)
		e.mustOpenAs(owner.String(), granteePW, "").Close()
		e.mustLoginFail(owner.String(), "Changed-pw-2", "")
	})
}

// TestGuard_grantToOwnerRefused: a grant naming the tenant's owner login
// is refused (GrantUserReserved) and the owner keeps every right it had:
// it still creates a table in its database, and on MySQL/MariaDB its
// mysql.db row is unchanged. Seen failing (MariaDB) with
// refuseGrantToMySQLOwner returning nil at once: the grant narrowed the
// owner to SELECT.
func TestGuard_grantToOwnerRefused(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner, _ := e.claimTenant("gto", granteePW) // mustCan logs in with granteePW
		var before []string
		if !e.isPG() {
			before = keys(e.mysqlDBRow(db, owner))
		}
		_, err := e.s.CreateGrant(e.ctx, db, owner, mustPrivileges(t, e.engine, "SELECT"))
		wantReason(t, err, ddl.GrantUserReserved)
		if !e.isPG() {
			if after := keys(e.mysqlDBRow(db, owner)); !slices.Equal(before, after) {
				t.Fatalf("the owner's mysql.db row changed: %v -> %v", before, after)
			}
		}
		e.mustCan(owner, db, "CREATE TABLE "+e.tbl(db, "still_mine")+" (v int)", "INSERT INTO "+e.tbl(db, "still_mine")+" VALUES (1)")
	})
}

// TestGuard_revokeAfterDroppedDatabase (MySQL/MariaDB): a grant's row
// outlives DROP DATABASE; RevokeGrant on the dropped database still revokes
// it, so a later database of that name does not inherit it. Seen failing
// with the PostgreSQL-only condition of RevokeGrant's "database gone" case
// dropped (every engine returning AlreadyGone): the row stayed.
func TestGuard_revokeAfterDroppedDatabase(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		if e.isPG() {
			t.Skip("PostgreSQL drops a database's privileges with it")
		}
		db, _, _ := e.claimTenant("grd", "Owner-pw-4")
		grantee := e.plainLogin("grdg", granteePW)
		ids, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT", "INSERT"))
		if err != nil {
			t.Fatal(err)
		}
		if len(e.grantResidue(db, grantee)) == 0 {
			t.Fatal("the grant left no row: the test proves nothing")
		}
		e.super("DROP DATABASE " + e.quote(db.String()))
		if left := e.grantResidue(db, grantee); len(left) == 0 {
			t.Fatal("DROP DATABASE took the grant's row with it: the test proves nothing")
		}
		out, err := e.s.RevokeGrant(e.ctx, db, grantee, ids)
		if left := e.grantResidue(db, grantee); len(left) != 0 {
			t.Fatalf("the grant's row outlived its revoke (%+v, %v): %v (a database created under the name would inherit it)", out, err, left)
		}
		if err != nil || out.Outcome != Dropped {
			t.Fatalf("RevokeGrant on a dropped database: %+v, %v; want Dropped", out, err)
		}
	})
}

// TestGuard_sessionLockTimeout: every session the provider opens, on the
// maintenance database and in a tenant database, waits for a lock at most
// the provider's lock_timeout: PostgreSQL's lock_timeout, MySQL/MariaDB's
// lock_wait_timeout and innodb_lock_wait_timeout, read back from the
// server. Seen failing with each setting removed from pool.go
// (RuntimeParams["lock_timeout"]: "0"; the two MySQL params: 31536000 and
// 50).
func TestGuard_sessionLockTimeout(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, _, _ := e.claimTenant("glk", "Owner-pw-5")
		spec := adminSpec(t, e.ts, e.ts.Admin)
		spec.LockTimeout = 3 * time.Second
		reg := newRegistry()
		t.Cleanup(reg.Close)
		s, err := reg.Server(e.ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		read := func(ctx context.Context, q session.Queryer) (string, error) {
			if e.isPG() {
				var v string
				return v, q.QueryRowContext(ctx, "SHOW lock_timeout").Scan(&v)
			}
			var a, b int
			err := q.QueryRowContext(ctx, "SELECT @@SESSION.lock_wait_timeout, @@SESSION.innodb_lock_wait_timeout").Scan(&a, &b)
			return fmt.Sprintf("%d %d", a, b), err
		}
		want := "3 3"
		if e.isPG() {
			want = "3s"
		}
		for _, database := range []string{"", db.String()} {
			var got string
			fn := func(ctx context.Context, q session.Queryer) (err error) {
				got, err = read(ctx, q)
				return err
			}
			var err error
			if database == "" {
				err = s.sess.Query(e.ctx, fn)
			} else {
				err = s.sess.QueryIn(e.ctx, database, fn)
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(got) != want {
				t.Errorf("session on %q: lock wait %q, want %q (the provider's lock_timeout of 3s)", database, got, want)
			}
		}
	})
}
