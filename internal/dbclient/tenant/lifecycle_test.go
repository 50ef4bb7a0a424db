// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// dbState reads a database's character set/collation (PostgreSQL: encoding,
// LC_COLLATE and owner) as the superuser; found=false when it is gone.
func (e *env) dbState(db ddl.DatabaseName) (cs, co, owner string, found bool) {
	e.t.Helper()
	var err error
	if e.isPG() {
		err = e.superDB().QueryRowContext(e.ctx,
			`SELECT pg_encoding_to_char(encoding), datcollate, pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1`,
			db.String()).Scan(&cs, &co, &owner)
	} else {
		err = e.superDB().QueryRowContext(e.ctx,
			`SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`,
			db.String()).Scan(&cs, &co)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", "", false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return cs, co, owner, true
}

// publicRights reports PUBLIC's CONNECT and TEMPORARY on a PostgreSQL
// database, from has_database_privilege and from the raw ACL.
func (e *env) publicRights(db ddl.DatabaseName) (connect, temporary bool, aclEntries int) {
	e.t.Helper()
	if err := e.superDB().QueryRowContext(e.ctx, `
SELECT has_database_privilege('public', $1, 'CONNECT'),
       has_database_privilege('public', $1, 'TEMPORARY'),
       (SELECT count(*) FROM pg_database d, aclexplode(COALESCE(d.datacl, acldefault('d', d.datdba))) a
        WHERE d.datname = $1 AND a.grantee = 0)`, db.String()).Scan(&connect, &temporary, &aclEntries); err != nil {
		e.t.Fatal(err)
	}
	return connect, temporary, aclEntries
}

// TestDatabaseLifecycle: create with an explicit and with the default
// character set/collation (encoding/locale), alter (MariaDB), drop.
func TestDatabaseLifecycle(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		explicit, defaults := e.newDB("life"), e.newDB("life")
		var cs, co string
		if e.isPG() {
			cs, co = "LATIN1", "C"
		} else {
			cs, co = "latin1", "latin1_swedish_ci"
		}
		if err := e.s.CreateDatabase(e.ctx, explicit, mustCharset(t, cs), mustCollation(t, co)); err != nil {
			t.Fatal(err)
		}
		if err := e.s.CreateDatabase(e.ctx, defaults, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			db     ddl.DatabaseName
			cs, co string
		}{
			{explicit, cs, co},
			{defaults, ddl.DefaultCharset(e.engine).String(), ddl.DefaultCollation(e.engine).String()},
		} {
			gotCS, gotCO, owner, found := e.dbState(c.db)
			if !found || gotCS != c.cs || gotCO != c.co {
				t.Errorf("%s: server has (%q, %q, found %v), want (%q, %q)", c.db, gotCS, gotCO, found, c.cs, c.co)
			}
			// dbclient's read-back agrees with the superuser's.
			st, err := e.s.proof.Database(e.ctx, c.db)
			if err != nil || st == nil || st.Charset != gotCS || st.Collation != gotCO || st.Owner != owner {
				t.Errorf("%s: Database() = %+v, %v; superuser sees (%q, %q, %q)", c.db, st, err, gotCS, gotCO, owner)
			}
			if e.isPG() {
				if owner != e.ts.Admin.Username {
					t.Errorf("%s: owner %q, want the admin", c.db, owner)
				}
				connect, temp, entries := e.publicRights(c.db)
				if connect || temp || entries != 0 {
					t.Errorf("%s: PUBLIC has CONNECT=%v TEMPORARY=%v (%d ACL entries), want none", c.db, connect, temp, entries)
				}
			}
		}

		// Alter: MariaDB changes in place; PostgreSQL refuses before any SQL.
		err := e.s.AlterDatabase(e.ctx, explicit, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		if e.isPG() {
			wantReason(t, err, ddl.ImmutableAttribute)
			if gotCS, gotCO, _, _ := e.dbState(explicit); gotCS != cs || gotCO != co {
				t.Errorf("refused alter changed the database: (%q, %q)", gotCS, gotCO)
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			if gotCS, gotCO, _, _ := e.dbState(explicit); gotCS != "utf8mb4" || gotCO != "utf8mb4_unicode_ci" {
				t.Errorf("after alter: (%q, %q), want (utf8mb4, utf8mb4_unicode_ci)", gotCS, gotCO)
			}
		}

		for _, db := range []ddl.DatabaseName{explicit, defaults} {
			if err := e.s.DropDatabase(e.ctx, db); err != nil {
				t.Fatal(err)
			}
			if _, _, _, found := e.dbState(db); found {
				t.Errorf("%s still exists after DropDatabase", db)
			}
			if st, err := e.s.proof.Database(e.ctx, db); st != nil || err != nil {
				t.Errorf("Database(%s) after drop = %+v, %v; want nil, nil", db, st, err)
			}
		}
		// Dropping again converges (IF EXISTS): no error, still gone.
		if err := e.s.DropDatabase(e.ctx, explicit); err != nil {
			t.Errorf("second drop: %v", err)
		}
		if _, _, _, found := e.dbState(explicit); found {
			t.Errorf("%s exists after the second drop", explicit)
		}
	})
}

// newTenant creates a database and its owner through dbclient.
func (e *env) newTenant(prefix, pw string) (ddl.DatabaseName, ddl.Username) {
	e.t.Helper()
	db, owner := e.newDB(prefix), e.newUser(prefix+"o")
	if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		e.t.Fatalf("CreateDatabase %s: %v", db, err)
	}
	if err := e.s.CreateLogin(e.ctx, db, owner, mustPassword(e.t, pw), mustPrivileges(e.t, e.engine, "ALL PRIVILEGES")); err != nil {
		e.t.Fatalf("CreateLogin %s: %v", owner, err)
	}
	return db, owner
}

