// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Tenant grants against the real servers, as the minimal-rights admin.
// What the grantee can do is proven by logging in as the grantee; what the
// server holds is read as the superuser.

const granteePW = "Grantee-pw-7"

// can runs stmts as the grantee in db; nil when all succeed.
func (e *env) can(user ddl.Username, db ddl.DatabaseName, stmts ...string) error {
	e.t.Helper()
	conn, err := e.openAs(user.String(), granteePW, db.String())
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(e.ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func (e *env) mustCan(user ddl.Username, db ddl.DatabaseName, stmts ...string) {
	e.t.Helper()
	if err := e.can(user, db, stmts...); err != nil {
		e.t.Fatalf("%s on %s: %v", user, db, err)
	}
}

// mustNot asserts a permission error (not some other failure).
func (e *env) mustNot(user ddl.Username, db ddl.DatabaseName, stmt string) {
	e.t.Helper()
	err := e.can(user, db, stmt)
	if err == nil {
		e.t.Fatalf("%s on %s: %q succeeded, want permission denied", user, db, stmt)
	}
	if c := session.CodeOf(err); c != "mysql:1142" && c != "pg:42501" && c != "mysql:1044" {
		e.t.Fatalf("%s on %s: %q: %v, want permission denied", user, db, stmt, err)
	}
}

// tbl names a table for statements run inside db.
func (e *env) tbl(db ddl.DatabaseName, name string) string {
	if e.isPG() {
		return name
	}
	return "`" + db.String() + "`." + name
}

// grantResidue is everything the grantee holds on db by the superuser's
// reading: MySQL/MariaDB its mysql.db row (any privilege, Grant_priv
// included); PostgreSQL every ACL entry naming it on the database, the
// schemas, the tables and in default privileges.
func (e *env) grantResidue(db ddl.DatabaseName, grantee ddl.Username) []string {
	e.t.Helper()
	if !e.isPG() {
		return keys(e.mysqlDBRow(db, grantee))
	}
	rows, err := e.superIn(db).QueryContext(e.ctx, `
WITH g AS (SELECT oid FROM pg_roles WHERE rolname = $1)
SELECT 'database ' || a.privilege_type FROM pg_database d, aclexplode(d.datacl) a, g
  WHERE d.datname = current_database() AND a.grantee = g.oid
UNION ALL SELECT 'schema ' || n.nspname || ' ' || a.privilege_type FROM pg_namespace n, aclexplode(n.nspacl) a, g WHERE a.grantee = g.oid
UNION ALL SELECT 'table ' || c.relname || ' ' || a.privilege_type FROM pg_class c, aclexplode(c.relacl) a, g WHERE a.grantee = g.oid
UNION ALL SELECT 'default ' || a.privilege_type FROM pg_default_acl x, aclexplode(x.defaclacl) a, g WHERE a.grantee = g.oid`, grantee.String())
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (e *env) mustReport(db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet, want bool) {
	e.t.Helper()
	st, err := e.s.ReadGrant(e.ctx, db, user)
	if err != nil {
		e.t.Fatal(err)
	}
	if !st.DatabaseFound || !st.PrincipalFound {
		e.t.Fatalf("ReadGrant: %+v", st)
	}
	got := st.Held.Reported(e.s.Info(), desired)
	if same := slices.Equal(got, desired.Expand(e.s.Info())); same != want {
		e.t.Fatalf("ReadGrant reports %v for desired %v (want equal: %v); held %+v", privNames(got), desired.Names(), want, st.Held)
	}
}

// TestGrantLifecycle: SELECT reads the owner's tables, now and later (also
// in a second schema on PostgreSQL) and cannot write; widening to INSERT
// writes; narrowing back cannot; a schema created after the grant shows as
// drift and the next update covers it; revoke leaves nothing and the
// grantee can still log in.
func TestGrantLifecycle(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("gl", "Owner-pw-7")
		grantee := e.plainLogin("glg", granteePW)
		own := e.mustOpenAs(owner.String(), "Owner-pw-7", db.String())
		exec(t, own, "CREATE TABLE "+e.tbl(db, "t0")+" (id int)", "INSERT INTO "+e.tbl(db, "t0")+" VALUES (1)")
		if e.isPG() {
			exec(t, own, "CREATE SCHEMA app", "CREATE TABLE app.t1 (id int)")
		}
		sel := mustPrivileges(t, e.engine, "SELECT")
		ids, err := e.s.CreateGrant(e.ctx, db, grantee, sel)
		if err != nil {
			t.Fatal(err)
		}
		if ids.Database == "" || ids.Principal == "" {
			t.Fatalf("identities not returned: %+v", ids)
		}
		e.mustReport(db, grantee, sel, true)
		e.mustCan(grantee, db, "SELECT * FROM "+e.tbl(db, "t0"))
		e.mustNot(grantee, db, "INSERT INTO "+e.tbl(db, "t0")+" VALUES (2)")
		exec(t, own, "CREATE TABLE "+e.tbl(db, "later")+" (id int)")
		e.mustCan(grantee, db, "SELECT * FROM "+e.tbl(db, "later"))
		if e.isPG() {
			exec(t, own, "CREATE TABLE app.later (id int)")
			e.mustCan(grantee, db, "SELECT * FROM app.t1", "SELECT * FROM app.later")
		}

		wide := mustPrivileges(t, e.engine, "SELECT", "INSERT")
		if err := e.s.UpdateGrant(e.ctx, db, grantee, wide, ids); err != nil {
			t.Fatal(err)
		}
		e.mustCan(grantee, db, "INSERT INTO "+e.tbl(db, "t0")+" VALUES (2)", "INSERT INTO "+e.tbl(db, "later")+" VALUES (2)")
		e.mustReport(db, grantee, wide, true)
		if err := e.s.UpdateGrant(e.ctx, db, grantee, sel, ids); err != nil {
			t.Fatal(err)
		}
		e.mustNot(grantee, db, "INSERT INTO "+e.tbl(db, "t0")+" VALUES (3)")
		e.mustCan(grantee, db, "SELECT * FROM "+e.tbl(db, "t0"))
		e.mustReport(db, grantee, sel, true)

		if e.isPG() {
			// A schema the owner creates after the grant: drift, then covered.
			exec(t, own, "CREATE SCHEMA late", "CREATE TABLE late.t (id int)")
			e.mustNot(grantee, db, "SELECT * FROM late.t")
			e.mustReport(db, grantee, sel, false)
			if err := e.s.UpdateGrant(e.ctx, db, grantee, sel, ids); err != nil {
				t.Fatal(err)
			}
			e.mustReport(db, grantee, sel, true)
			exec(t, own, "CREATE TABLE late.t2 (id int)")
			e.mustCan(grantee, db, "SELECT * FROM late.t", "SELECT * FROM late.t2")
		}

		out, err := e.s.RevokeGrant(e.ctx, db, grantee, ids)
		if err != nil || out.Outcome != Dropped {
			t.Fatalf("RevokeGrant: %+v, %v", out, err)
		}
		if left := e.grantResidue(db, grantee); len(left) != 0 {
			t.Errorf("after revoke the grantee still holds %v", left)
		}
		e.mustLoginFailOrDenied(grantee.String(), granteePW, db.String())
		e.mustOpenAs(grantee.String(), granteePW, "")
		// Revoking again converges.
		if out, err := e.s.RevokeGrant(e.ctx, db, grantee, ids); err != nil || out.Outcome != Dropped {
			t.Errorf("RevokeGrant again: %+v, %v", out, err)
		}
	})
}

// TestGrantUserMissing: no statement runs and no account comes into
// existence; the same call succeeds once the principal exists.
func TestGrantUserMissing(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, _ := e.newTenant("gm", "Owner-pw-7")
		ghost := e.newUser("ghost")
		s, log := e.loggedServer()
		mark := log.mark()
		_, err := s.CreateGrant(e.ctx, db, ghost, mustPrivileges(t, e.engine, "SELECT"))
		wantReason(t, err, ddl.GrantUserMissing)
		if ran := log.since(mark); len(ran) != 0 {
			t.Errorf("statements ran before GrantUserMissing:\n%s", strings.Join(statements(ran), "\n"))
		}
		if e.loginExists(ghost) {
			t.Fatal("the grant brought the principal into existence")
		}
		if e.isPG() {
			e.super(fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD '%s'`, ghost, granteePW))
		} else {
			e.super(fmt.Sprintf(`CREATE USER '%s'@'%%' IDENTIFIED BY '%s'`, ghost, granteePW))
		}
		if _, err := s.CreateGrant(e.ctx, db, ghost, mustPrivileges(t, e.engine, "SELECT")); err != nil {
			t.Fatalf("once the principal exists: %v", err)
		}
		if ran := log.since(mark); len(ran) == 0 {
			t.Fatal("the statement log saw nothing: the check above proves nothing")
		}
	})
}

// TestGrantStatementNeverCreatesAccount: the race the existence check
// cannot close (the principal dropped right after it): the rendered grant
// itself fails and creates nothing. MariaDB's GRANT would otherwise create
// a passwordless account, since the admin holds CREATE USER.
func TestGrantStatementNeverCreatesAccount(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("gr", "Owner-pw-7")
		ghost := e.newUser("race")
		diff := ddl.GrantHeld{}.Diff(e.s.Info(), mustPrivileges(t, e.engine, "SELECT"))
		scope := ddl.PostgresGrantScope{Schemas: []ddl.SchemaName{must(ddl.NewCatalogSchemaName("public"))}}
		err := e.s.sess.Exec(e.ctx, ddl.SyncGrant(e.s.dialect(), db, ghost, owner, scope, diff))
		if err == nil {
			t.Fatal("a grant to a missing principal succeeded")
		}
		if !codesPrincipalMissing[session.CodeOf(err)] {
			t.Errorf("error %v (%s), want one of %v", err, session.CodeOf(err), codesPrincipalMissing)
		}
		if e.loginExists(ghost) {
			t.Fatalf("the GRANT created the account %s", ghost)
		}
		if !e.isPG() {
			if row := e.mysqlDBRow(db, ghost); len(row) != 0 {
				t.Errorf("a grant row was left for the missing account: %v", keys(row))
			}
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestGrantOptionIsRevoked: an out-of-band WITH GRANT OPTION shows as
// drift and is revoked, the privileges themselves kept. On PostgreSQL it
// was invisible (is_grantable ignored) and the sync dropped its revoke;
// both the Dialect path (privileges + SyncPrivileges) and the tenant-grant
// path are checked, on the database, a table and default privileges.
func TestGrantOptionIsRevoked(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("go", "Owner-pw-7")
		grantee := e.plainLogin("gog", granteePW)
		exec(t, e.mustOpenAs(owner.String(), "Owner-pw-7", db.String()), "CREATE TABLE "+e.tbl(db, "t0")+" (id int)")
		sel := mustPrivileges(t, e.engine, "SELECT")
		ids, err := e.s.CreateGrant(e.ctx, db, grantee, sel)
		if err != nil {
			t.Fatal(err)
		}
		before := e.grantResidue(db, grantee)
		grantOption := func() {
			if e.isPG() {
				exec(t, e.superIn(db),
					fmt.Sprintf(`GRANT SELECT ON t0 TO %q WITH GRANT OPTION`, grantee),
					fmt.Sprintf(`GRANT CONNECT ON DATABASE %q TO %q WITH GRANT OPTION`, db, grantee),
					fmt.Sprintf(`ALTER DEFAULT PRIVILEGES FOR ROLE %q IN SCHEMA public GRANT SELECT ON TABLES TO %q WITH GRANT OPTION`, owner, grantee))
			} else {
				e.super(fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%' WITH GRANT OPTION", ddl.MySQLGrantPattern(e.s.Info(), db), grantee))
			}
		}
		grantable := func() int {
			if !e.isPG() {
				if e.mysqlDBRow(db, grantee)["Grant_priv"] {
					return 1
				}
				return 0
			}
			var n int
			if err := e.superIn(db).QueryRowContext(e.ctx, `
WITH g AS (SELECT oid FROM pg_roles WHERE rolname = $1)
SELECT (SELECT count(*) FROM pg_database d, aclexplode(d.datacl) a, g WHERE a.grantee = g.oid AND a.is_grantable)
     + (SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a, g WHERE a.grantee = g.oid AND a.is_grantable)
     + (SELECT count(*) FROM pg_default_acl x, aclexplode(x.defaclacl) a, g WHERE a.grantee = g.oid AND a.is_grantable)`,
				grantee.String()).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}

		// The tenant-grant path.
		grantOption()
		if grantable() == 0 {
			t.Fatal("the out-of-band grant option did not land")
		}
		e.mustReport(db, grantee, sel, false)
		if err := e.s.UpdateGrant(e.ctx, db, grantee, sel, ids); err != nil {
			t.Fatal(err)
		}
		if n := grantable(); n != 0 {
			t.Errorf("tenant grant: %d grantable entries left", n)
		}
		e.mustReport(db, grantee, sel, true)
		if after := e.grantResidue(db, grantee); !slices.Equal(before, after) {
			t.Errorf("the privileges changed with the grant option: %v -> %v", before, after)
		}

		// The Dialect path: privileges reports it, SyncPrivileges revokes it.
		grantOption()
		got, err := e.s.proof.Privileges(e.ctx, db, grantee)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, ddl.GrantOption) {
			t.Fatalf("Privileges = %v: the out-of-band WITH GRANT OPTION is invisible", privNames(got))
		}
		if err := e.s.SyncPrivileges(e.ctx, db, grantee, sel); err != nil {
			t.Fatal(err)
		}
		if n := grantable(); n != 0 {
			t.Errorf("SyncPrivileges: %d grantable entries left", n)
		}
		if got, err := e.s.proof.Privileges(e.ctx, db, grantee); err != nil || !sel.Equal(e.s.Info(), got) {
			t.Errorf("after SyncPrivileges: %v, %v", privNames(got), err)
		}
	})
}

// recreatePrincipal drops and re-creates a principal out of band, as
// someone else would. PostgreSQL drops no role that holds privileges, so
// they go first (DROP OWNED in the one database it has any). MariaDB's login
// identity is the second its password was last set: it is re-created until
// that differs.
func (e *env) recreatePrincipal(db ddl.DatabaseName, u ddl.Username) {
	e.t.Helper()
	if e.isPG() {
		exec(e.t, e.superIn(db), fmt.Sprintf(`DROP OWNED BY %q`, u))
		e.super(fmt.Sprintf(`DROP ROLE %q`, u), fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD '%s'`, u, granteePW))
		return
	}
	changed := `SELECT JSON_VALUE(Priv, '$.password_last_changed') FROM mysql.global_priv WHERE User = ? AND Host = '%'`
	if e.ts.Flavor == "mysql" { // no mysql.global_priv
		changed = `SELECT CAST(password_last_changed AS CHAR) FROM mysql.user WHERE User = ? AND Host = '%'`
	}
	old := superScalar[string](e, changed, u.String())
	for i := 0; ; i++ {
		e.super(fmt.Sprintf(`DROP USER '%s'@'%%'`, u), fmt.Sprintf(`CREATE USER '%s'@'%%' IDENTIFIED BY '%s'`, u, granteePW))
		now := superScalar[string](e, changed, u.String())
		if now != old {
			return
		}
		if i > 30 {
			e.t.Fatal("password_last_changed never moved")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestGrantIdentity: a principal or database dropped and re-created by
// someone else is never granted to: updates refuse (IdentityMismatch).
// Destroy revokes nothing from a principal proven another (NotOurs: its own
// grants are untouched); a MariaDB principal cannot be proven either way
// (Unproven), and destroy revokes on the tenant database, nothing else.
// A MySQL principal tenantdb did not create carries no mark (tenantdb never
// writes to it): like a MariaDB one it is Unproven (see loginIdentity).
func TestGrantIdentity(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, _ := e.newTenant("gi", "Owner-pw-7")
		grantee := e.plainLogin("gig", granteePW)
		sel := mustPrivileges(t, e.engine, "SELECT")
		ids, err := e.s.CreateGrant(e.ctx, db, grantee, sel)
		if err != nil {
			t.Fatal(err)
		}
		e.recreatePrincipal(db, grantee)
		// Someone grants the new principal something on the database.
		if e.isPG() {
			e.super(fmt.Sprintf(`GRANT CONNECT, TEMPORARY ON DATABASE %q TO %q`, db, grantee))
		} else {
			e.super(fmt.Sprintf("GRANT SELECT, DELETE ON `%s`.* TO '%s'@'%%'", ddl.MySQLGrantPattern(e.s.Info(), db), grantee))
		}
		foreign := e.grantResidue(db, grantee)
		s, log := e.loggedServer()
		mark := log.mark()
		err = s.UpdateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "INSERT"), ids)
		wantReason(t, err, ddl.IdentityMismatch)
		out, err := s.RevokeGrant(e.ctx, db, grantee, ids)
		switch e.ts.Kind() {
		case "mariadb", "mysql":
			// A MariaDB login's identity, and a MySQL principal's that
			// tenantdb did not create (it writes no mark there), is the time
			// its password was set, which a login may change itself: a
			// re-created one reads Unproven, and revoking is always safe
			// (DESIGN.md promise 7): destroy revokes on the tenant database
			// only what tenantdb granted (the ledger's SELECT), and runs
			// nothing else; the DELETE the DBA granted stays, named.
			if err != nil || out.Outcome == NotOurs {
				t.Fatalf("RevokeGrant of an unproven principal: %+v, %v (want revoked)", out, err)
			}
			onlyGrantsOn(t, db, withoutLedger(statements(log.since(mark))), "REVOKE ")
			if !slices.Equal(out.Own.Revoked, []ddl.Privilege{"SELECT"}) || !slices.Equal(out.Own.Left, []ddl.Privilege{"DELETE"}) {
				t.Fatalf("RevokeGrant revoked %v and left %v, want SELECT revoked and the DBA's DELETE left", out.Own.Revoked, out.Own.Left)
			}
		default:
			if err != nil || out.Outcome != NotOurs || !strings.Contains(out.Why, "Principal") {
				t.Fatalf("RevokeGrant of a re-created principal: %+v, %v", out, err)
			}
			if ran := log.since(mark); len(ran) != 0 {
				t.Errorf("statements ran on a foreign principal:\n%s", strings.Join(statements(ran), "\n"))
			}
			if after := e.grantResidue(db, grantee); !slices.Equal(foreign, after) {
				t.Errorf("the re-created principal's grants changed: %v -> %v", foreign, after)
			}
		}

		// A re-created database (the principal recorded again first).
		st, err := e.s.ReadGrant(e.ctx, db, grantee)
		if err != nil {
			t.Fatal(err)
		}
		ids.Principal = st.Identity.Principal
		if !e.isPG() {
			// The grant declared again on the principal: tenantdb grants
			// SELECT (recorded) and takes the DBA's DELETE it does not
			// declare, a change this grant's apply shows in its plan.
			if err := e.s.UpdateGrant(e.ctx, db, grantee, sel, ids); err != nil {
				t.Fatal(err)
			}
		}
		drop := "DROP DATABASE " + e.quote(db.String())
		if e.isPG() {
			drop += " WITH (FORCE)"
		}
		e.super(drop, "CREATE DATABASE "+e.quote(db.String()))
		mark = log.mark()
		err = s.UpdateGrant(e.ctx, db, grantee, sel, ids)
		wantReason(t, err, ddl.IdentityMismatch)
		out, err = s.RevokeGrant(e.ctx, db, grantee, ids)
		if e.isPG() {
			if err != nil || out.Outcome != NotOurs || !strings.Contains(out.Why, "Database") {
				t.Fatalf("RevokeGrant on a re-created database: %+v, %v", out, err)
			}
			if ran := log.since(mark); len(ran) != 0 {
				t.Errorf("statements ran on a foreign database:\n%s", strings.Join(statements(ran), "\n"))
			}
			return
		}
		// MySQL/MariaDB: the grant's rows outlived the drop and the new
		// database inherited them; they are this grant's, so destroy
		// revokes them (and runs nothing else).
		if err != nil || out.Outcome == NotOurs {
			t.Fatalf("RevokeGrant on a re-created database: %+v, %v (want its inherited rows revoked)", out, err)
		}
		for _, st := range withoutLedger(statements(log.since(mark))) {
			if !strings.HasPrefix(st, "REVOKE ") {
				t.Errorf("a statement other than REVOKE ran on a re-created database: %s", st)
			}
		}
		if left := e.grantResidue(db, grantee); len(left) != 0 {
			t.Errorf("rows left on the re-created database after the revoke: %v", left)
		}
	})
}

