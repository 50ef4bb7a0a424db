// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 42, items 1 to 3 (PostgreSQL): a tenant owner owns its database, so
// it may ALTER DATABASE … SET any user-settable parameter, set its
// CONNECTION LIMIT and create functions and operators there. None of it
// reaches the admin's sessions (internal/dbclient/session/admin_session_postgres.go).
// Every check reads the server as the superuser: rows, roles, ACLs,
// memberships, and a tenant-owned table that records its callers.

// retainedDatabaseHCL is trustHCL's database alone, retained on destroy:
// the configuration after the owner and the grant are removed.
func retainedDatabaseHCL(db string) string {
	return strings.Replace(deleteDatabaseHCL(db, ""), `"delete"`, `"retain"`, 1)
}

// offboardKeepingDatabase removes the owner and the grant of a trustTenant
// under "retain" from the configuration and applies; it must succeed.
func (s accServer) offboardKeepingDatabase(t *testing.T, w *cliWorkspace, db string) cliResult {
	t.Helper()
	w.write(s.serverHCL("") + retainedDatabaseHCL(db))
	r := w.run("apply", "-auto-approve").mustSucceed(t, "remove the owner and the grant from the configuration")
	for _, typ := range []string{"tenantdb_tenant_owner", "tenantdb_tenant_grant"} {
		if w.stateHas(typ) {
			t.Fatalf("%s is still in state after its destroy succeeded", typ)
		}
	}
	return r
}

// requireOwnerAndGrantGone: the owner role is dropped and the grantee may no
// longer connect, by the superuser's reading from the maintenance database
// (a tenant's statement_timeout applies to sessions in its database).
func (s accServer) requireOwnerAndGrantGone(t *testing.T, db, owner, grantee string) {
	t.Helper()
	if s.loginExists(t, owner) {
		t.Fatalf("the owner role %s still exists after its destroy", owner)
	}
	var connect bool
	if err := s.super(t, "").QueryRow(`SELECT has_database_privilege($1, $2, 'CONNECT')`, grantee, db).Scan(&connect); err != nil {
		t.Fatal(err)
	}
	if connect {
		t.Fatalf("the grantee %s may still connect to %s after its grant's destroy", grantee, db)
	}
}

// TestAccAdminSession_roleSetOnDatabase (item 1): the owner sets `role` to
// itself on its database; the admin, a member of the owner role, would run
// its offboarding as the owner: REASSIGN OWNED … TO CURRENT_USER to the
// owner itself, then DROP OWNED dropping the tenant's tables. The database
// is retained: after the owner's destroy its table and row are there, the
// role is dropped, nothing is left in state.
func TestAccAdminSession_roleSetOnDatabase(t *testing.T) {
	s := testAccServer(t, "postgres")
	w, db, owner, grantee := s.trustTenant(t, "asrole", "retain")
	if err := s.as(owner, trustOwnerPW, db, fmt.Sprintf("ALTER DATABASE %s SET role = %s", s.ident(db), s.ident(owner))); err != nil {
		t.Fatalf("the owner cannot set role on its database (the event this test is about): %v", err)
	}
	s.offboardKeepingDatabase(t, w, db)
	if n := s.tableRows(t, db); n != 1 {
		t.Fatalf("after the owner's destroy the tenant's table holds %d rows (-1: gone), want 1: the offboarding dropped data", n)
	}
	s.requireOwnerAndGrantGone(t, db, owner, grantee)
}