// tableOwner is the owner of public.<table> in a PostgreSQL database.
func (e *env) tableOwner(db ddl.DatabaseName, table string) string {
	e.t.Helper()
	var owner string
	if err := e.superIn(db).QueryRowContext(e.ctx,
		`SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = $1`, table).Scan(&owner); err != nil {
		e.t.Fatalf("owner of %s.%s: %v", db, table, err)
	}
	return owner
}

// rowCount counts a tenant table's rows as the superuser.
func (e *env) rowCount(db ddl.DatabaseName, table string) int {
	e.t.Helper()
	var n int
	var err error
	if e.isPG() {
		err = e.superIn(db).QueryRowContext(e.ctx, fmt.Sprintf(`SELECT count(*) FROM public.%s`, table)).Scan(&n)
	} else {
		err = e.superDB().QueryRowContext(e.ctx, fmt.Sprintf("SELECT count(*) FROM `%s`.%s", db, table)).Scan(&n)
	}
	if err != nil {
		e.t.Fatalf("count %s.%s: %v", db, table, err)
	}
	return n
}

// loginExists asks the superuser whether a login exists.
func (e *env) loginExists(u ddl.Username) bool {
	e.t.Helper()
	q := `SELECT count(*) FROM mysql.user WHERE User = ? AND Host = '%'`
	if e.isPG() {
		q = `SELECT count(*) FROM pg_roles WHERE rolname = $1`
	}
	return superScalar[int](e, q, u.String()) > 0
}

