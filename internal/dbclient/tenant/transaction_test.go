// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// newPostgresEnvLockTimeout is the PostgreSQL env and a Server of its own
// whose statements wait at most 2 s for a lock, for tests that hold one;
// it skips (saying why: only) when the run leaves PostgreSQL out.
func newPostgresEnvLockTimeout(t *testing.T, only string) (*env, *Server) {
	t.Helper()
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",postgres,") {
		t.Skip("PostgreSQL only: " + only)
	}
	e := newEnv(t, "postgres")
	spec := e.s.spec
	spec.LockTimeout = 2 * time.Second
	s, err := e.reg.Server(e.ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	return e, s
}

// TestExecTransaction_failureLeavesCatalogAsBefore (PostgreSQL, issue 34):
// a transactional plan that fails part way, whether on an error, past
// lock_timeout or at the operation's deadline (the cancel request), leaves
// the catalog exactly as before: roles and their marks, memberships, the
// database's owner and ACL, the tenant's table's owner and ACL, schema
// ACLs and pg_default_acl. The plan is a rotation's handover (new role,
// mark, membership, ownership, REASSIGN OWNED, default privileges), and
// its undo would drop the old login: it must not run either (nothing to
// undo after a rollback). Run statement by statement, each failure would
// leave the new role owning the table.
func TestExecTransaction_failureLeavesCatalogAsBefore(t *testing.T) {
	t.Parallel()
	e, s := newPostgresEnvLockTimeout(t, "MySQL/MariaDB DDL commits by itself")
	db, old, reader, pw := e.newDB("txc"), e.newUser("txco"), e.plainLogin("txcr", "Reader1"), "Tx-owner-1"
	privs := mustPrivileges(t, e.engine, "ALL PRIVILEGES")
	if _, _, err := s.ClaimDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimOwner(e.ctx, db, old, mustPassword(t, pw), privs, ddl.ConnectionLimit{}); err != nil {
		t.Fatal(err)
	}
	tenant := e.mustOpenAs(old.String(), pw, db.String())
	exec(t, tenant, `CREATE TABLE t (v int)`, `INSERT INTO t SELECT generate_series(1, 100)`,
		fmt.Sprintf(`GRANT SELECT ON t TO %q`, reader), `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO PUBLIC`)
	super := e.superIn(db)
	ghost := e.newUser("txcg") // never created: a statement naming it fails

	cases := []struct {
		name string
		// hold, when set, is a superuser statement whose lock blocks the
		// handover's default privileges (after its REASSIGN OWNED ran).
		hold    string
		timeout time.Duration // the operation's deadline (0: none)
		failing bool          // the plan ends with a statement that fails
		want    string        // in the error
	}{
		{name: "a statement fails", failing: true, want: "rolled back"},
		{name: "past lock_timeout", hold: `LOCK TABLE pg_catalog.pg_default_acl IN EXCLUSIVE MODE`, want: "lock_timeout"},
		{name: "at the operation's deadline", hold: `LOCK TABLE pg_catalog.pg_default_acl IN EXCLUSIVE MODE`, timeout: time.Second, want: "rolled back"},
	}
	for _, c := range cases {
		newLogin := e.newUser("txcn")
		defaults, err := s.proof.DefaultACLs(e.ctx, db, old.String())
		if err != nil || defaults.Empty() {
			t.Fatalf("%s: the old login's default privileges: %+v, %v", c.name, defaults, err)
		}
		mark, err := s.proof.OwnerMark(e.ctx, db, "1")
		if err != nil {
			t.Fatal(err)
		}
		handover, _ := ddl.RotateOwner(s.dialect(), db, old, newLogin, mustPassword(t, "Tx-new-1"), privs, ddl.NewClaimMark(), true, defaults, ddl.OwnedContainers{})
		plan := ddl.MarkOwnerLogin(s.dialect(), handover, newLogin, mark)
		if c.failing {
			plan = plan.Append(ddl.MakeDatabaseOwner(db, ghost))
		}
		// Were the undo run, it would take the database from the old login.
		plan.Undo = s.dialect().DropLogin(db, old).Statements
		plan = ddl.InOneTransaction(s.dialect(), plan)
		if !plan.Transaction {
			t.Fatalf("%s: the handover is not one transaction:\n%s", c.name, plan)
		}

		before := catalogOf(t, e, super, db, old, newLogin, reader)
		release := func() {}
		if c.hold != "" {
			tx, err := super.BeginTx(e.ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(e.ctx, c.hold); err != nil {
				t.Fatal(err)
			}
			release = func() { _ = tx.Rollback() }
		}
		ctx := e.ctx
		if c.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		err = s.proof.WithLock(ctx, db, func(ctx context.Context) error { return s.sess.Exec(ctx, plan) })
		release()
		if err == nil {
			t.Fatalf("%s: the plan succeeded", c.name)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: the error does not say %q:\n%v", c.name, c.want, err)
		}
		if diff := cmp.Diff(before, catalogOf(t, e, super, db, old, newLogin, reader)); diff != "" {
			t.Fatalf("%s: the catalog changed (-before +after):\n%s", c.name, diff)
		}
		var n int
		if err := tenant.QueryRowContext(e.ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 100 {
			t.Fatalf("%s: the old login reads %d rows of its table (%v), want 100", c.name, n, err)
		}
	}
}

// catalogOf lists, as the superuser, what a failed transaction must leave
// as it was, for the logins named and database db.
func catalogOf(t *testing.T, e *env, super *sql.DB, db ddl.DatabaseName, logins ...ddl.Username) []string {
	t.Helper()
	names := make([]string, len(logins))
	for i, l := range logins {
		names[i] = l.String()
	}
	rows, err := super.QueryContext(e.ctx, `
WITH r AS (SELECT oid, rolname FROM pg_roles WHERE rolname = ANY($1::text[]))
SELECT 'role ' || rolname || ' ' || COALESCE(shobj_description(oid, 'pg_authid'), '') FROM r
UNION ALL SELECT 'member ' || pg_get_userbyid(m.roleid) || ' of ' || pg_get_userbyid(m.member)
  FROM pg_auth_members m WHERE m.roleid IN (SELECT oid FROM r) OR m.member IN (SELECT oid FROM r)
UNION ALL SELECT 'database ' || datname || ' ' || pg_get_userbyid(datdba) || ' ' || COALESCE(datacl::text, '')
  FROM pg_database WHERE datname = $2
UNION ALL SELECT 'class ' || relname || ' ' || pg_get_userbyid(relowner) || ' ' || COALESCE(relacl::text, '')
  FROM pg_class WHERE relnamespace = 'public'::regnamespace
UNION ALL SELECT 'schema ' || nspname || ' ' || pg_get_userbyid(nspowner) || ' ' || COALESCE(nspacl::text, '')
  FROM pg_namespace WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
UNION ALL SELECT 'default ' || pg_get_userbyid(defaclrole) || ' ' || defaclnamespace::regnamespace::text || ' ' || defaclobjtype::text || ' ' || defaclacl::text
  FROM pg_default_acl
ORDER BY 1`, names, db.String())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
