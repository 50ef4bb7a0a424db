// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestHandover_orderOfCatalogRows (PostgreSQL): REASSIGN OWNED moves what a
// role owns in the order of pg_shdepend's rows, and a routine can move only
// when its receiver may CREATE in the routine's schema: in public once it
// owns the database (pg_database_owner), in the tenant's own schema once it
// owns that schema. When the catalog rows of the database and of a schema
// come after the routines' (a superuser re-asserting an owner, a rotation,
// or only where freed catalog space put them), a bare REASSIGN OWNED fails
// with "permission denied for schema", every time: here the rows are
// moved after the routines' on purpose (ALTER … OWNER TO someone and back).
// Each handover must still finish, and leave everything to its receiver:
// the offboarding's (to the keeper), the re-onboarding's (the keeper's to
// the new owner) and a rotation's (the old login's to the new).
func TestHandover_orderOfCatalogRows(t *testing.T) {
	e, db, owner, id := handoverTenant(t, "hor")
	// rowsAfterRoutines rewrites the owner rows of db and schema app so that
	// they come after the routines' rows.
	rowsAfterRoutines := func(holder string) {
		t.Helper()
		exec(t, e.superIn(db),
			`ALTER DATABASE `+e.quote(db.String())+` OWNER TO CURRENT_USER`,
			`ALTER DATABASE `+e.quote(db.String())+` OWNER TO `+e.quote(holder),
			`ALTER SCHEMA app OWNER TO CURRENT_USER`,
			`ALTER SCHEMA app OWNER TO `+e.quote(holder))
	}
	e.handOverThreeWays(db, owner, id, rowsAfterRoutines, func(when, receiver string) { e.handoverOwnersAre(db, when, receiver) })
}

// handOverThreeWays runs every PostgreSQL handover on db in turn: a
// rotation of owner to a new login, that login's offboarding (to the
// keeper) and a new owner's onboarding (from the keeper). before runs
// ahead of each with the role that holds everything then, check after
// each with the step's name and the receiver.
func (e *env) handOverThreeWays(db ddl.DatabaseName, owner ddl.Username, id proof.Identity,
	before func(holder string), check func(when, receiver string)) {
	t := e.t
	t.Helper()
	before(owner.String())
	rotated := e.newUser("hrot")
	newID, dropErr, err := e.s.RotateOwner(e.ctx, db, owner, rotated, mustPassword(t, "Handover-2"),
		mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{}, id, true)
	if err != nil || dropErr != nil {
		t.Fatalf("RotateOwner: %v, %v", err, dropErr)
	}
	check("after the rotation", rotated.String())

	before(rotated.String())
	if _, err := e.s.DropOwner(e.ctx, db, rotated, newID, nil); err != nil {
		t.Fatalf("DropOwner (the offboarding): %v", err)
	}
	keeper := ddl.KeeperName(db).String()
	check("after the offboarding", keeper)

	before(keeper)
	next := e.newUser("hnext")
	if _, err := e.s.ClaimOwner(e.ctx, db, next, mustPassword(t, "Handover-3"), mustPrivileges(t, e.engine, "ALL PRIVILEGES"),
		ddl.ConnectionLimit{}); err != nil {
		t.Fatalf("ClaimOwner of the retained database (the re-onboarding): %v", err)
	}
	check("after the re-onboarding", next.String())
}

// handoverTenant claims a PostgreSQL tenant (skipping the test where
// PostgreSQL does not run) whose owner makes schema app with table t and
// functions public.f and app.g, then runs more ({db}: the database's name).
func handoverTenant(t *testing.T, prefix string, more ...string) (*env, ddl.DatabaseName, ddl.Username, proof.Identity) {
	t.Helper()
	e := pgEnv(t)
	db, owner, id := e.claimTenant(prefix, "Handover-1")
	stmts := []string{"CREATE SCHEMA app", "CREATE TABLE app.t (v int)",
		"CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION app.g() RETURNS int LANGUAGE sql AS 'SELECT 2'"}
	for _, m := range more {
		stmts = append(stmts, strings.ReplaceAll(m, "{db}", db.String()))
	}
	exec(t, e.mustOpenAs(owner.String(), "Handover-1", db.String()), stmts...)
	return e, db, owner, id
}