// TestOwnerLogin: the owner logs in over TLS with its password, creates a
// table in its database, and cannot reach another tenant's database.
func TestOwnerLogin(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const pw = "Owner-pw-1"
		db, owner := e.newTenant("own", pw)
		other, _ := e.newTenant("oth", "Other-pw-1")

		if !e.loginExists(owner) {
			t.Fatal("owner login does not exist on the server")
		}
		if ok, err := e.s.LoginExists(e.ctx, owner); !ok || err != nil {
			t.Errorf("LoginExists = %v, %v", ok, err)
		}
		if e.isPG() {
			if _, _, dbOwner, _ := e.dbState(db); dbOwner != owner.String() {
				t.Errorf("database owner %q, want %q", dbOwner, owner)
			}
		} else {
			// The owner's grant is the mysql.db row for the escaped name,
			// every privilege and no GRANT OPTION.
			got := e.mysqlDBRow(db, owner)
			if len(got) != len(ddl.MySQLDBColumns(e.s.Info())) || got["Grant_priv"] {
				t.Errorf("owner's mysql.db row: %v", got)
			}
			if privs, err := e.s.proof.Privileges(e.ctx, db, owner); err != nil || !mustPrivileges(t, e.engine, "ALL PRIVILEGES").Equal(e.s.Info(), privs) {
				t.Errorf("Privileges(owner) = %v, %v; want ALL", privNames(privs), err)
			}
		}

		conn := e.mustOpenAs(owner.String(), pw, db.String())
		e.assertEncrypted(conn)
		exec(t, conn, "CREATE TABLE owned (id int PRIMARY KEY)", "INSERT INTO owned VALUES (1)")
		if n := e.rowCount(db, "owned"); n != 1 {
			t.Errorf("rows = %d", n)
		}
		if e.isPG() {
			if o := e.tableOwner(db, "owned"); o != owner.String() {
				t.Errorf("table owner %q, want %q", o, owner)
			}
		}

		// Another tenant's database is out of reach.
		_, err := e.openAs(owner.String(), pw, other.String())
		if err == nil {
			t.Fatalf("owner of %s connected to %s", db, other)
		}
		if c := session.CodeOf(err); c != "mysql:1044" && c != "pg:42501" {
			t.Errorf("connect to another tenant: %v (code %q), want access denied", err, c)
		}
	})
}

// TestSetPassword: after a password change the old one fails and the new
// one works.
func TestSetPassword(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("pwd", "Old-pw-1")
		d := e.s.dialect()
		if err := e.s.Exec(e.ctx, d.SetPassword(owner, mustPassword(t, "New-pw-2"), true)); err != nil {
			t.Fatal(err)
		}
		// Retained passwords exist only on MySQL 8.0.14+; the discard plan
		// is empty elsewhere and must run cleanly either way.
		if err := e.s.Exec(e.ctx, d.DiscardOldPassword(owner)); err != nil {
			t.Fatal(err)
		}
		e.mustLoginFail(owner.String(), "Old-pw-1", db.String())
		e.mustOpenAs(owner.String(), "New-pw-2", db.String())
	})
}

