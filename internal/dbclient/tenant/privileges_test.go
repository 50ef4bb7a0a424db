// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// mysqlDBRow reads, as the superuser, the *_priv columns set to 'Y' in the
// mysql.db row of 'user'@'%' on the escaped database pattern (the form
// GRANT stores for `acme\_1`.*). No row: an empty map.
func (e *env) mysqlDBRow(db ddl.DatabaseName, user ddl.Username) map[string]bool {
	e.t.Helper()
	pattern := strings.NewReplacer(`_`, `\_`, `%`, `\%`).Replace(db.String())
	rows, err := e.superDB().QueryContext(e.ctx, `SELECT * FROM mysql.db WHERE Host = '%' AND User = ? AND Db = ?`, user.String(), pattern)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]bool{}
	n := 0
	for rows.Next() {
		n++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			e.t.Fatal(err)
		}
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok && strings.HasSuffix(c, "_priv") && string(b) == "Y" {
				out[c] = true
			}
		}
	}
	if n > 1 {
		e.t.Fatalf("%d mysql.db rows for %s on %s", n, user, pattern)
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// pgTablePrivileges are the table-level privileges of PostgreSQL 15.
var pgTablePrivileges = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}

// pgHeld reads, as the superuser inside db, which table privileges grantee
// holds on public.<table>, and its rights on the database itself.
func (e *env) pgHeld(db ddl.DatabaseName, grantee ddl.Username, table string) []string {
	e.t.Helper()
	var out []string
	conn := e.superIn(db)
	for _, p := range pgTablePrivileges {
		var ok bool
		if err := conn.QueryRowContext(e.ctx, `SELECT has_table_privilege($1, $2, $3)`, grantee.String(), "public."+table, p).Scan(&ok); err != nil {
			e.t.Fatal(err)
		}
		if ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func (e *env) pgDatabaseHeld(db ddl.DatabaseName, grantee ddl.Username) []string {
	e.t.Helper()
	var out []string
	for _, p := range []string{"CONNECT", "CREATE", "TEMPORARY"} {
		if superScalar[bool](e, `SELECT has_database_privilege($1, $2, $3)`, grantee.String(), db.String(), p) {
			out = append(out, p)
		}
	}
	return out
}

// TestSyncPrivileges walks a grantee through ALL PRIVILEGES → [SELECT,
// DELETE] → [SELECT, INSERT] → RevokeAll, reading back with privileges and
// with the superuser's catalog. On PostgreSQL tables created by the owner
// before and after each step prove that default privileges follow. Each
// step runs statements (the statement log shows them); the same desired
// state again runs none, and the server's grants stay as they were.
func TestSyncPrivileges(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const ownerPW, granteePW = "Owner-pw-9", "Grantee-pw-9"
		grantee := e.plainLogin("gr", granteePW)
		db, owner := e.newTenant("syn", ownerPW)
		ownerConn := e.mustOpenAs(owner.String(), ownerPW, db.String())
		exec(t, ownerConn, "CREATE TABLE t0 (id int)", "INSERT INTO t0 VALUES (1)")
		info := e.s.Info()
		// The syncs run through a server whose statements are logged.
		s, log := e.loggedServer()

		steps := []struct {
			declared []string
			pgTable  []string // PostgreSQL table privileges held
			pgDB     []string // PostgreSQL database privileges held
		}{
			{[]string{"ALL PRIVILEGES"}, sorted(pgTablePrivileges...), []string{"CONNECT", "CREATE", "TEMPORARY"}},
			{[]string{"SELECT", "DELETE"}, []string{"DELETE", "SELECT"}, []string{"CONNECT"}},
			{[]string{"SELECT", "INSERT"}, []string{"INSERT", "SELECT"}, []string{"CONNECT"}},
		}
		var tables = []string{"t0"}
		for i, step := range steps {
			desired := mustPrivileges(t, e.engine, step.declared...)
			mark := log.mark()
			if err := s.SyncPrivileges(e.ctx, db, grantee, desired); err != nil {
				t.Fatalf("step %d %v: %v", i, step.declared, err)
			}
			// Every step changes something: the log sees this server's
			// statements, so "none" below means none.
			if ran := log.since(mark); len(ran) == 0 {
				t.Fatalf("step %d %v: no statement logged for a change", i, step.declared)
			} else {
				t.Logf("step %d %v ran:\n%s", i, step.declared, strings.Join(statements(ran), "\n"))
			}
			// A table the owner creates after the grant.
			table := fmt.Sprintf("t%d", i+1)
			exec(t, ownerConn, fmt.Sprintf("CREATE TABLE %s (id int)", table))
			tables = append(tables, table)

			got, err := e.s.proof.Privileges(e.ctx, db, grantee)
			if err != nil {
				t.Fatal(err)
			}
			if !desired.Equal(info, got) {
				t.Errorf("step %d %v: Privileges = %v, want %v", i, step.declared, privNames(got), privNames(desired.Expand(info)))
			}
			if e.isPG() {
				for _, tbl := range tables {
					if held := e.pgHeld(db, grantee, tbl); !slices.Equal(held, step.pgTable) {
						t.Errorf("step %d %v: grantee holds %v on %s, want %v", i, step.declared, held, tbl, step.pgTable)
					}
				}
				if held := e.pgDatabaseHeld(db, grantee); !slices.Equal(held, step.pgDB) {
					t.Errorf("step %d %v: grantee holds %v on the database, want %v", i, step.declared, held, step.pgDB)
				}
			} else {
				want := map[string]bool{}
				if desired.IsAll() {
					for _, c := range ddl.MySQLDBColumns(info) {
						want[c.Column] = true
					}
				} else {
					for _, p := range step.declared {
						want[strings.ToUpper(p[:1])+strings.ToLower(p[1:])+"_priv"] = true
					}
				}
				if row := e.mysqlDBRow(db, grantee); !slices.Equal(keys(row), keys(want)) {
					t.Errorf("step %d %v: mysql.db row has %v, want %v", i, step.declared, keys(row), keys(want))
				}
			}
			// Running the same desired state again changes nothing: no
			// statement runs, and the server's grants are the same.
			var before []string
			if e.isPG() {
				before = append(e.pgHeld(db, grantee, "t0"), e.pgDatabaseHeld(db, grantee)...)
			} else {
				before = keys(e.mysqlDBRow(db, grantee))
			}
			mark = log.mark()
			if err := s.SyncPrivileges(e.ctx, db, grantee, desired); err != nil {
				t.Fatalf("step %d again: %v", i, err)
			}
			if again := log.since(mark); len(again) != 0 {
				t.Errorf("step %d %v again ran %d statements, want none:\n%s", i, step.declared, len(again), strings.Join(statements(again), "\n"))
			}
			var after []string
			if e.isPG() {
				after = append(e.pgHeld(db, grantee, "t0"), e.pgDatabaseHeld(db, grantee)...)
			} else {
				after = keys(e.mysqlDBRow(db, grantee))
			}
			if !slices.Equal(before, after) {
				t.Errorf("step %d %v again changed the grants: %v → %v", i, step.declared, before, after)
			}
		}

		// The last step works for the grantee itself: INSERT yes, DELETE no.
		g := e.mustOpenAs(grantee.String(), granteePW, db.String())
		exec(t, g, "INSERT INTO t0 VALUES (2)")
		var n int
		if err := g.QueryRow("SELECT count(*) FROM t0").Scan(&n); err != nil || n != 2 {
			t.Errorf("grantee SELECT: %d, %v", n, err)
		}
		if _, err := g.Exec("DELETE FROM t0"); err == nil {
			t.Error("grantee could DELETE after DELETE was revoked")
		} else if c := session.CodeOf(err); c != "mysql:1142" && c != "pg:42501" {
			t.Errorf("grantee DELETE: %v, want permission denied", err)
		}
		g.Close()

		if err := e.s.RevokeAll(e.ctx, db, grantee); err != nil {
			t.Fatal(err)
		}
		if got, err := e.s.proof.Privileges(e.ctx, db, grantee); err != nil || len(got) != 0 {
			t.Errorf("after RevokeAll: Privileges = %v, %v", privNames(got), err)
		}
		if e.isPG() {
			exec(t, ownerConn, "CREATE TABLE t_after_revoke (id int)")
			for _, tbl := range append(tables, "t_after_revoke") {
				if held := e.pgHeld(db, grantee, tbl); len(held) != 0 {
					t.Errorf("after RevokeAll grantee holds %v on %s", held, tbl)
				}
			}
			if held := e.pgDatabaseHeld(db, grantee); len(held) != 0 {
				t.Errorf("after RevokeAll grantee holds %v on the database", held)
			}
			var defacl int
			if err := e.superIn(db).QueryRowContext(e.ctx, `
SELECT count(*) FROM pg_default_acl d, aclexplode(d.defaclacl) a
WHERE a.grantee = (SELECT oid FROM pg_roles WHERE rolname = $1)`, grantee.String()).Scan(&defacl); err != nil || defacl != 0 {
				t.Errorf("default privileges left for the grantee: %d, %v", defacl, err)
			}
		} else if row := e.mysqlDBRow(db, grantee); len(row) != 0 {
			t.Errorf("after RevokeAll the mysql.db row has %v", keys(row))
		}
		e.mustLoginFailOrDenied(grantee.String(), granteePW, db.String())
		// Revoking again converges: missing grants are not errors.
		if err := e.s.RevokeAll(e.ctx, db, grantee); err != nil {
			t.Errorf("RevokeAll again: %v", err)
		}
	})
}

