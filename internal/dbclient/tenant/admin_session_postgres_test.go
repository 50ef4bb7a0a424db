// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// pgEnv is a PostgreSQL fixture, or a skip.
func pgEnv(t *testing.T) *env {
	t.Helper()
	if !slices.Contains(engines, "postgres") {
		t.Skip("PostgreSQL only")
	}
	return newEnv(t, "postgres")
}

// hostileSettings is what a tenant owner may set on its database to turn
// the admin's sessions (issue 42; checked accepted from the owner on
// PostgreSQL 15): each would change what the admin's statements do.
func hostileSettings(db ddl.DatabaseName, owner ddl.Username, major int) []string {
	set := []string{
		"role = " + pgQuote(owner.String()),
		"search_path = public, pg_catalog",
		"default_transaction_read_only = on",
		"transaction_read_only = on",
		"default_transaction_isolation = serializable",
		"default_transaction_deferrable = on",
		"statement_timeout = 1",
		"idle_in_transaction_session_timeout = 1",
		"idle_session_timeout = 1",
		"exit_on_error = on",
		"local_preload_libraries = 'no_such_library'",
		"quote_all_identifiers = on",
		"transform_null_equals = on",
		"array_nulls = off",
		"default_tablespace = 'pg_default'",
		"temp_tablespaces = 'pg_default'",
		"check_function_bodies = off",
		"row_security = off",
		"client_encoding = 'SQL_ASCII'",
		"DateStyle = 'German'",
		"IntervalStyle = 'sql_standard'",
		"TimeZone = 'Asia/Tokyo'",
		"extra_float_digits = -15",
		"bytea_output = 'escape'",
	}
	if major >= 17 {
		set = append(set, "transaction_timeout = 1")
	}
	out := make([]string, len(set))
	for i, s := range set {
		out[i] = fmt.Sprintf("ALTER DATABASE %s SET %s", pgQuoteIdent(db.String()), s)
	}
	return out
}

func pgQuote(s string) string      { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func pgQuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TestAdminSession_pinsWinOverTheDatabase: with every hostile setting on the
// tenant's database, the admin's session there is its own: it runs as the
// admin, with every pinned value (read through the admin's own pool), and
// a grant (statements inside the database) succeeds.
func TestAdminSession_pinsWinOverTheDatabase(t *testing.T) {
	e := pgEnv(t)
	db, owner := e.newTenant("pin", "Pin-owner-1")
	grantee := e.plainLogin("ping", "Grantee1")
	e.super(hostileSettings(db, owner, e.s.info.Version.Major)...)

	got := map[string]string{}
	var currentUser, sessionUser, readOnly string
	err := e.s.sess.QueryIn(e.ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		if err := q.QueryRowContext(ctx, `SELECT current_user, session_user, pg_catalog.current_setting('transaction_read_only')`).Scan(
			&currentUser, &sessionUser, &readOnly); err != nil {
			return err
		}
		for _, p := range session.PGSessionPins {
			if p.Since > e.s.info.Version.Major || p.Name == "role" {
				continue
			}
			var v string
			if err := q.QueryRowContext(ctx, `SELECT pg_catalog.current_setting($1)`, p.Name).Scan(&v); err != nil {
				return err
			}
			got[p.Name] = v
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the admin's session inside %s: %v", db, err)
	}
	if currentUser != e.s.spec.Username || sessionUser != e.s.spec.Username {
		t.Errorf("the admin's session runs as %q (session %q), want %q", currentUser, sessionUser, e.s.spec.Username)
	}
	if readOnly != "off" {
		t.Errorf("the admin's transactions in the tenant's read-only database are read-only")
	}
	for _, p := range session.PGSessionPins {
		if v, ok := got[p.Name]; ok && v != p.Value {
			t.Errorf("%s is %q in the admin's session, want the pinned %q", p.Name, v, p.Value)
		}
	}
	if _, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT")); err != nil {
		t.Fatalf("a grant inside the database with every hostile setting: %v", err)
	}
}

// withoutPins runs the test as if the startup parameters never reached the
// server (a pooler that drops them): what the pins and the verification
// prevent is then visible.
func withoutPins(t *testing.T) {
	session.PinPostgresSessions = false
	t.Cleanup(func() { session.PinPostgresSessions = true })
}

// TestAdminSession_unpinnedSessionRunsNothing: a connection into a tenant
// database whose session is not the admin's as pinned (here: the owner's
// role from the database's settings) is refused before its first
// statement, terminally, naming what is wrong.
func TestAdminSession_unpinnedSessionRunsNothing(t *testing.T) {
	e := pgEnv(t)
	db, owner := e.newTenant("unp", "Pin-owner-1")
	e.super(fmt.Sprintf("ALTER DATABASE %s SET role = %s", pgQuoteIdent(db.String()), pgQuote(owner.String())))
	cfg, err := session.PgxSessionConfig(e.s.spec, db.String(), e.s.info.Version.Major)
	if err != nil {
		t.Fatal(err)
	}
	delete(cfg.RuntimeParams, "role") // what a pooler dropping it would do
	c, err := pgx.ConnectConfig(e.ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(e.ctx)
	err = session.VerifyAdminSession(e.ctx, c, e.s.spec.Username, db.String(), cfg.RuntimeParams, e.s.sess.ServerReadOnly)
	var np *session.SessionNotPinnedError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), fmt.Sprintf("runs as %q", owner)) || session.Classify(err) != connect.ClassTerminal {
		t.Fatalf("verification of a session running as the owner: %v (class %s), want a terminal refusal naming %s", err, session.Classify(err), owner)
	}
}