// handoverOwnersAre fails unless the database, schema app, table app.t
// and the functions f and g in db are all owned by want (read as the
// superuser).
func (e *env) handoverOwnersAre(db ddl.DatabaseName, when, want string) {
	e.t.Helper()
	var got []string
	rows, err := e.superIn(db).QueryContext(e.ctx, `
SELECT 'database ' || pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()
UNION ALL SELECT 'schema app ' || pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'app'
UNION ALL SELECT 'table app.t ' || pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'app.t'::regclass
UNION ALL SELECT 'function ' || proname || ' ' || pg_get_userbyid(proowner) FROM pg_proc
  WHERE proname IN ('f', 'g') AND pronamespace <> 'pg_catalog'::regnamespace
ORDER BY 1`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			e.t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 5 {
		e.t.Fatalf("%s: read %d objects, want 5: %v", when, len(got), got)
	}
	for _, g := range got {
		if !strings.HasSuffix(g, " "+want) {
			e.t.Errorf("%s: %s, want owned by %s", when, g, want)
		}
	}
}

// TestHandover_ownerWithheldItsCreate (PostgreSQL): a tenant owner may
// revoke its own privileges on its database (REVOKE CREATE ON DATABASE …
// FROM itself), and ALTER SCHEMA … OWNER TO (REASSIGN OWNED's too) needs
// the admin to hold CREATE on the database, which it has only through the
// owner, as a publication's move needs its receiver to: the tenant's
// schema or publication would stop its own offboarding ("permission denied
// for database"), every time. The receiver is lent CREATE for the
// schemas' moves and it is revoked in the same transaction, so every
// handover finishes and the database's ACL ends as the tenant left it: no
// one holds CREATE on it.
func TestHandover_ownerWithheldItsCreate(t *testing.T) {
	e, db, owner, id := handoverTenant(t, "hwc", "CREATE PUBLICATION tenant_pub FOR TABLE app.t",
		`REVOKE CREATE ON DATABASE "{db}" FROM CURRENT_USER`)
	nobodyCreates := func(when string) {
		t.Helper()
		var n int
		if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT count(*) FROM pg_database d, aclexplode(d.datacl) x
WHERE d.datname = current_database() AND x.privilege_type = 'CREATE'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d ACL entries give CREATE on the database; the tenant had revoked its own, want none", when, n)
		}
	}
	publicationOwnerIs := func(when, want string) {
		t.Helper()
		var got string
		if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(pubowner) FROM pg_publication WHERE pubname = 'tenant_pub'`).
			Scan(&got); err != nil || got != want {
			t.Errorf("%s: publication tenant_pub owned by %q (%v), want %q", when, got, err, want)
		}
	}
	nobodyCreates("before")
	e.handOverThreeWays(db, owner, id, func(string) {}, func(when, receiver string) {
		e.handoverOwnersAre(db, when, receiver)
		nobodyCreates(when)
		publicationOwnerIs(when, receiver)
	})
}

// TestHandover_publicationWithCreateWithheld (PostgreSQL): with no schema
// of its own, a tenant's publication alone needs CREATE on the database
// lent (its receiver must hold it) once the tenant revoked its own.
func TestHandover_publicationWithCreateWithheld(t *testing.T) {
	e := pgEnv(t)
	db, owner, id := e.claimTenant("hpc", "Handover-1")
	exec(t, e.mustOpenAs(owner.String(), "Handover-1", db.String()), "CREATE TABLE t (v int)",
		"CREATE PUBLICATION tenant_pub FOR TABLE t", `REVOKE CREATE ON DATABASE "`+db.String()+`" FROM CURRENT_USER`)
	if _, err := e.s.DropOwner(e.ctx, db, owner, id, nil); err != nil {
		t.Fatalf("DropOwner of a tenant with a publication, its CREATE revoked: %v", err)
	}
	var pubOwner string
	var creators int
	if err := e.superIn(db).QueryRowContext(e.ctx, `SELECT pg_get_userbyid(pubowner),
  (SELECT count(*) FROM pg_database d, aclexplode(d.datacl) x WHERE d.datname = current_database() AND x.privilege_type = 'CREATE')
FROM pg_publication WHERE pubname = 'tenant_pub'`).Scan(&pubOwner, &creators); err != nil {
		t.Fatal(err)
	}
	if keeper := ddl.KeeperName(db).String(); pubOwner != keeper || creators != 0 {
		t.Errorf("publication owned by %q, %d ACL entries give CREATE; want the keeper %q and none (the lend revoked)", pubOwner, creators, keeper)
	}
}
