// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestAccOffboard_keeperHoldsTenantCode (PostgreSQL, issue 53): what an
// offboarding leaves in a retained database never runs with the admin's
// rights, and nothing the tenant sets stops it. One database through its
// life:
//
//  1. owner A makes a table, public.pwn(cmd), SECURITY DEFINER running
//     any statement (PUBLIC has EXECUTE), and the escalation matrix's
//     objects, and closes its database
//     (ALLOW_CONNECTIONS false); a declared grantee reads the table.
//  2. A is offboarded (database retained): it succeeds, warns the flag was
//     reset; A's login is gone; pwn and the table belong to the database's
//     keeper role (NOLOGIN, no attribute, a member of nothing); the grantee
//     calling pwn('CREATE ROLE …') is refused and no role is made; and the
//     escalation matrix (keeper_escalation_test.go): every kind of
//     tenant-written object that runs with its owner's rights, called by
//     the grantee (declared SELECT, INSERT), by a later login with only
//     CONNECT (PUBLIC's reach) and by maintenance, ran as the keeper or
//     the caller, never as the admin, and changed nothing on the server.
//  3. owner B is declared (re-onboarding): it owns pwn and the table, and
//     the keeper role is gone.
//  4. B marks the database a template (IS_TEMPLATE true); a superuser makes
//     a role of the keeper's name with CREATEROLE. B's offboarding is
//     refused (IdentityMismatch), and the statement log shows the admin
//     ran only the lock-out: B cannot log in, still owns its objects.
//     Once the role is gone, the offboarding completes.
//  5. The database is closed again and deleted (deletion_policy
//     "delete"): it succeeds, warns IS_TEMPLATE was reset, and the
//     database and its keeper are gone.
func TestAccOffboard_keeperHoldsTenantCode(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, ownerA, ownerB, reader, made := uniqueName("kp"), uniqueName("kpa"), uniqueName("kpb"), uniqueName("kpr"), uniqueName("kpx")
	keeper := keeperOf(t, db)
	esc := escalationNames{db: db, keeper: keeper, reader: reader, public: uniqueName("kpp"), victim: uniqueName("kpv"),
		made: uniqueName("kpm"), madeDB: uniqueName("kpd"), file: "/tmp/" + uniqueName("tenantdb_esc")}
	s.principal(t, reader)
	t.Cleanup(func() {
		_, _ = s.super(t, "").Exec(fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE false", s.ident(db)))
		s.dropDatabase(t, db)
		s.dropDatabase(t, esc.madeDB)
		s.dropLogins(t, ownerA, ownerB, reader, made, keeper, esc.public, esc.victim, esc.made)
		_ = os.Remove(esc.file)
	})
	dbHCL := tenantDatabaseHCL("db", `deletion_policy = "delete"`)
	dbHCL = strings.Replace(dbHCL, `name   = "db"`, fmt.Sprintf("name   = %q", db), 1)
	grant := grantHCL("r", "tenantdb_tenant_database.db.name", reader, `["SELECT", "INSERT"]`, "")
	withOwner := func(owner string) string {
		return s.serverHCL("") + dbHCL + ownerBlockHCL(owner, "Owner-pw-1", 1, "") +
			strings.Replace(grant, "\n}", "  depends_on = [tenantdb_tenant_owner.o]\n}", 1)
	}
	w := newCLIWorkspace(t)
	w.write(withOwner(ownerA))
	w.run("apply", "-auto-approve").mustSucceed(t, "create with owner A")

	// 1. The tenant's code (and the escalation matrix's), and its database closed.
	s.prepareEscalation(t, esc)
	if err := s.as(ownerA, "Owner-pw-1", db, append([]string{"CREATE TABLE orders (v int)", "INSERT INTO orders VALUES (1)",
		"GRANT SELECT ON orders TO " + reader,
		`CREATE FUNCTION public.pwn(cmd text) RETURNS void SECURITY DEFINER LANGUAGE plpgsql AS $$BEGIN EXECUTE cmd; END$$`},
		escalationSetup(esc.victim, esc.made, esc.madeDB, reader, esc.file)...)...); err != nil {
		t.Fatal(err)
	}
	if err := s.as(ownerA, "Owner-pw-1", "postgres", fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS false", s.ident(db))); err != nil {
		t.Fatal(err)
	}

	// 2. Offboard A: the lock-out is the admin's first statement that
	// changes anything, before the flag's reset.
	w.write(s.serverHCL("") + dbHCL + grant)
	mark := s.MarkLog(t)
	r := w.run("apply", "-auto-approve").mustSucceed(t, "offboard owner A, the database closed by its tenant")
	if ran := s.ddlSinceBy(t, mark, []string{s.Admin.Username}); len(ran) < 2 || !strings.HasPrefix(ran[0].Text, "ALTER ROLE "+s.ident(ownerA)+" NOLOGIN") {
		var texts []string
		for _, st := range ran {
			texts = append(texts, st.Text)
		}
		t.Errorf("A's offboarding did not start with its lock-out: %q", texts)
	}
	if d := r.requireDiag(t, "warning", summaryFlagReset); !strings.Contains(d.Detail, "ALLOW_CONNECTIONS true") {
		t.Errorf("the flag warning does not name ALLOW_CONNECTIONS: %s", d.Detail)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, ownerA); n != 0 {
		t.Errorf("owner A's login %s still exists", ownerA)
	}
	owners := func(want, when string) {
		t.Helper()
		got := s.superStringsIn(t, db, `SELECT pg_get_userbyid(proowner)::text FROM pg_proc WHERE proname = 'pwn'
UNION ALL SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE relname = 'orders'
UNION ALL SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = current_database()`)
		if len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
			t.Fatalf("%s: pwn, orders and the database are owned by %v, want %s", when, got, want)
		}
	}
	owners(keeper, "after A's offboarding")
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles r WHERE rolname = $1 AND NOT (rolcanlogin OR rolsuper OR rolcreaterole
  OR rolcreatedb OR rolreplication OR rolbypassrls) AND NOT EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid)`, keeper); n != 1 {
		t.Errorf("the keeper %s is not a NOLOGIN role with no attribute, a member of nothing", keeper)
	}
	if err := s.as(reader, principalPW, db, "SELECT v FROM orders"); err != nil {
		t.Errorf("the declared grantee lost its read: %v", err)
	}
	if err := denied(s.as(reader, principalPW, db, fmt.Sprintf("SELECT public.pwn('CREATE ROLE %s LOGIN')", made)),
		"the grantee calling the tenant's SECURITY DEFINER function"); err != nil {
		t.Error(err)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, made); n != 0 {
		t.Fatalf("the tenant's function made role %s after the offboarding", made)
	}
	s.checkEscalations(t, esc)

	// 3. Re-onboarding: owner B takes the keeper's objects.
	w.write(withOwner(ownerB))
	w.run("apply", "-auto-approve").mustSucceed(t, "declare owner B for the retained database")
	owners(ownerB, "after B's onboarding")
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, keeper); n != 0 {
		t.Errorf("the keeper %s was not dropped when B took the database", keeper)
	}

	// 4. A tampered keeper: refused after the lock-out, nothing else run.
	if err := s.as(ownerB, "Owner-pw-1", "postgres", fmt.Sprintf("ALTER DATABASE %s IS_TEMPLATE true", s.ident(db))); err != nil {
		t.Fatal(err)
	}
	s.exec(t, "", fmt.Sprintf("CREATE ROLE %s NOLOGIN CREATEROLE", s.ident(keeper)))
	mark = s.MarkLog(t)
	w.write(s.serverHCL("") + dbHCL + grant)
	r = w.run("apply", "-auto-approve").mustFail(t, "offboard owner B to a tampered keeper")
	d := r.requireDiag(t, "error", "")
	for _, want := range []string{"IdentityMismatch", keeper, "CREATEROLE", "already locked out"} {
		if !strings.Contains(d.Summary+d.Detail, want) {
			t.Errorf("the refusal does not say %q: %s\n%s", want, d.Summary, d.Detail)
		}
	}
	var ran []string
	for _, st := range s.ddlSinceBy(t, mark, []string{s.Admin.Username}) {
		ran = append(ran, st.Text)
	}
	if len(ran) != 1 || !strings.HasPrefix(ran[0], "ALTER ROLE "+s.ident(ownerB)+" NOLOGIN") {
		t.Errorf("the refused offboarding ran %q, want only the lock-out (ALTER ROLE %s NOLOGIN)", ran, ownerB)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1 AND NOT rolcanlogin`, ownerB); n != 1 {
		t.Error("owner B can still log in after the refused offboarding")
	}
	owners(ownerB, "after the refused offboarding")
	s.exec(t, "", "DROP ROLE "+s.ident(keeper))
	w.run("apply", "-auto-approve").mustSucceed(t, "offboard owner B once the tampered role is gone")
	owners(keeper, "after B's offboarding")

	// 5. A declared delete of the template, closed again (the harness's
	// own superuser sessions in it ended first: they would be in use).
	s.exec(t, "", fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS false", s.ident(db)))
	if _, err := s.super(t, "").Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE datname = $1 AND usename = current_user AND pid <> pg_backend_pid()`, db); err != nil {
		t.Fatal(err)
	}
	w.write(s.serverHCL(""))
	r = w.run("apply", "-auto-approve").mustSucceed(t, "delete the template database, closed")
	var flags []string
	for _, d := range r.Diagnostics {
		if d.Summary == summaryFlagReset {
			flags = append(flags, d.Detail)
		}
	}
	if !strings.Contains(strings.Join(flags, "\n"), "IS_TEMPLATE false") {
		t.Errorf("no warning says IS_TEMPLATE was reset: %q", flags)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_database WHERE datname = $1`, db); n != 0 {
		t.Error("the declared delete left the database")
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, keeper); n != 0 {
		t.Errorf("the keeper %s outlived its database", keeper)
	}
}