// TestRotateOwner: a username change is create-before-drop. The new login
// works (and on PostgreSQL owns what the old one made), tables survive, and
// the old login is gone after the drop plan.
func TestRotateOwner(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, old := e.newTenant("rot", "Old-owner-pw")
		newOwner := e.newUser("rotn")
		conn := e.mustOpenAs(old.String(), "Old-owner-pw", db.String())
		exec(t, conn, "CREATE TABLE made_by_old (id int PRIMARY KEY)", "INSERT INTO made_by_old VALUES (1), (2)")
		conn.Close()

		handover, drop := ddl.RotateOwner(e.s.dialect(), db, old, newOwner, mustPassword(t, "New-owner-pw"),
			mustPrivileges(t, e.engine, "ALL PRIVILEGES"), ddl.ClaimMark{}, true, ddl.DefaultACLs{}, ddl.OwnedContainers{})
		if err := e.s.Exec(e.ctx, handover); err != nil {
			t.Fatalf("handover: %v", err)
		}
		// Both logins exist between handover and drop.
		if !e.loginExists(old) || !e.loginExists(newOwner) {
			t.Fatalf("after handover: old exists %v, new exists %v", e.loginExists(old), e.loginExists(newOwner))
		}
		if e.isPG() {
			if o := e.tableOwner(db, "made_by_old"); o != newOwner.String() {
				t.Errorf("after handover made_by_old is owned by %q, want %q", o, newOwner)
			}
			if _, _, o, _ := e.dbState(db); o != newOwner.String() {
				t.Errorf("after handover the database is owned by %q, want %q", o, newOwner)
			}
		}
		nc := e.mustOpenAs(newOwner.String(), "New-owner-pw", db.String())
		exec(t, nc, "INSERT INTO made_by_old VALUES (3)", "CREATE TABLE made_by_new (id int)")
		if e.isPG() {
			// Owning it, the new login may restructure it.
			exec(t, nc, "ALTER TABLE made_by_old ADD COLUMN note text")
		}

		if err := e.s.Exec(e.ctx, drop); err != nil {
			t.Fatalf("drop old: %v", err)
		}
		if e.loginExists(old) {
			t.Error("old login still exists after the drop plan")
		}
		if ok, err := e.s.LoginExists(e.ctx, old); ok || err != nil {
			t.Errorf("LoginExists(old) = %v, %v", ok, err)
		}
		e.mustLoginFail(old.String(), "Old-owner-pw", "")
		if n := e.rowCount(db, "made_by_old"); n != 3 {
			t.Errorf("made_by_old has %d rows after rotation, want 3", n)
		}
		if e.isPG() {
			for _, table := range []string{"made_by_old", "made_by_new"} {
				if o := e.tableOwner(db, table); o != newOwner.String() {
					t.Errorf("%s owned by %q after rotation, want %q", table, o, newOwner)
				}
			}
		}
		e.mustOpenAs(newOwner.String(), "New-owner-pw", db.String())
		// A retried drop converges: no error, the old login stays gone and
		// the new one and the data are untouched.
		if err := e.s.Exec(e.ctx, drop); err != nil {
			t.Errorf("drop plan run again: %v", err)
		}
		if e.loginExists(old) || !e.loginExists(newOwner) {
			t.Errorf("after the drop ran again: old exists %v, new exists %v", e.loginExists(old), e.loginExists(newOwner))
		}
		if n := e.rowCount(db, "made_by_old"); n != 3 {
			t.Errorf("made_by_old has %d rows after the drop ran again, want 3", n)
		}
		e.mustOpenAs(newOwner.String(), "New-owner-pw", db.String()).Close()
	})
}

// TestDropLogin: dropping the owner keeps its tables (PostgreSQL: they are
// reassigned to the admin first).
func TestDropLogin(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db, owner := e.newTenant("drl", "Drop-me-pw1")
		conn := e.mustOpenAs(owner.String(), "Drop-me-pw1", db.String())
		exec(t, conn, "CREATE TABLE keep_me (id int)", "INSERT INTO keep_me VALUES (7)")
		conn.Close()

		plan := e.s.dialect().DropLogin(db, owner)
		if err := e.s.Exec(e.ctx, plan); err != nil {
			t.Fatal(err)
		}
		if e.loginExists(owner) {
			t.Fatal("login still exists")
		}
		if n := e.rowCount(db, "keep_me"); n != 1 {
			t.Errorf("keep_me has %d rows, want 1", n)
		}
		if e.isPG() {
			if o := e.tableOwner(db, "keep_me"); o != e.ts.Admin.Username {
				t.Errorf("keep_me owned by %q, want the admin", o)
			}
			if _, _, o, _ := e.dbState(db); o != e.ts.Admin.Username {
				t.Errorf("database owned by %q, want the admin", o)
			}
		}
		if err := e.s.Exec(e.ctx, plan); err != nil {
			t.Errorf("drop run again (login gone): %v", err)
		}
		if e.loginExists(owner) {
			t.Error("login exists after the drop ran again")
		}
		if n := e.rowCount(db, "keep_me"); n != 1 {
			t.Errorf("keep_me has %d rows after the drop ran again, want 1", n)
		}
	})
}