// TestAdminSession_readOnlySessionOnPrimaryIsTerminal: a statement refused
// with 25006 by a writable primary (the session was read-only from the
// database's setting; the pins are off, as behind a pooler that drops
// them) is a terminal error naming the setting and the fix, never
// PrimaryUnavailable, and it is not retried.
func TestAdminSession_readOnlySessionOnPrimaryIsTerminal(t *testing.T) {
	e := pgEnv(t)
	withoutPins(t)
	db, _ := e.newTenant("ro", "Pin-owner-1")
	grantee := e.plainLogin("rog", "Grantee1")
	e.super(fmt.Sprintf("ALTER DATABASE %s SET default_transaction_read_only = on", pgQuoteIdent(db.String())))
	start := time.Now()
	_, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT"))
	if err == nil {
		t.Fatal("a grant in a read-only session succeeded")
	}
	msg := err.Error()
	t.Logf("after %v: %v", time.Since(start), err)
	if r := ddl.ReasonOf(err); r == ddl.PrimaryUnavailable {
		t.Fatalf("a read-only session on a writable primary is reported as %s: %v", r, err)
	}
	if session.Classify(err) != connect.ClassTerminal {
		t.Errorf("classified %s, want terminal", session.Classify(err))
	}
	for _, want := range []string{"writable primary", "database " + db.String() + ": default_transaction_read_only=on", "RESET default_transaction_read_only"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
}

// TestAdminSession_detailAndHintReachTheError: a statement the server
// refuses with a DETAIL (DROP ROLE of a login that owns a table in another
// database says which database) reports it; a statement carrying a secret
// still withholds the server's message, DETAIL included.
func TestAdminSession_detailAndHintReachTheError(t *testing.T) {
	e := pgEnv(t)
	other, _ := e.newTenant("dh", "Pin-owner-1")
	// A login the admin made (PostgreSQL 16+ lets a CREATEROLE admin
	// manage only those), owning a table in another tenant's database.
	here, login := e.newTenant("dh", "Pin-owner-1")
	if _, err := e.superIn(other).ExecContext(e.ctx, fmt.Sprintf("CREATE TABLE public.kept (v int); ALTER TABLE public.kept OWNER TO %s",
		pgQuoteIdent(login.String()))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = e.superIn(other).ExecContext(context.Background(), "DROP TABLE public.kept") })
	err := e.s.Exec(e.ctx, e.s.dialect().DropLogin(here, login))
	if err == nil || !strings.Contains(err.Error(), "\nDETAIL: ") || !strings.Contains(err.Error(), other.String()) {
		t.Fatalf("DROP ROLE of a login owning a table in %s: %v, want the server's DETAIL naming the database", other, err)
	}
	t.Logf("%v", err)

	var secret ddl.Statement
	for _, st := range e.s.dialect().CreateOwner(here, login, mustPassword(t, "Secret-pw-1"), mustPrivileges(t, e.engine, "ALL PRIVILEGES")).Statements {
		if st.SQL() != st.String() {
			secret = st
		}
	}
	for _, c := range []struct {
		name   string
		st     ddl.Statement
		detail bool
	}{
		{"plain", ddl.ResetConnectionLimit(here), true},
		{"secret", secret, false},
	} {
		pe := &pgconn.PgError{Severity: "ERROR", Code: "2BP01", Message: "refused", Detail: "the detail", Hint: "the hint"}
		got := session.NewStatementError("s", c.st, pe).Error()
		has := strings.Contains(got, "DETAIL: the detail") && strings.Contains(got, "HINT: the hint")
		if has != c.detail || strings.Contains(got, "Secret-pw-1") {
			t.Errorf("%s statement: %q: DETAIL and HINT shown %v, want %v", c.name, got, has, c.detail)
		}
	}
	read := e.s.sess.ReadError("read something", fmt.Errorf("wrapped: %w", &pgconn.PgError{Message: "m", Detail: "d", Hint: "h"}))
	if !strings.Contains(read.Error(), "DETAIL: d") || !strings.Contains(read.Error(), "HINT: h") {
		t.Errorf("a read's error lacks DETAIL and HINT: %v", read)
	}
}