// mustLoginFailOrDenied: the login exists but may not enter database.
func (e *env) mustLoginFailOrDenied(user, pw, database string) {
	e.t.Helper()
	db, err := e.openAs(user, pw, database)
	if err == nil {
		db.Close()
		e.t.Fatalf("%s entered %s", user, database)
	}
	if c := session.CodeOf(err); c != "mysql:1044" && c != "pg:42501" {
		e.t.Fatalf("%s entering %s: %v, want access denied", user, database, err)
	}
}

// TestOutOfBandSurplus: a right granted behind the provider's back shows up
// in privileges as surplus and the next sync revokes it. MariaDB: WITH
// GRANT OPTION. PostgreSQL: CREATE on the database.
func TestOutOfBandSurplus(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		grantee := e.plainLogin("oob", "Oob-pw-1")
		db, _ := e.newTenant("oob", "Oob-owner-1")
		desired := mustPrivileges(t, e.engine, "SELECT", "DELETE")
		if err := e.s.SyncPrivileges(e.ctx, db, grantee, desired); err != nil {
			t.Fatal(err)
		}
		var surplus ddl.Privilege
		if e.isPG() {
			surplus = "CREATE"
			e.super(fmt.Sprintf(`GRANT CREATE ON DATABASE %q TO %q`, db, grantee))
		} else {
			surplus = ddl.GrantOption
			pattern := strings.ReplaceAll(db.String(), "_", `\_`)
			e.super(fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%' WITH GRANT OPTION", pattern, grantee))
			if row := e.mysqlDBRow(db, grantee); !row["Grant_priv"] {
				t.Fatalf("out-of-band grant did not land on the same mysql.db row: %v", keys(row))
			}
		}
		got, err := e.s.proof.Privileges(e.ctx, db, grantee)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, surplus) {
			t.Fatalf("Privileges = %v, want the out-of-band %s to show", privNames(got), surplus)
		}
		if desired.Equal(e.s.Info(), got) {
			t.Error("drift not detected by Equal")
		}
		if err := e.s.SyncPrivileges(e.ctx, db, grantee, desired); err != nil {
			t.Fatal(err)
		}
		got, err = e.s.proof.Privileges(e.ctx, db, grantee)
		if err != nil || !desired.Equal(e.s.Info(), got) {
			t.Errorf("after sync: Privileges = %v, %v; want [DELETE SELECT]", privNames(got), err)
		}
		if e.isPG() {
			if held := e.pgDatabaseHeld(db, grantee); !slices.Equal(held, []string{"CONNECT"}) {
				t.Errorf("database rights after sync: %v", held)
			}
		} else if row := e.mysqlDBRow(db, grantee); !slices.Equal(keys(row), []string{"Delete_priv", "Select_priv"}) {
			t.Errorf("mysql.db row after sync: %v", keys(row))
		}

		// RevokeAll removes an out-of-band surplus too, GRANT OPTION included.
		if e.isPG() {
			e.super(fmt.Sprintf(`GRANT CREATE ON DATABASE %q TO %q`, db, grantee))
		} else {
			pattern := strings.ReplaceAll(db.String(), "_", `\_`)
			e.super(fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%' WITH GRANT OPTION", pattern, grantee))
		}
		if err := e.s.RevokeAll(e.ctx, db, grantee); err != nil {
			t.Fatal(err)
		}
		if got, err := e.s.proof.Privileges(e.ctx, db, grantee); err != nil || len(got) != 0 {
			t.Errorf("after RevokeAll: Privileges = %v, %v", privNames(got), err)
		}
		if e.isPG() {
			if held := e.pgDatabaseHeld(db, grantee); len(held) != 0 {
				t.Errorf("database rights after RevokeAll: %v", held)
			}
		} else if row := e.mysqlDBRow(db, grantee); len(row) != 0 {
			t.Errorf("mysql.db row after RevokeAll: %v", keys(row))
		}
	})
}

