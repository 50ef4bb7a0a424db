// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The admin's PostgreSQL sessions are tenantdb's (DESIGN.md, "Trust
// boundaries"). A tenant owner owns its database, so it may
// `ALTER DATABASE <db> SET <parameter>` for any user-settable parameter, set
// its CONNECTION LIMIT, and create schemas, functions and operators in it.
// The database's settings apply to every session into it that does not set
// the parameter itself, the admin's too (FACTS.md, 2026-12-03). This file is
// the one place that decides what such a session is:
//
//   - every parameter below is sent as a startup parameter on every
//     connection (a client's startup parameter wins over ALTER DATABASE SET,
//     ALTER ROLE SET and postgresql.conf);
//   - a connection into a tenant database is verified before its first
//     statement (verifyAdminSession, one round trip per connection): the
//     session's user is the admin (current_user = session_user = the admin)
//     and every pinned parameter holds the pinned value; otherwise the
//     connection is closed and nothing runs on it;
//   - default_transaction_read_only is the one parameter not pinned: `on`
//     server-wide (postgresql.conf, ALTER SYSTEM, the admin's role) is the
//     operator's "no writes now" (a platform sets it on a full disk), which
//     tenantdb respects (PrimaryUnavailable, retried). Only where the
//     tenant's database sets it and the server does not, the verification
//     turns it off for that session (one more round trip, only then);
//   - a database whose CONNECTION LIMIT keeps the admin out is reset, only
//     while offboarding, and the reset is reported (tenantConnector);
//   - a read-only session on a writable primary (SQLSTATE 25006 while
//     pg_is_in_recovery() is false and writes are on server-wide) is a
//     terminal error naming the setting, not PrimaryUnavailable
//     (judgeReadOnly);
//   - the catalog reads that run inside a tenant database (pgGrantQuery,
//     defaultACLs) call functions by their pg_catalog. names; relations,
//     operators, casts and types there resolve under the pinned and
//     verified search_path, where pg_catalog comes first and no schema a
//     tenant can create appears. The maintenance database has no tenant
//     schema (tenants own nothing there).
//
// Not pinned: synchronous_commit (pinning it would override a stronger
// server-wide remote_apply; a tenant's `off` can lose the admin's last
// statements in its database on a server crash, which the next refresh
// reads back) and the planner's settings (enable_*, work_mem, jit: they
// change how fast, never what).

// pgSessionPin is one run-time parameter every admin session sets at connect.
type pgSessionPin struct {
	Name, Value string
	// since is the first major version that knows the parameter: a startup
	// parameter the server does not know fails the connection (FATAL
	// 42704), so it is sent only once the server's version is known (the
	// maintenance pool's first connection detects it; tenants cannot set
	// anything on the maintenance database).
	Since int
}