// TestAdminSession_verificationCost logs what verifying a tenant-database
// connection costs: one round trip (TestRoundTrips_postgresOwnerAndGrantCreate
// shows it in the grant's count) and its time, against the connection's own.
// Logged, never asserted: the machine is shared.
func TestAdminSession_verificationCost(t *testing.T) {
	e := pgEnv(t)
	db, _ := e.newTenant("vc", "Pin-owner-1")
	cfg, err := session.PgxSessionConfig(e.s.spec, db.String(), e.s.info.Version.Major)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	var connect, verify, ping []time.Duration
	for range n {
		start := time.Now()
		c, err := pgx.ConnectConfig(e.ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mid := time.Now()
		err = session.VerifyAdminSession(e.ctx, c, e.s.spec.Username, db.String(), cfg.RuntimeParams, e.s.sess.ServerReadOnly)
		verify = append(verify, time.Since(mid))
		connect = append(connect, mid.Sub(start))
		p := time.Now()
		if _, perr := c.Exec(e.ctx, "SELECT 1"); perr != nil {
			t.Fatal(perr)
		}
		ping = append(ping, time.Since(p))
		c.Close(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(connect)
	slices.Sort(verify)
	slices.Sort(ping)
	t.Logf("median of %d: connect (TCP, TLS, SCRAM, startup) %v; verification (1 round trip) %v; SELECT 1 %v",
		n, connect[n/2], verify[n/2], ping[n/2])
}

// TestAdminSession_connectionLimitOutsideOffboarding: a tenant database
// whose CONNECTION LIMIT 0 keeps the admin out is changed only by an
// offboarding. An ordinary apply (a grant's create) fails terminally
// naming the limit, not PrimaryUnavailable; a refresh reads what the
// catalog shows (the shallow read); the limit stays 0. Under Offboarding
// the same connection resets it to -1 and the notes say so.
func TestAdminSession_connectionLimitOutsideOffboarding(t *testing.T) {
	e := pgEnv(t)
	db, _ := e.newTenant("cl", "Pin-owner-1")
	grantee := e.plainLogin("clg", "Grantee1")
	e.super(fmt.Sprintf("ALTER DATABASE %s CONNECTION LIMIT 0", pgQuoteIdent(db.String())))
	limit := func() int {
		var n int
		if err := e.superDB().QueryRowContext(e.ctx, `SELECT datconnlimit FROM pg_database WHERE datname = $1`, db.String()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	start := time.Now()
	_, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT"))
	t.Logf("after %v: %v", time.Since(start), err)
	if err == nil || !strings.Contains(err.Error(), "CONNECTION LIMIT 0") || ddl.ReasonOf(err) == ddl.PrimaryUnavailable || session.Classify(err) != connect.ClassTerminal {
		t.Fatalf("a grant's create into a database with CONNECTION LIMIT 0: %v (class %s), want a terminal error naming the limit", err, session.Classify(err))
	}
	st, err := e.s.ReadGrant(e.ctx, db, grantee)
	if err != nil || !st.Shallow {
		t.Fatalf("a refresh of a grant in a database the admin cannot enter: %+v, %v; want the shallow read", st, err)
	}
	if n := limit(); n != 0 {
		t.Fatalf("a create and a refresh changed the limit to %d", n)
	}

	ctx, notes := session.Offboarding(e.ctx)
	if err := e.s.sess.QueryIn(ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT 1`).Scan(new(int))
	}); err != nil {
		t.Fatalf("an offboarding's connection: %v", err)
	}
	if r := notes.ConnectionLimitResets(); len(r) != 1 || r[0] != (session.ConnectionLimitReset{Database: db.String(), Limit: 0}) || limit() != -1 {
		t.Fatalf("after the offboarding's connection: resets %+v, limit %d; want one reset of 0, limit -1", r, limit())
	}
}

// TestAdminSession_ownerRevokedItsConnect: a tenant owner may revoke its
// own CONNECT on its database (PUBLIC has none since the create), and the
// admin enters the database through the owner, so that kept every
// offboarding out ("permission denied for database"), for good. Here it
// also closed the database (ALLOW_CONNECTIONS false, checked before
// CONNECT) and set CONNECTION LIMIT 0 (checked after). Outside an
// offboarding nothing is changed: a grant's create fails and the ACL
// stays. An offboarding gives the owner CONNECT again (the login is locked
// out by then), says so, and finishes: the keeper holds the database and
// may connect, the login is gone.
func TestAdminSession_ownerRevokedItsConnect(t *testing.T) {
	e := pgEnv(t)
	db, owner, id := e.claimTenant("rc", "Revoked-1")
	exec(t, e.mustOpenAs(owner.String(), "Revoked-1", db.String()),
		"CREATE TABLE kept (v int)", "INSERT INTO kept VALUES (1)",
		"REVOKE CONNECT ON DATABASE "+pgQuoteIdent(db.String())+" FROM CURRENT_USER")
	// The server checks these before CONNECT and after it: the tenant may
	// set all three, each met in turn.
	exec(t, e.mustOpenAs(owner.String(), "Revoked-1", "postgres"),
		"ALTER DATABASE "+pgQuoteIdent(db.String())+" ALLOW_CONNECTIONS false CONNECTION LIMIT 0")
	acl := func() string {
		var s string
		if err := e.superDB().QueryRowContext(e.ctx, `SELECT COALESCE(datacl::text, '') FROM pg_database WHERE datname = $1`, db.String()).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := acl()
	grantee := e.plainLogin("rcg", "Grantee1")
	if _, err := e.s.CreateGrant(e.ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT")); err == nil {
		t.Fatal("a grant's create entered a database whose owner revoked its own CONNECT")
	}
	if got := acl(); got != before {
		t.Fatalf("outside an offboarding the database's ACL changed: %s -> %s", before, got)
	}

	ctx, notes := session.Offboarding(e.ctx)
	if _, err := e.s.DropOwner(ctx, db, owner, id, nil); err != nil {
		t.Fatalf("DropOwner after the owner revoked its own CONNECT: %v", err)
	}
	want := []session.FlagReset{{Database: db.String(), Flag: "ALLOW_CONNECTIONS true"},
		{Database: db.String(), Flag: fmt.Sprintf("CONNECT on it granted to its owner %q again", owner.String())}}
	if r := notes.FlagResets(); !slices.Equal(r, want) {
		t.Errorf("the offboarding's flag notes: %+v, want %+v", r, want)
	}
	if r := notes.ConnectionLimitResets(); len(r) != 1 || r[0] != (session.ConnectionLimitReset{Database: db.String(), Limit: 0}) {
		t.Errorf("the offboarding's connection-limit notes: %+v, want one reset of 0", r)
	}
	keeper := ddl.KeeperName(db).String()
	var keeperMay bool
	if err := e.superDB().QueryRowContext(e.ctx, `SELECT has_database_privilege($2, oid, 'CONNECT') FROM pg_database WHERE datname = $1`,
		db.String(), keeper).Scan(&keeperMay); err != nil || !keeperMay {
		t.Errorf("the keeper may connect: %v (%v), want true (the owner's restored CONNECT follows the database); ACL %s", keeperMay, err, acl())
	}
	if owner := e.tableOwner(db, "kept"); owner != keeper {
		t.Errorf("kept owned by %q, want the keeper %q", owner, keeper)
	}
	if e.loginExists(owner) {
		t.Error("the login exists after its offboarding")
	}
}
