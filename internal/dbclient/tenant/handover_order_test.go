// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"

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
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only: REASSIGN OWNED is PostgreSQL's")
	}
	e := newEnv(t, "postgres")
	db, owner, id := e.claimTenant("hor", "Handover-1")
	exec(t, e.mustOpenAs(owner.String(), "Handover-1", db.String()),
		"CREATE SCHEMA app", "CREATE TABLE app.t (v int)",
		"CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION app.g() RETURNS int LANGUAGE sql AS 'SELECT 2'")
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
	ownersAre := func(when, want string) {
		t.Helper()
		var got []string
		rows, err := e.superIn(db).QueryContext(e.ctx, `
SELECT 'database ' || pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()
UNION ALL SELECT 'schema app ' || pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'app'
UNION ALL SELECT 'table app.t ' || pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'app.t'::regclass
UNION ALL SELECT 'function ' || proname || ' ' || pg_get_userbyid(proowner) FROM pg_proc WHERE proname IN ('f', 'g') AND pronamespace <> 'pg_catalog'::regnamespace
ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		if len(got) != 5 {
			t.Fatalf("%s: read %d objects, want 5: %v", when, len(got), got)
		}
		for _, g := range got {
			if !strings.HasSuffix(g, " "+want) {
				t.Errorf("%s: %s, want owned by %s", when, g, want)
			}
		}
	}

	// A rotation: the old login's schema row after its routines.
	rowsAfterRoutines(owner.String())
	rotated := e.newUser("horn")
	newID, dropErr, err := e.s.RotateOwner(e.ctx, db, owner, rotated, mustPassword(t, "Handover-2"),
		mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ConnectionLimit{}, id, true)
	if err != nil || dropErr != nil {
		t.Fatalf("RotateOwner with the schema's row after its routines: %v, %v", err, dropErr)
	}
	ownersAre("after the rotation", rotated.String())

	// The offboarding: database and schema rows after the routines'.
	rowsAfterRoutines(rotated.String())
	if _, err := e.s.DropOwner(e.ctx, db, rotated, newID, nil); err != nil {
		t.Fatalf("DropOwner with the database's and the schema's rows after the routines': %v", err)
	}
	keeper := ddl.KeeperName(db).String()
	ownersAre("after the offboarding", keeper)

	// The re-onboarding: the keeper's schema row after its routines.
	rowsAfterRoutines(keeper)
	next := e.newUser("hore")
	if _, err := e.s.ClaimOwner(e.ctx, db, next, mustPassword(t, "Handover-3"), mustPrivileges(t, e.engine, "ALL PRIVILEGES"),
		ddl.ConnectionLimit{}); err != nil {
		t.Fatalf("ClaimOwner of the retained database with the schema's row after its routines: %v", err)
	}
	ownersAre("after the re-onboarding", next.String())
}