// pgSessionPins, with why each one matters. lock_timeout and
// application_name are set from the provider's settings (Spec.pgxConfig).
var PGSessionPins = []pgSessionPin{
	// A database's `SET role = '<owner>'` ran the admin's statements as the
	// tenant's owner (the admin is a member of it): REASSIGN OWNED BY owner
	// TO CURRENT_USER then reassigned to the owner itself and DROP OWNED
	// dropped the tenant's tables (issue 42, item 1). none: current_user is
	// the admin, the session user.
	{"role", "none", 0},
	// A database's search_path resolved the admin's unqualified functions
	// and operators (current_database(), pg_get_userbyid, = on name) to the
	// tenant's own, run as the admin (issue 42, item 2). pg_catalog first:
	// the built-ins win; pg_temp last: the admin's own temporary schema,
	// which only this session can write and which is never searched for
	// functions or operators. No schema a tenant can create is on the path.
	{"search_path", "pg_catalog, pg_temp", 0},
	// The statements and their read-backs are written for read committed:
	// serializable adds serialization failures, repeatable read would show
	// a read-back inside a transaction its first snapshot.
	{"default_transaction_isolation", "read committed", 0},
	{"default_transaction_deferrable", "off", 0},
	// The provider's own operation timeout governs (a cancel request at
	// the deadline); a tenant's statement_timeout = 1 cancelled every
	// statement, the tenant's offboarding included.
	{"statement_timeout", "0", 0},
	// These end the admin's session between statements: a transaction's
	// connection (its outcome then unknown), the connection holding a
	// tenant's advisory lock, or an idle pooled one.
	{"idle_in_transaction_session_timeout", "0", 0},
	{"idle_session_timeout", "0", 0},
	{"transaction_timeout", "0", 17},
	// on ends the session at any error, a tolerated "does not exist"
	// included: a tolerated failure would become a lost connection.
	{"exit_on_error", "off", 0},
	// A library a database names is loaded into every session at connect;
	// one that does not exist fails every connection (checked: the admin
	// could then neither read nor offboard the tenant).
	{"local_preload_libraries", "", 0},
	// What statements mean: quote_ident and format('%I') output that the
	// admin reads, `= NULL`, NULL in array literals, a backslash in '...'
	// (every literal tenantdb renders assumes standard_conforming_strings).
	{"quote_all_identifiers", "off", 0},
	{"transform_null_equals", "off", 0},
	{"array_nulls", "on", 0},
	{"standard_conforming_strings", "on", 0},
	// Where what the admin makes goes, and whether it checks: a tenant's
	// tablespace the admin may not use would fail its statements.
	{"default_tablespace", "", 0},
	{"temp_tablespaces", "", 0},
	{"check_function_bodies", "on", 0},
	{"row_security", "on", 0},
	// What the driver reads back: names as UTF-8, dates, intervals,
	// numbers and bytes in the formats it parses.
	{"client_encoding", "UTF8", 0},
	{"DateStyle", "ISO, MDY", 0},
	{"IntervalStyle", "postgres", 0},
	{"TimeZone", "UTC", 0},
	{"extra_float_digits", "3", 0},
	{"bytea_output", "hex", 0},
}

// PinPostgresSessions is off only in tests that reproduce what an unpinned
// session does (a pooler that drops startup parameters).
var PinPostgresSessions = true

// VerifyTenantSessions is off only in BenchmarkGrantRefreshPG100's
// "unverified" variant, which measures what the check costs.
var VerifyTenantSessions = true

// pinSession sets the pinned parameters in params for a server of major
// version major (0: not known yet). lockTimeout is the provider's.
func pinSession(params map[string]string, major int, lockTimeoutMS int64) {
	params["application_name"] = "tenantdb"
	// Every statement waits for a lock at most lock_timeout. The advisory
	// lock that serialises a tenant's operations waits longer (lockOn).
	params["lock_timeout"] = strconv.FormatInt(lockTimeoutMS, 10)
	for k, v := range ddl.PostgresRuntimeParams {
		params[k] = v
	}
	if !PinPostgresSessions {
		return
	}
	for _, p := range PGSessionPins {
		if p.Since == 0 || (major > 0 && major >= p.Since) {
			params[p.Name] = p.Value
		}
	}
}

// adminSessionQuery reads who the session is, its isolation and read-only
// defaults, and the value of each parameter named in $1. It runs before
// anything else on a connection into a tenant database, so nothing in it
// may resolve through the session's search_path, which is not trusted yet:
// functions and types are qualified, current_user and session_user are
// keywords. (pg_settings would also say where each value came from, but
// reading it builds every setting: 1.3 ms on the server against 0.1 ms.)
const adminSessionQuery = `SELECT session_user, current_user, pg_catalog.current_setting('transaction_isolation'),
  pg_catalog.current_setting('default_transaction_read_only'), n.name, pg_catalog.current_setting(n.name)
FROM pg_catalog.unnest($1::pg_catalog.text[]) AS n(name)`