// evilSQL is what a hostile owner puts in its database (issue 42, item 2):
// functions that shadow current_database() and pg_get_userbyid(oid) and an
// operator = (name, name), SECURITY INVOKER, each recording who called it
// in the tenant's own table and, when the caller's session is the admin's,
// trying what the issue saw: making the owner a member of
// pg_execute_server_program (the admin's CREATEROLE allows it on
// PostgreSQL 15). The database's search_path puts the schema first.
func evilSQL(db, owner, admin string) []string {
	record := func(fn string) string {
		return fmt.Sprintf(`BEGIN
  INSERT INTO evil.calls VALUES (%s, current_user, session_user);
  IF session_user::text OPERATOR(pg_catalog.=) %s THEN
    BEGIN
      EXECUTE 'GRANT pg_execute_server_program TO ' || pg_catalog.quote_ident(%s);
    EXCEPTION WHEN others THEN NULL;
    END;
  END IF;`, quoteLiteral(fn), quoteLiteral(admin), quoteLiteral(owner))
	}
	return []string{
		`CREATE SCHEMA evil`,
		`CREATE TABLE evil.calls (fn text, caller text, session_caller text)`,
		`GRANT USAGE ON SCHEMA evil TO PUBLIC`,
		`GRANT INSERT ON evil.calls TO PUBLIC`,
		`CREATE FUNCTION evil.current_database() RETURNS name LANGUAGE plpgsql SECURITY INVOKER AS $f$ ` +
			record("current_database") + ` RETURN pg_catalog.current_database(); END $f$`,
		`CREATE FUNCTION evil.pg_get_userbyid(oid) RETURNS name LANGUAGE plpgsql SECURITY INVOKER AS $f$ ` +
			record("pg_get_userbyid") + ` RETURN pg_catalog.pg_get_userbyid($1); END $f$`,
		`CREATE FUNCTION evil.name_eq(name, name) RETURNS boolean LANGUAGE plpgsql SECURITY INVOKER AS $f$ ` +
			record("=") + ` RETURN pg_catalog.nameeq($1, $2); END $f$`,
		`CREATE OPERATOR evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = evil.name_eq)`,
		fmt.Sprintf(`ALTER DATABASE %s SET search_path = evil, pg_catalog, public`, quoteIdent(db)),
	}
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// adminCalls counts and lists the calls evil.calls recorded from the
// admin's sessions (the test's own superuser and tenant sessions call the
// functions too).
func (s accServer) adminCalls(t *testing.T, db string) (int, string) {
	t.Helper()
	var n int
	var calls string
	if err := s.super(t, db).QueryRow(`SELECT pg_catalog.count(*), COALESCE(pg_catalog.string_agg(fn || ' as ' || caller, ', '), '')
FROM evil.calls WHERE session_caller OPERATOR(pg_catalog.=) $1`, s.Admin.Username).Scan(&n, &calls); err != nil {
		t.Fatal(err)
	}
	return n, calls
}

// memberships lists the roles role is a member of (pg_auth_members).
func (s accServer) memberships(t *testing.T, role string) []string {
	t.Helper()
	return s.superStrings(t, `SELECT pg_catalog.pg_get_userbyid(m.roleid)::text FROM pg_catalog.pg_auth_members m
WHERE m.member OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) $1) ORDER BY 1`, role)
}

// TestAccAdminSession_tenantFunctionsNeverCalled (item 2, and "plans only
// read — proven where the tenant's code would run"): with the tenant's
// functions and operator first on its database's search_path, a plan, an
// apply that changes the grant and the destroy of the owner and the grant
// call none of them as the admin, and the owner gains no membership.
func TestAccAdminSession_tenantFunctionsNeverCalled(t *testing.T) {
	s := testAccServer(t, "postgres")
	w, db, owner, grantee := s.trustTenant(t, "asfn", "retain")
	if err := s.as(owner, trustOwnerPW, db, evilSQL(db, owner, s.Admin.Username)...); err != nil {
		t.Fatalf("the owner cannot create its functions (the event this test is about): %v", err)
	}
	before := s.memberships(t, owner)
	clean := func(when string) {
		t.Helper()
		if s.loginExists(t, owner) {
			if got := s.memberships(t, owner); strings.Join(got, ",") != strings.Join(before, ",") {
				t.Errorf("%s: the owner's memberships went from %v to %v", when, before, got)
			}
		}
		if n, calls := s.adminCalls(t, db); n > 0 {
			t.Fatalf("%s: the admin called the tenant's code %d times: %s", when, n, calls)
		}
	}
	w.run("plan").mustSucceed(t, "plan with the tenant's functions on the path")
	clean("plan")
	w.write(s.serverHCL("") + strings.Replace(strings.Replace(trustHCL(db, owner, grantee, ""), `"delete"`, `"retain"`, 1),
		`["SELECT"]`, `["SELECT", "INSERT"]`, 1))
	w.run("apply", "-auto-approve").mustSucceed(t, "change the grant")
	clean("apply")
	s.offboardKeepingDatabase(t, w, db)
	clean("destroy of the owner and the grant")
	s.requireOwnerAndGrantGone(t, db, owner, grantee)
}

// TestAccAdminSession_tenantSettingsNeverBlockOffboarding (item 3): each
// setting the owner may put on its database that would stop the admin:
// read-only transactions, a 1 ms statement_timeout, CONNECTION LIMIT 0,
// its own CONNECT revoked. Removing the owner and the grant from the
// configuration succeeds: the grantee loses CONNECT, the owner role is
// gone, and a reset limit or a CONNECT given back is reported.
func TestAccAdminSession_tenantSettingsNeverBlockOffboarding(t *testing.T) {
	s := testAccServer(t, "postgres")
	for _, c := range []struct{ name, setting string }{
		{"read_only", "ALTER DATABASE %s SET default_transaction_read_only = on"},
		{"statement_timeout", "ALTER DATABASE %s SET statement_timeout = 1"},
		{"connection_limit", "ALTER DATABASE %s CONNECTION LIMIT 0"},
		// PUBLIC has no CONNECT since the create, and the admin enters
		// through the owner.
		{"connect_revoked", "REVOKE CONNECT ON DATABASE %s FROM CURRENT_USER"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, db, owner, grantee := s.trustTenant(t, "asset", "retain")
			if err := s.as(owner, trustOwnerPW, db, fmt.Sprintf(c.setting, s.ident(db))); err != nil {
				t.Fatalf("the owner cannot change its database (the event this test is about): %v", err)
			}
			r := s.offboardKeepingDatabase(t, w, db)
			s.requireOwnerAndGrantGone(t, db, owner, grantee)
			if c.name == "connect_revoked" {
				d := r.requireDiag(t, "warning", summaryFlagReset)
				if !strings.Contains(d.Detail, fmt.Sprintf("Database %q", db)) || !strings.Contains(d.Detail, "CONNECT on it granted to its owner") {
					t.Fatalf("the warning does not name the database and the CONNECT it gave back: %q", d.Detail)
				}
				var keeperMay bool
				if err := s.super(t, "").QueryRow(`SELECT has_database_privilege(r.oid, d.oid, 'CONNECT') FROM pg_database d, pg_roles r
WHERE d.datname = $1 AND r.oid = d.datdba`, db).Scan(&keeperMay); err != nil || !keeperMay {
					t.Fatalf("the database's holder may connect: %v (%v), want true (the owner's CONNECT given back follows the database)", keeperMay, err)
				}
			}
			if c.name != "connection_limit" {
				r.forbidDiag(t, summaryConnectionLimitReset)
				return
			}
			d := r.requireDiag(t, "warning", summaryConnectionLimitReset)
			if !strings.Contains(d.Detail, fmt.Sprintf("Database %q", db)) || !strings.Contains(d.Detail, "CONNECTION LIMIT was 0") {
				t.Fatalf("the warning does not name the database and the limit it reset: %q", d.Detail)
			}
			var limit int
			if err := s.super(t, "").QueryRow(`SELECT datconnlimit FROM pg_database WHERE datname = $1`, db).Scan(&limit); err != nil {
				t.Fatal(err)
			}
			if limit != -1 {
				t.Fatalf("datconnlimit is %d after the reset the warning reports, want -1", limit)
			}
		})
	}
}
