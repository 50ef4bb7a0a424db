// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestDatabasePreExists: CreateDatabase on a database made out of band is
// refused and runs nothing else: the database keeps its settings (and on
// PostgreSQL its owner and PUBLIC's rights).
func TestDatabasePreExists(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db := e.newDB("pre")
		if e.isPG() {
			e.super(fmt.Sprintf(`CREATE DATABASE %q`, db))
		} else {
			e.super(fmt.Sprintf("CREATE DATABASE `%s` CHARACTER SET latin1 COLLATE latin1_swedish_ci", db))
		}
		cs0, co0, owner0, _ := e.dbState(db)
		err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		de := wantReason(t, err, ddl.DatabasePreExists)
		if !strings.Contains(de.Summary(), db.String()) || !strings.Contains(de.Detail(), "import") {
			t.Errorf("refusal does not name the database or the way out: %s / %s", de.Summary(), de.Detail())
		}
		cs, co, owner, found := e.dbState(db)
		if !found || cs != cs0 || co != co0 || owner != owner0 {
			t.Errorf("database changed: (%q, %q, %q) → (%q, %q, %q, found %v)", cs0, co0, owner0, cs, co, owner, found)
		}
		if e.isPG() {
			if owner != e.ts.Super.Username {
				t.Errorf("owner %q, want the superuser who made it", owner)
			}
			if connect, temp, _ := e.publicRights(db); !connect || !temp {
				t.Errorf("PUBLIC rights touched: CONNECT=%v TEMPORARY=%v", connect, temp)
			}
		}
	})
}

// TestPreExistingOwnerUser: CreateLogin for an existing login is refused,
// the login keeps its password, and nothing was granted or dropped.
func TestPreExistingOwnerUser(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db := e.newDB("peu")
		if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		foreign := e.plainLogin("peu", "Foreign-pw-1")
		hostile := hostilePasswords[0]
		err := e.s.CreateLogin(e.ctx, db, foreign, mustPassword(t, hostile), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
		de := wantReason(t, err, ddl.PreExistingOwnerUser)
		assertNoSecret(t, err, hostile)
		if !strings.Contains(de.Summary(), foreign.String()) {
			t.Errorf("refusal does not name the login: %s", de.Summary())
		}
		if !e.loginExists(foreign) {
			t.Fatal("the foreign login was dropped (undo ran on a login this call did not create)")
		}
		e.mustOpenAs(foreign.String(), "Foreign-pw-1", "").Close()
		e.mustLoginFail(foreign.String(), hostile, "")
		if e.isPG() {
			if _, _, owner, _ := e.dbState(db); owner != e.ts.Admin.Username {
				t.Errorf("database owner changed to %q", owner)
			}
			if superScalar[int](e, `SELECT count(*) FROM pg_auth_members WHERE roleid = (SELECT oid FROM pg_roles WHERE rolname = $1) AND member = (SELECT oid FROM pg_roles WHERE rolname = $2)`,
				foreign.String(), e.ts.Admin.Username) != 0 {
				t.Error("the admin was made a member of the foreign login")
			}
		} else if row := e.mysqlDBRow(db, foreign); len(row) != 0 {
			t.Errorf("the foreign login got privileges: %v", keys(row))
		}
	})
}

// TestDropDatabaseInUse (PostgreSQL): a foreign session in the database
// makes DropDatabase refuse with DatabaseInUse, listing it; nothing is
// terminated and the database stays. MariaDB has no per-database sessions
// to cut: the drop goes ahead.
func TestDropDatabaseInUse(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		db := e.newDB("inuse")
		if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		foreignDB, err := e.ts.Open(e.ts.Super, db.String())
		if err != nil {
			t.Fatal(err)
		}
		defer foreignDB.Close()
		conn, err := foreignDB.Conn(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if !e.isPG() {
			if err := e.s.DropDatabase(e.ctx, db); err != nil {
				t.Fatalf("MariaDB drop with a session in the database: %v", err)
			}
			return
		}
		var pid int
		if err := conn.QueryRowContext(e.ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		// dbclient's own pool into the database is not a foreign session.
		if _, err := e.s.proof.Privileges(e.ctx, db, ddl.Username{}); err != nil {
			t.Logf("priming the tenant pool: %v", err)
		}

		err = e.s.DropDatabase(e.ctx, db)
		de := wantReason(t, err, ddl.DatabaseInUse)
		t.Logf("refused:\n%s\n%s", de.Summary(), de.Detail())
		if !strings.Contains(de.Why, fmt.Sprintf("pid %d ", pid)) {
			t.Errorf("refusal does not list pid %d:\n%s", pid, de.Why)
		}
		if strings.Contains(de.Why, "local socket") {
			t.Errorf("a TCP session is listed as a local socket:\n%s", de.Why)
		}
		if strings.Count(de.Why, "  - pid ") != 1 {
			t.Errorf("refusal lists other sessions than the foreign one:\n%s", de.Why)
		}
		if _, _, _, found := e.dbState(db); !found {
			t.Fatal("database was dropped")
		}
		var one int
		if err := conn.QueryRowContext(e.ctx, `SELECT 1`).Scan(&one); err != nil {
			t.Fatalf("foreign session was cut: %v", err)
		}

		// Once the session ends, the drop goes through.
		conn.Close()
		foreignDB.Close()
		deadline := time.Now().Add(5 * time.Second)
		for {
			err = e.s.DropDatabase(e.ctx, db)
			if ddl.ReasonOf(err) != ddl.DatabaseInUse || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("drop after the session ended: %v", err)
		}
		if _, _, _, found := e.dbState(db); found {
			t.Error("database still exists")
		}
	})
}