// VerifyAdminSession checks a new connection into a tenant database before
// its first statement, in one round trip: the admin is both session and
// current user, every parameter sent is in force (a pooler or proxy that
// drops startup parameters is caught here), and its transactions are read
// committed. A session made read-only while the server is not (so by the
// database's settings: serverReadOnly reads the server-wide value) is
// turned read-write, in one more round trip, only then.
func VerifyAdminSession(ctx context.Context, c *pgx.Conn, admin, database string, want map[string]string,
	serverReadOnly func(context.Context) (bool, error)) error {
	var names []string
	for name := range want {
		if name != "role" { // not a setting current_setting reads the same way: current_user below
			names = append(names, name)
		}
	}
	rows, err := c.Query(ctx, adminSessionQuery, pgx.QueryExecModeExec, names)
	if err != nil {
		return err
	}
	got := map[string]string{}
	var sessionUser, currentUser, isolation, readOnly string
	for rows.Next() {
		var name, setting string
		if err := rows.Scan(&sessionUser, &currentUser, &isolation, &readOnly, &name, &setting); err != nil {
			rows.Close()
			return err
		}
		got[name] = setting
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var wrong []string
	if sessionUser != admin || currentUser != admin {
		wrong = append(wrong, fmt.Sprintf("the session runs as %q (session user %q), not as the admin %q", currentUser, sessionUser, admin))
	}
	if readOnly == "on" && len(wrong) == 0 {
		// Read-only here but not server-wide: the tenant's database
		// made it so (ALTER DATABASE … SET). A read-only server is
		// respected: its statements fail as PrimaryUnavailable.
		server, err := serverReadOnly(ctx)
		if err != nil {
			return err
		}
		if !server {
			if _, err := c.Exec(ctx, ddl.PostgresSessionReadWrite, pgx.QueryExecModeSimpleProtocol); err != nil {
				return err
			}
		}
	}
	if isolation != "read committed" {
		wrong = append(wrong, fmt.Sprintf("its transactions are %s, not read committed", isolation))
	}
	for _, name := range names {
		value := want[name]
		if name == "lock_timeout" {
			value = pgDisplayMS(value)
		}
		if v := got[name]; v != value {
			wrong = append(wrong, fmt.Sprintf("%s is %q, not %q", name, v, value))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	return &SessionNotPinnedError{database: database, wrong: wrong}
}

// sessionNotPinnedError: a connection into a tenant database that is not
// the admin's as tenantdb set it up. Nothing ran on it; retrying cannot
// help.
type SessionNotPinnedError struct {
	database string
	wrong    []string
}

func (e *SessionNotPinnedError) Error() string {
	return fmt.Sprintf("the admin's session in database %q is not as tenantdb set it up, so nothing was run on it: %s. "+
		"tenantdb sends these parameters when it connects; something between it and the server (a connection pooler "+
		"or proxy) dropped or replaced them. Connect tenantdb to the server directly, or configure the pooler to pass "+
		"startup parameters through", e.database, strings.Join(e.wrong, "; "))
}

func (e *SessionNotPinnedError) Verdict() connect.ErrClass { return connect.ClassTerminal }

// Offboarding marks ctx as an offboarding: an owner's or a grant's destroy.
// Only then may tenantdb change what the tenant set on its database where
// it keeps the admin out (its CONNECTION LIMIT); the returned notes say what
// was changed, for the caller to report.
func Offboarding(ctx context.Context) (context.Context, *OffboardNotes) {
	n := &OffboardNotes{}
	return context.WithValue(ctx, offboardingKey{}, n), n
}

type offboardingKey struct{}

// OffboardNotes collects what an offboarding reset.
type OffboardNotes struct {
	mu      sync.Mutex
	resets  []ConnectionLimitReset
	flags   []FlagReset
	skips   []string
	removed []string
}

// Removed lists what an offboarding removed in other databases (the
// login's large objects, default privileges and privileges there).
func (n *OffboardNotes) Removed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.removed...)
}

// FlagReset is a database flag the tenant set (ALLOW_CONNECTIONS false,
// IS_TEMPLATE true) that kept an offboarding or a declared delete from its
// work, reset.
type FlagReset struct {
	Database string
	Flag     string // as set now, e.g. "ALLOW_CONNECTIONS true"
}

// FlagResets lists the flags reset, in order.
func (n *OffboardNotes) FlagResets() []FlagReset {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]FlagReset(nil), n.flags...)
}

// Skipped lists what an offboarding left alone, with why (another
// tenant's closed database).
func (n *OffboardNotes) Skipped() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.skips...)
}

// NoteSkip records, when ctx is an offboarding, what it left alone.
func NoteSkip(ctx context.Context, what string) {
	if n, _ := ctx.Value(offboardingKey{}).(*OffboardNotes); n != nil {
		n.mu.Lock()
		n.skips = append(n.skips, what)
		n.mu.Unlock()
	}
}

