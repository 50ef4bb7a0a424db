// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// The escalation matrix of issue 53 (run by TestAccOffboard_keeperHoldsTenantCode
// after owner A's offboarding): every kind of tenant-written object that
// can run with its owner's rights, called by the declared grantee, by a
// login made later that holds nothing but CONNECT (what PUBLIC reaches),
// and, for what runs as the table's owner during maintenance, by the
// superuser (as autovacuum or a DBA would). Each payload tries what the
// admin (CREATEROLE, CREATEDB, administering every tenant owner) could do
// and the keeper cannot: make a role, set another tenant owner's password,
// grant that owner's role to the grantee, grant itself
// pg_execute_server_program and COPY … TO PROGRAM (the escalation found on
// PostgreSQL 15), create a database. The server is then read: no role or
// database made, pg_auth_members unchanged, the other owner's password
// unchanged, no file written; the payload's log shows it ran as the keeper
// (or as the caller), never as the admin; and what reaches tables with the
// owner's rights (a view's query, a rule's action) is refused the admin's
// table.
//
// The kinds and why they matter:
//   - SECURITY DEFINER function and procedure: run as their owner.
//   - view: its tables are read with the view owner's rights (security_invoker
//     is off by default on 15+); functions in it run as the caller unless
//     SECURITY DEFINER.
//   - rule: its actions reach tables with the rule's table owner's rights.
//   - trigger: its function runs as the writer, as its owner when SECURITY DEFINER.
//   - column default, row-level security policy: expressions run as the
//     writer, so a SECURITY DEFINER function in them runs as its owner.
//   - expression index, materialized view: ANALYZE (autovacuum's too),
//     VACUUM, REINDEX and REFRESH run them as the table's owner, whoever
//     starts them.
//   - Operators, casts, domain checks and aggregates run functions the same
//     way as defaults (covered by the SECURITY DEFINER function).
//   - Event triggers are not reachable: only a superuser makes one.
//   - Foreign data wrappers and servers need a superuser or an extension
//     the admin installs.

// escalationSetup is what owner A writes before its offboarding: the
// payload esc (SECURITY INVOKER: it runs as whoever current_user is, and
// logs it with session_user into public.ran), esc_def (SECURITY DEFINER,
// calling it), and one object of each kind. adm.admin_only, owned by the
// admin, stands for anything the admin can reach and the tenant cannot.
func escalationSetup(victim, made, madeDB, reader, file string) []string {
	acts := []string{
		pgLit(`CREATE ROLE "` + made + `" LOGIN CREATEROLE CREATEDB`),
		pgLit(`ALTER ROLE "` + victim + `" PASSWORD 'Stolen-pw-1'`),
		pgLit(`GRANT "` + victim + `" TO "` + reader + `"`),
		`pg_catalog.format('GRANT pg_execute_server_program TO %I', current_user)`,
		pgLit(`COPY (SELECT 1) TO PROGRAM 'touch ` + file + `'`),
		pgLit(`CREATE DATABASE "` + madeDB + `"`), // 25001 in any function, whatever the rights
	}
	return []string{
		"CREATE TABLE public.ran (tag text, who text, login text, act text, outcome text)",
		`CREATE FUNCTION public.esc(tag text) RETURNS int LANGUAGE plpgsql AS $f$
DECLARE a text; r text;
BEGIN
  FOREACH a IN ARRAY ARRAY[` + strings.Join(acts, ", ") + `] LOOP
    BEGIN EXECUTE a; r := 'done'; EXCEPTION WHEN OTHERS THEN r := SQLSTATE; END;
    INSERT INTO public.ran VALUES (tag, current_user, session_user, a, r);
  END LOOP;
  RETURN 0;
END$f$`,
		"CREATE FUNCTION public.esc_def(tag text) RETURNS int SECURITY DEFINER LANGUAGE plpgsql AS $$BEGIN RETURN public.esc(tag); END$$",
		"CREATE PROCEDURE public.esc_proc() SECURITY DEFINER LANGUAGE plpgsql AS $$BEGIN PERFORM public.esc('procedure'); END$$",
		"CREATE VIEW public.v_call AS SELECT public.esc('view') AS n",
		"CREATE VIEW public.v_peek AS SELECT v FROM adm.admin_only",
		"CREATE TABLE public.inbox (v text)",
		"CREATE RULE r_esc AS ON INSERT TO public.inbox DO ALSO INSERT INTO adm.admin_only VALUES (current_user)",
		"CREATE TABLE public.trig (v int)",
		"CREATE FUNCTION public.trig_fn() RETURNS trigger SECURITY DEFINER LANGUAGE plpgsql AS $$BEGIN PERFORM public.esc('trigger'); RETURN NEW; END$$",
		"CREATE TRIGGER t_esc BEFORE INSERT ON public.trig FOR EACH ROW EXECUTE FUNCTION public.trig_fn()",
		"CREATE TABLE public.dflt (v int, x int DEFAULT public.esc_def('default'))",
		"CREATE TABLE public.rls (v int)",
		"ALTER TABLE public.rls ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY p_esc ON public.rls USING (true) WITH CHECK (public.esc_def('policy') = 0)",
		// IMMUTABLE, as an index needs; the volatile payload it calls may write.
		"CREATE FUNCTION public.idx_fn(v int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$BEGIN PERFORM public.esc('index'); RETURN v; END$$",
		"CREATE TABLE public.idx (v int)",
		"CREATE INDEX idx_esc ON public.idx (public.idx_fn(v))",
		"CREATE MATERIALIZED VIEW public.mv AS SELECT public.esc('matview') AS n WITH NO DATA",
	}
}