// TestUnderscoreDoesNotWiden: a grant on x_1 must not reach xX1, although
// "_" matches any character in a MySQL grant pattern.
func TestUnderscoreDoesNotWiden(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		n := nameSeq.Add(1)
		narrow, wide := e.dbName(fmt.Sprintf("us%d_1", n)), e.dbName(fmt.Sprintf("us%dX1", n))
		grantee := e.plainLogin("usg", "Under-pw-1")
		var owners []ddl.Username
		for _, db := range []ddl.DatabaseName{narrow, wide} {
			if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
				t.Fatal(err)
			}
			owner := e.newUser("uso")
			if err := e.s.CreateLogin(e.ctx, db, owner, mustPassword(t, "Under-owner-1"), mustPrivileges(t, e.engine, "ALL PRIVILEGES")); err != nil {
				t.Fatal(err)
			}
			exec(t, e.mustOpenAs(owner.String(), "Under-owner-1", db.String()), "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1)")
			owners = append(owners, owner)
		}
		if err := e.s.SyncPrivileges(e.ctx, narrow, grantee, mustPrivileges(t, e.engine, "SELECT")); err != nil {
			t.Fatal(err)
		}
		g := e.mustOpenAs(grantee.String(), "Under-pw-1", narrow.String())
		var c int
		if err := g.QueryRow("SELECT count(*) FROM t").Scan(&c); err != nil || c != 1 {
			t.Fatalf("grantee on %s: %d, %v", narrow, c, err)
		}
		// Not the look-alike, neither by connecting nor by qualified name.
		e.mustLoginFailOrDenied(grantee.String(), "Under-pw-1", wide.String())
		e.mustLoginFailOrDenied(owners[0].String(), "Under-owner-1", wide.String())
		if !e.isPG() {
			if _, err := g.Exec(fmt.Sprintf("SELECT * FROM `%s`.t", wide)); session.CodeOf(err) != "mysql:1142" {
				t.Errorf("grantee SELECT on %s: %v, want 1142", wide, err)
			}
			// No grant row of the grantee matches the look-alike as a pattern.
			if n := superScalar[int](e, `SELECT count(*) FROM mysql.db WHERE User = ? AND ? LIKE Db`, grantee.String(), wide.String()); n != 0 {
				t.Errorf("%d mysql.db rows of the grantee match %s", n, wide)
			}
		} else if held := e.pgDatabaseHeld(wide, grantee); len(held) != 0 {
			t.Errorf("grantee holds %v on %s", held, wide)
		}
	})
}