// ResetFlags resets, only when ctx is an offboarding or a declared delete,
// the flags of db that block it (allowConn: ALLOW_CONNECTIONS false is
// reset; template: IS_TEMPLATE true is), and records each. Outside one,
// nothing is changed.
func (s *Session) ResetFlags(ctx context.Context, db ddl.DatabaseName, allowConn, template bool) (bool, error) {
	n, _ := ctx.Value(offboardingKey{}).(*OffboardNotes)
	if n == nil || s.info.Flavor != ddl.FlavorPostgres {
		return false, nil
	}
	var closed, isTemplate bool
	err := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		return q.QueryRowContext(ctx, `SELECT NOT datallowconn, datistemplate FROM pg_catalog.pg_database WHERE datname = $1`,
			db.String()).Scan(&closed, &isTemplate)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.ReadError("read the flags of database "+db.String(), err)
	}
	var reset []ddl.Statement
	var flags []string
	if allowConn && closed {
		reset, flags = append(reset, ddl.ResetAllowConnections(db)), append(flags, "ALLOW_CONNECTIONS true")
	}
	if template && isTemplate {
		reset, flags = append(reset, ddl.ResetIsTemplate(db)), append(flags, "IS_TEMPLATE false")
	}
	for i, st := range reset {
		if err := s.execOne(ctx, st); err != nil {
			return false, err
		}
		n.mu.Lock()
		n.flags = append(n.flags, FlagReset{Database: db.String(), Flag: flags[i]})
		n.mu.Unlock()
	}
	return len(reset) > 0, nil
}

// restoreOwnerConnect gives db's owner CONNECT on it again, only when ctx
// is an offboarding (or a declared delete), the admin may not connect to
// db and neither may its owner (a tenant revoked its own), and records it.
// It reports whether it did.
func (s *Session) restoreOwnerConnect(ctx context.Context, db ddl.DatabaseName) (bool, error) {
	n, _ := ctx.Value(offboardingKey{}).(*OffboardNotes)
	if n == nil || s.info.Flavor != ddl.FlavorPostgres {
		return false, nil
	}
	var owner string
	var adminMay, ownerMay bool
	err := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		return q.QueryRowContext(ctx, `SELECT pg_catalog.pg_get_userbyid(datdba)::text,
       pg_catalog.has_database_privilege(CURRENT_USER, oid, 'CONNECT'), pg_catalog.has_database_privilege(datdba, oid, 'CONNECT')
FROM pg_catalog.pg_database WHERE datname = $1`, db.String()).Scan(&owner, &adminMay, &ownerMay)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.ReadError("read who may connect to database "+db.String(), err)
	}
	if adminMay || ownerMay {
		return false, nil
	}
	role, err := ddl.NewRoleName(owner)
	if err != nil {
		return false, nil //nolint:nilerr // not a role name the server can hold: keep the server's error
	}
	if err := s.execOne(ctx, ddl.RestoreOwnerConnect(db, role)); err != nil {
		return false, err
	}
	n.mu.Lock()
	n.flags = append(n.flags, FlagReset{Database: db.String(), Flag: fmt.Sprintf("CONNECT on it granted to its owner %q again", owner)})
	n.mu.Unlock()
	return true, nil
}

// ConnectionLimitReset is a database's CONNECTION LIMIT that kept the admin
// out, set back to -1 (no limit).
type ConnectionLimitReset struct {
	Database string
	Limit    int
}

// ConnectionLimitResets lists the limits reset, in order.
func (n *OffboardNotes) ConnectionLimitResets() []ConnectionLimitReset {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]ConnectionLimitReset(nil), n.resets...)
}

// tenantConnector opens the connections into one tenant database. When the
// server refuses one because the database's CONNECTION LIMIT is reached
// (SQLSTATE 53300, told apart from the admin's role limit and the server's
// max_connections by reading the limit), an offboarding resets the limit
// from the maintenance database and connects again; anything else gets a
// terminal error that names the limit (not PrimaryUnavailable, which would
// send the user looking at the wrong server). The reset happens only when
// the limit is what blocks, so a database whose limit leaves room is never
// changed.
type tenantConnector struct {
	driver.Connector
	s        *Session
	database string
}

func (c tenantConnector) Connect(ctx context.Context) (driver.Conn, error) {
	// The server checks ALLOW_CONNECTIONS, then the CONNECT privilege, then
	// the CONNECTION LIMIT, and a tenant may have set all three: each
	// refusal is cleared in turn (when it may be) and the connection tried
	// again.
	for range 3 {
		conn, err := c.Connector.Connect(ctx)
		if err == nil {
			return conn, nil
		}
		cleared, cerr := c.clear(ctx, err)
		if cerr != nil {
			return nil, cerr
		}
		if !cleared {
			return nil, err
		}
	}
	return c.Connector.Connect(ctx)
}