// escalation is one call of the matrix and what it must come to, for the
// declared grantee and for the login that holds only CONNECT:
// "keeper" (the payload ran, as the keeper), "caller" (it ran as the
// caller itself), or "denied" (refused, SQLSTATE 42501, naming deniedOn
// for the grantee: the admin's table the keeper may not reach).
type escalation struct {
	tag, call       string
	grantee, public string
	deniedOn        string
}

var escalations = []escalation{
	{tag: "definer", call: "SELECT public.esc_def('definer')", grantee: "keeper", public: "keeper"},
	{tag: "procedure", call: "CALL public.esc_proc()", grantee: "keeper", public: "keeper"},
	{tag: "view", call: "SELECT n FROM public.v_call", grantee: "caller", public: "denied"},
	{tag: "view_table", call: "SELECT v FROM public.v_peek", grantee: "denied", public: "denied", deniedOn: "admin_only"},
	{tag: "rule", call: "INSERT INTO public.inbox VALUES ('x')", grantee: "denied", public: "denied", deniedOn: "admin_only"},
	{tag: "trigger", call: "INSERT INTO public.trig VALUES (1)", grantee: "keeper", public: "denied"},
	{tag: "default", call: "INSERT INTO public.dflt (v) VALUES (1)", grantee: "keeper", public: "denied"},
	{tag: "policy", call: "INSERT INTO public.rls VALUES (1)", grantee: "keeper", public: "denied"},
	{tag: "index", call: "INSERT INTO public.idx VALUES (1)", grantee: "caller", public: "denied"},
	{tag: "matview", call: "REFRESH MATERIALIZED VIEW public.mv", grantee: "denied", public: "denied"},
}

// escalationNames are the roles and objects of one matrix run.
type escalationNames struct {
	db, keeper, reader, public, victim, made, madeDB, file string
}

// prepareEscalation runs before owner A writes escalationSetup: the
// admin's schema and table in db, and victim, another tenant's owner as
// the admin makes one (so the admin administers it).
func (s accServer) prepareEscalation(t *testing.T, n escalationNames) {
	t.Helper()
	admin := s.ident(s.Admin.Username)
	s.exec(t, n.db, "CREATE SCHEMA adm AUTHORIZATION "+admin, "GRANT USAGE ON SCHEMA adm TO PUBLIC",
		"CREATE TABLE adm.admin_only (v text)", "ALTER TABLE adm.admin_only OWNER TO "+admin)
	if err := s.as(s.Admin.Username, s.Admin.Password, "postgres",
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD 'Victim-pw-1'", s.ident(n.victim))); err != nil {
		t.Fatal(err)
	}
}