// TestConcurrentGrantsOnePrincipal: one principal granted on several
// databases at once (Terraform's parallel apply): every grant lands, none
// surfaces "tuple concurrently updated", and each stays independent.
func TestConcurrentGrantsOnePrincipal(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const n = 6
		grantee := e.plainLogin("gcg", granteePW)
		dbs := make([]ddl.DatabaseName, n)
		for i := range dbs {
			dbs[i], _ = e.newTenant(fmt.Sprintf("gc%d_", i), "Owner-pw-7")
		}
		ctx, cancel := context.WithTimeout(e.ctx, 3*time.Minute)
		defer cancel()
		ids := make([]GrantIdentity, n)
		run := func(what string, fn func(i int) error) {
			t.Helper()
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range dbs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = fn(i)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("%s on %s: %v", what, dbs[i], err)
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("%s did not finish", what)
			}
		}
		run("grant", func(i int) (err error) {
			ids[i], err = e.s.CreateGrant(ctx, dbs[i], grantee, mustPrivileges(t, e.engine, "SELECT", "INSERT"))
			return err
		})
		// Narrow the even ones, revoke the odd ones, at once.
		run("narrow or revoke", func(i int) error {
			if i%2 == 0 {
				return e.s.UpdateGrant(ctx, dbs[i], grantee, mustPrivileges(t, e.engine, "SELECT"), ids[i])
			}
			_, err := e.s.RevokeGrant(ctx, dbs[i], grantee, ids[i])
			return err
		})
		for i, db := range dbs {
			held := e.grantResidue(db, grantee)
			if i%2 == 1 && len(held) != 0 {
				t.Errorf("%s: revoked, yet %v", db, held)
			}
			if i%2 == 0 {
				e.mustReport(db, grantee, mustPrivileges(t, e.engine, "SELECT"), true)
			}
		}
	})
}