// clear clears what refused a connection into the database when an
// offboarding may: it reports whether it did, or the error to return
// instead of the server's (a CONNECTION LIMIT outside an offboarding, a
// failed reset).
func (c tenantConnector) clear(ctx context.Context, refused error) (bool, error) {
	switch CodeOf(refused) {
	case "pg:55000":
		// ALLOW_CONNECTIONS false (the owner may set it): an offboarding
		// opens the database again (ResetFlags reads that it is what
		// blocks); anything else keeps the server's error.
		db, err := ddl.NewCatalogDatabaseName(c.database)
		if err != nil {
			return false, nil //nolint:nilerr // not a name tenantdb makes: keep the server's error
		}
		reset, err := c.s.ResetFlags(ctx, db, true, false)
		return err == nil && reset, nil
	case "pg:42501":
		// No CONNECT privilege (its owner may revoke its own): an
		// offboarding gives it back to the owner (restoreOwnerConnect
		// reads that it is what blocks).
		db, err := ddl.NewCatalogDatabaseName(c.database)
		if err != nil {
			return false, nil //nolint:nilerr // not a name tenantdb makes: keep the server's error
		}
		return c.s.restoreOwnerConnect(ctx, db)
	case "pg:53300":
		return c.liftConnectionLimit(ctx)
	}
	return false, nil
}

// liftConnectionLimit: a connection refused for too many sessions, when
// the database's CONNECTION LIMIT is what is reached (not the admin's role
// limit or max_connections), is let in by an offboarding, which sets the
// limit to -1 and records it; outside one the error names the limit.
func (c tenantConnector) liftConnectionLimit(ctx context.Context) (bool, error) {
	limit, hit, err := c.s.connectionLimitHit(ctx, c.database)
	if err != nil || !hit {
		return false, nil //nolint:nilerr // unread or not the database's limit: keep the server's error
	}
	notes, _ := ctx.Value(offboardingKey{}).(*OffboardNotes)
	db, nerr := ddl.NewDatabaseName(ddl.EnginePostgres, c.database)
	if notes == nil || nerr != nil {
		return false, &connectionLimitError{database: c.database, limit: limit}
	}
	if err := c.s.execOne(ctx, ddl.ResetConnectionLimit(db)); err != nil {
		return false, err
	}
	notes.mu.Lock()
	notes.resets = append(notes.resets, ConnectionLimitReset{Database: c.database, Limit: limit})
	notes.mu.Unlock()
	return true, nil
}

// connectionLimitHit reads whether database's CONNECTION LIMIT is what
// refused a connection: a limit is set and as many sessions are in.
func (s *Session) connectionLimitHit(ctx context.Context, database string) (limit int, hit bool, err error) {
	var in int
	err = s.Query(ctx, func(ctx context.Context, q Queryer) error {
		return q.QueryRowContext(ctx, `SELECT d.datconnlimit, COALESCE((SELECT s.numbackends FROM pg_stat_database s
  WHERE s.datid = d.oid), 0) FROM pg_database d WHERE d.datname = $1`, database).Scan(&limit, &in)
	})
	return limit, err == nil && limit >= 0 && in >= limit, err
}

// connectionLimitError: the database's CONNECTION LIMIT keeps the admin out
// of it outside an offboarding.
type connectionLimitError struct {
	database string
	limit    int
}

func (e *connectionLimitError) Error() string {
	return fmt.Sprintf("database %q has CONNECTION LIMIT %d, which its sessions have reached, so the admin cannot connect to it. "+
		"Its owner or a superuser can raise it (ALTER DATABASE ... CONNECTION LIMIT); removing the database's owner or "+
		"grant from the configuration resets it to -1 and says so", e.database, e.limit)
}

func (e *connectionLimitError) Verdict() connect.ErrClass { return connect.ClassTerminal }

// IsConnectionLimit reports an error from a database's CONNECTION LIMIT.
func IsConnectionLimit(err error) bool {
	var e *connectionLimitError
	return errors.As(err, &e)
}