// checkEscalations runs the matrix after the offboarding and reads the server.
func (s accServer) checkEscalations(t *testing.T, n escalationNames) {
	t.Helper()
	roles := strings.Join([]string{pgLit(s.Admin.Username), pgLit(n.keeper), pgLit(n.reader), pgLit(n.public), pgLit(n.victim)}, ", ")
	memberships := func() []string {
		return s.superStringsIn(t, "", `SELECT pg_get_userbyid(roleid)::text || ' > ' || pg_get_userbyid(member)::text || ' admin ' || admin_option::text
FROM pg_auth_members WHERE roleid IN (SELECT oid FROM pg_roles WHERE rolname IN (`+roles+`))
   OR member IN (SELECT oid FROM pg_roles WHERE rolname IN (`+roles+`)) ORDER BY 1`)
	}
	password := func() string {
		return strings.Join(s.superStringsIn(t, "", `SELECT coalesce(rolpassword, '') FROM pg_authid WHERE rolname = $1`, n.victim), "")
	}
	s.exec(t, "", fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", s.ident(n.public), principalPW),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", s.ident(n.db), s.ident(n.public)))
	membersBefore, pwBefore := memberships(), password()
	if pwBefore == "" {
		t.Fatalf("no password read for %s: the comparison would prove nothing", n.victim)
	}

	for _, e := range escalations {
		for _, c := range []struct{ login, want string }{{n.reader, e.grantee}, {n.public, e.public}} {
			err := s.as(c.login, principalPW, n.db, e.call)
			switch c.want {
			case "denied":
				if err == nil || !strings.Contains(err.Error(), "42501") {
					t.Errorf("%s called by %s: %v, want permission denied (42501)", e.tag, c.login, err)
				} else if c.login == n.reader && e.deniedOn != "" && !strings.Contains(err.Error(), e.deniedOn) {
					t.Errorf("%s called by the grantee: %v, want the keeper refused %s", e.tag, err, e.deniedOn)
				}
			default:
				if err != nil {
					t.Errorf("%s called by %s: %v", e.tag, c.login, err)
				}
				want := n.keeper
				if c.want == "caller" {
					want = c.login
				}
				s.checkRan(t, n.db, e.tag, c.login, want)
			}
		}
	}
	// Maintenance runs the index expression and the materialized view's
	// query as the table's owner, whoever starts it (here the superuser,
	// as autovacuum does): the keeper.
	super := strings.Join(s.superStringsIn(t, n.db, "SELECT session_user::text"), "")
	s.exec(t, n.db, "ANALYZE public.idx", "REFRESH MATERIALIZED VIEW public.mv")
	s.checkRan(t, n.db, "index", super, n.keeper)
	s.checkRan(t, n.db, "matview", super, n.keeper)

	// The server: nothing any of it tried was done.
	if done := s.superStringsIn(t, n.db, `SELECT tag || ' as ' || who || ': ' || act FROM public.ran WHERE outcome = 'done'`); len(done) > 0 {
		t.Errorf("tenant code did what the keeper may not: %q", done)
	}
	if k := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, n.made); k != 0 {
		t.Errorf("tenant code made role %s", n.made)
	}
	if k := s.count(t, "", `SELECT count(*) FROM pg_database WHERE datname = $1`, n.madeDB); k != 0 {
		t.Errorf("tenant code made database %s", n.madeDB)
	}
	if got := memberships(); strings.Join(got, "\n") != strings.Join(membersBefore, "\n") {
		t.Errorf("role memberships changed:\nbefore %q\nafter  %q", membersBefore, got)
	}
	if password() != pwBefore {
		t.Errorf("tenant code changed the password of %s, another tenant's owner", n.victim)
	}
	// Meaningful with the local backend (the server's /tmp is ours).
	if _, err := os.Stat(n.file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("COPY … TO PROGRAM wrote %s (stat: %v)", n.file, err)
	}
}

// checkRan asserts the payload ran for tag from login's session, every
// act of it as want, none done.
func (s accServer) checkRan(t *testing.T, db, tag, login, want string) {
	t.Helper()
	got := s.superStringsIn(t, db, `SELECT who || ' ' || outcome FROM public.ran WHERE tag = $1 AND login = $2`, tag, login)
	if len(got) == 0 {
		t.Errorf("%s from %s: the payload did not run (nothing logged): the check would prove nothing", tag, login)
	}
	for _, g := range got {
		who, outcome, _ := strings.Cut(g, " ")
		if who != want || outcome == "done" {
			t.Errorf("%s from %s: an act ran as %s with outcome %s, want as %s and refused", tag, login, who, outcome, want)
		}
	}
}

// pgLit is a PostgreSQL string literal.
func pgLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