// TestGrantSurvivesOwnerRotation: after a username rotation of the tenant
// owner, a table the new owner creates is readable by the grantee, and the
// grant reads back unchanged (no drift).
func TestGrantSurvivesOwnerRotation(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("gor", "Owner-pw-7")
		grantee := e.plainLogin("gorg", granteePW)
		exec(t, e.mustOpenAs(owner.String(), "Owner-pw-7", db.String()), "CREATE TABLE "+e.tbl(db, "before")+" (id int)")
		sel := mustPrivileges(t, e.engine, "SELECT")
		if _, err := e.s.CreateGrant(e.ctx, db, grantee, sel); err != nil {
			t.Fatal(err)
		}
		oldID, _, err := e.s.proof.LoginIdentity(e.ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		newOwner := e.newUser("gorn")
		if _, dropErr, err := e.s.RotateOwner(e.ctx, db, owner, newOwner, mustPassword(t, "Owner-pw-8"),
			mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{},
			oldID, true); err != nil || dropErr != nil {
			t.Fatalf("RotateOwner: %v, %v", err, dropErr)
		}
		exec(t, e.mustOpenAs(newOwner.String(), "Owner-pw-8", db.String()), "CREATE TABLE "+e.tbl(db, "after")+" (id int)")
		e.mustCan(grantee, db, "SELECT * FROM "+e.tbl(db, "before"), "SELECT * FROM "+e.tbl(db, "after"))
		e.mustNot(grantee, db, "INSERT INTO "+e.tbl(db, "after")+" VALUES (1)")
		e.mustReport(db, grantee, sel, true)
	})
}

// onlyGrantsOn fails unless every statement ran starts with one of kinds
// and names db; ran must not be empty (a search of nothing proves nothing).
func onlyGrantsOn(t *testing.T, db ddl.DatabaseName, ran []string, kinds ...string) {
	t.Helper()
	if len(ran) == 0 {
		t.Fatalf("no statement ran, want %v on %s", kinds, db)
	}
	for _, st := range ran {
		ok := false
		for _, k := range kinds {
			ok = ok || strings.HasPrefix(st, k)
		}
		if !ok || !strings.Contains(st, "`"+db.String()+"`") && !strings.Contains(st, "`"+strings.ReplaceAll(db.String(), "_", `\_`)+"`") {
			t.Errorf("statement %q: want only %v on %s", st, kinds, db)
		}
	}
}

// withoutLedger drops the ledger's own statements (the record of what
// tenantdb granted, ledger_grants.go) from a statement list.
func withoutLedger(stmts []string) []string {
	var out []string
	for _, st := range stmts {
		if !strings.Contains(st, "`"+ddl.LedgerDatabase+"`") {
			out = append(out, st)
		}
	}
	return out
}