// judgeReadOnly tells a read-only session from a read-only server when a
// statement fails with 25006 (read_only_sql_transaction): on a standby or
// during a failover (pg_is_in_recovery() true), or with writes off
// server-wide (default_transaction_read_only = on in the maintenance
// database's admin session: postgresql.conf, ALTER SYSTEM, the admin's
// role), it is transient and retried, as before; on a writable primary the
// session itself was made read-only, which retrying cannot change, so it
// is terminal and names the settings that can do it. Any other error is
// returned as it is.
func (s *Session) judgeReadOnly(ctx context.Context, database string, err error) error {
	if CodeOf(err) != "pg:25006" {
		return err
	}
	var server bool
	var settings string
	qerr := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		return q.QueryRowContext(ctx, readOnlySettingsQuery, database).Scan(&server, &settings)
	})
	if qerr != nil || server {
		return err
	}
	return &readOnlySessionError{database: database, settings: settings, err: err}
}

// readOnlySettingsQuery, in the maintenance database: whether the server
// is read-only (in recovery, or writes off for the admin's sessions there),
// and the database and role settings that make a session of the admin's
// in database $1 read-only.
const readOnlySettingsQuery = `SELECT pg_catalog.pg_is_in_recovery() OR pg_catalog.current_setting('default_transaction_read_only') = 'on', COALESCE(pg_catalog.string_agg(
  CASE WHEN s.setdatabase = 0 THEN 'every database' ELSE 'database ' || pg_catalog.quote_ident(d.datname) END ||
  CASE WHEN s.setrole = 0 THEN '' ELSE ' for role ' || pg_catalog.quote_ident(r.rolname) END || ': ' || c.setting, '; '), '')
FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase LEFT JOIN pg_roles r ON r.oid = s.setrole,
  pg_catalog.unnest(s.setconfig) c(setting)
WHERE (s.setdatabase = 0 OR d.datname = $1) AND (s.setrole = 0 OR r.rolname = session_user)
  AND pg_catalog.split_part(c.setting, '=', 1) IN ('default_transaction_read_only', 'transaction_read_only')`

// readOnlySessionError: a statement refused as read-only by a writable
// primary.
type readOnlySessionError struct {
	database, settings string
	err                error
}

func (e *readOnlySessionError) Error() string {
	where := "the maintenance database"
	if e.database != "" {
		where = fmt.Sprintf("database %q", e.database)
	}
	found := "no database or role setting says so; a connection pooler or proxy may have set it"
	if e.settings != "" {
		found = "set by " + e.settings
	}
	return fmt.Sprintf("%s. The server is a writable primary (pg_is_in_recovery() is false, and writes are on server-wide), but the admin's session in %s "+
		"was read-only (%s). Retrying cannot help: reset the setting (ALTER DATABASE ... RESET "+
		"default_transaction_read_only, as the database's owner or a superuser), then apply again",
		e.err.Error(), where, found)
}

func (e *readOnlySessionError) Unwrap() error             { return e.err }
func (e *readOnlySessionError) Verdict() connect.ErrClass { return connect.ClassTerminal }

// ServerReadOnly reads whether the admin's sessions are read-only
// server-wide: the maintenance database's session does not pin
// default_transaction_read_only, and tenants set nothing there.
func (s *Session) ServerReadOnly(ctx context.Context) (bool, error) {
	var on bool
	err := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		return q.QueryRowContext(ctx, `SELECT pg_catalog.pg_is_in_recovery() OR pg_catalog.current_setting('default_transaction_read_only') = 'on'`).Scan(&on)
	})
	return on, err
}

// pgDisplayMS is a millisecond setting as current_setting shows it: in
// the largest unit that holds it exactly ("5000" is "5s").
func pgDisplayMS(ms string) string {
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n == 0 {
		return ms
	}
	for _, u := range []struct {
		name string
		ms   int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if n%u.ms == 0 {
			return strconv.FormatInt(n/u.ms, 10) + u.name
		}
	}
	return ms + "ms"
}

// NoteRemoved records, once the plan that removed them ran, what an
// offboarding removed in other databases.
func NoteRemoved(ctx context.Context, removed []string, err error) error {
	if n, _ := ctx.Value(offboardingKey{}).(*OffboardNotes); n != nil && err == nil {
		n.mu.Lock()
		n.removed = append(n.removed, removed...)
		n.mu.Unlock()
	}
	return err
}
