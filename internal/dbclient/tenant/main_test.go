// SPDX-License-Identifier: MPL-2.0

// Integration tests of dbclient against real MariaDB and PostgreSQL 15
// servers started by internal/testserver. Every test runs table-driven over
// both engines as the minimal-rights admin (testserver's Admin login) through
// a Registry, over TLS verified against the servers' CA, and checks what the
// server really did by querying it as the superuser. They live in package
// dbclient (not dbclient_test) to lower the retry budget and to reach the
// executor's single-statement path.
package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }

// engines are server kinds (testserver.Kinds): "mariadb", "mysql" (MySQL
// 9.7) and "postgres", selected by TENANTDB_TEST_ENGINES.
var engines = testserver.Kinds()

// env is one engine's test fixture: the testserver, a fresh Registry and the
// Server reached as the minimal-rights admin.
type env struct {
	t      *testing.T
	engine ddl.Engine
	ts     *testserver.Server
	reg    *Registry
	s      *Server
	ctx    context.Context

	mu     sync.Mutex
	dbs    []string // dropped as superuser when the test ends
	logins []string
}

// forEngines runs fn as a parallel subtest per engine.
func forEngines(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			fn(t, newEnv(t, engine))
		})
	}
}

// adminSpec is how the provider would reach ts as its admin: tls
// verify-full against the server's CA.
func adminSpec(t *testing.T, ts *testserver.Server, login testserver.Login) connect.Spec {
	t.Helper()
	spec := connect.Spec{
		Name:     "it-" + ts.Engine,
		Engine:   ddl.Engine(ts.Engine),
		Host:     ts.Host,
		Port:     ts.Port,
		Username: login.Username,
		Password: mustPassword(t, login.Password),
		TLS:      connect.TLSVerifyFull,
		CAPEM:    ts.CAPEM,
	}
	if ts.CAPEM == "" {
		// Only the local backend installs our CA; others fall back to what
		// they offer (the tests are written for verify-full).
		t.Logf("%s backend has no CA of ours: using tls %q", ts.Backend, ts.TLSMode())
		spec.TLS = connect.TLSMode(ts.TLSMode())
	}
	return spec
}

func newEnv(t *testing.T, kind string) *env {
	t.Helper()
	ts := testserver.SharedKind(t, kind)
	e := &env{t: t, engine: ddl.Engine(ts.Engine), ts: ts, ctx: t.Context()}
	// Cleanups run last-in first-out: the registry closes its pools first,
	// then the superuser drops what the test made.
	t.Cleanup(e.dropAll)
	e.reg = newRegistry()
	t.Cleanup(e.reg.Close)
	s, err := e.reg.Server(e.ctx, adminSpec(t, ts, ts.Admin))
	if err != nil {
		t.Fatalf("connect as admin: %v", err)
	}
	e.s = s
	return e
}

func (e *env) isPG() bool { return e.engine == ddl.EnginePostgres }

var nameSeq atomic.Int64

// name is unique in this test binary (servers are fresh per run).
func uniqueName(prefix string) string { return fmt.Sprintf("%s%d", prefix, nameSeq.Add(1)) }

// newDB returns a unique, validated database name, dropped at the end.
func (e *env) newDB(prefix string) ddl.DatabaseName {
	e.t.Helper()
	return e.dbName(uniqueName(prefix))
}

// dbName validates a given name and registers it for the final drop.
func (e *env) dbName(name string) ddl.DatabaseName {
	e.t.Helper()
	db, err := ddl.NewDatabaseName(e.engine, name)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.dbs = append(e.dbs, name)
	e.mu.Unlock()
	return db
}

// newUser returns a unique, validated login name, dropped at the end.
func (e *env) newUser(prefix string) ddl.Username {
	e.t.Helper()
	name := uniqueName(prefix)
	u, err := ddl.NewUsername(e.engine, name)
	if err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.logins = append(e.logins, name)
	e.mu.Unlock()
	return u
}

// plainLogin creates a login as the superuser, outside dbclient (a grantee
// or a foreign account). pw must be alphanumeric.
func (e *env) plainLogin(prefix, pw string) ddl.Username {
	e.t.Helper()
	u := e.newUser(prefix)
	if e.isPG() {
		e.super(fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD '%s'`, u, pw))
	} else {
		e.super(fmt.Sprintf(`CREATE USER '%s'@'%%' IDENTIFIED BY '%s'`, u, pw))
	}
	return u
}

func (e *env) dropAll() {
	db, err := e.ts.SuperDB("")
	if err != nil {
		e.t.Logf("cleanup: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range e.dbs {
		q := "DROP DATABASE IF EXISTS `" + name + "`"
		if e.isPG() {
			q = fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name)
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			e.t.Logf("cleanup: %s: %v", q, err)
		}
	}
	for _, name := range e.logins {
		q := fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", name)
		if e.isPG() {
			q = fmt.Sprintf(`DROP ROLE IF EXISTS %q`, name)
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			e.t.Logf("cleanup: %s: %v", q, err)
		}
	}
}

// superDB is the cached superuser pool on the maintenance database.
func (e *env) superDB() *sql.DB {
	e.t.Helper()
	db, err := e.ts.SuperDB("")
	if err != nil {
		e.t.Fatal(err)
	}
	return db
}

// super runs statements as the superuser on the maintenance database.
func (e *env) super(stmts ...string) {
	e.t.Helper()
	for _, q := range stmts {
		if _, err := e.superDB().ExecContext(e.ctx, q); err != nil {
			e.t.Fatalf("superuser %s: %v", q, err)
		}
	}
}

// superIn opens a superuser pool inside a PostgreSQL tenant database (closed
// at the end of the test, before the database is dropped).
func (e *env) superIn(database ddl.DatabaseName) *sql.DB {
	e.t.Helper()
	db, err := e.ts.Open(e.ts.Super, database.String())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

// superScalar reads one value as the superuser on the maintenance database.
func superScalar[T any](e *env, q string, args ...any) T {
	e.t.Helper()
	var v T
	if err := e.superDB().QueryRowContext(e.ctx, q, args...).Scan(&v); err != nil {
		e.t.Fatalf("superuser %s %v: %v", q, args, err)
	}
	return v
}

// openAs logs in as user with pw over TCP and TLS verified against the
// server's CA, on database ("" = default), and proves the session works.
func (e *env) openAs(user, pw, database string) (*sql.DB, error) {
	db, err := e.ts.Open(testserver.Login{Username: user, Password: pw}, database)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.SetMaxOpenConns(1)
	e.t.Cleanup(func() { db.Close() })
	return db, nil
}

func (e *env) mustOpenAs(user, pw, database string) *sql.DB {
	e.t.Helper()
	db, err := e.openAs(user, pw, database)
	if err != nil {
		e.t.Fatalf("log in as %s on %q: %v", user, database, err)
	}
	return db
}

// mustLoginFail asserts the login is refused with an authentication error.
func (e *env) mustLoginFail(user, pw, database string) {
	e.t.Helper()
	db, err := e.openAs(user, pw, database)
	if err == nil {
		db.Close()
		e.t.Fatalf("log in as %s on %q succeeded, want refused", user, database)
	}
	if !session.IsAccessDenied(err) {
		e.t.Fatalf("log in as %s on %q: %v, want an access-denied error", user, database, err)
	}
}

// assertEncrypted checks that a session runs over TLS.
func (e *env) assertEncrypted(db *sql.DB) {
	e.t.Helper()
	encrypted := false
	if e.isPG() {
		if err := db.QueryRowContext(e.ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&encrypted); err != nil {
			e.t.Fatal(err)
		}
	} else {
		var name, cipher string
		if err := db.QueryRowContext(e.ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil {
			e.t.Fatal(err)
		}
		encrypted = cipher != ""
	}
	if !encrypted {
		e.t.Error("session is not encrypted")
	}
}

func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func mustPassword(t testing.TB, s string) ddl.Password {
	t.Helper()
	pw, err := ddl.NewPassword(s)
	if err != nil {
		t.Fatal(err)
	}
	return pw
}

func mustPrivileges(t testing.TB, engine ddl.Engine, names ...string) ddl.PrivilegeSet {
	t.Helper()
	ps, err := ddl.ParsePrivileges(engine, names)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func mustCharset(t testing.TB, s string) ddl.Charset {
	t.Helper()
	c, err := ddl.NewCharset(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustCollation(t testing.TB, s string) ddl.Collation {
	t.Helper()
	c, err := ddl.NewCollation(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// privNames sorts privileges as strings, for comparisons and messages.
func privNames(ps []ddl.Privilege) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// wantReason asserts err is a *ddl.Error with the reason.
func wantReason(t *testing.T, err error, r ddl.Reason) *ddl.Error {
	t.Helper()
	var de *ddl.Error
	if !errors.As(err, &de) {
		t.Fatalf("got %v (%T), want a *ddl.Error with reason %s", err, err, r)
	}
	if de.Reason != r {
		t.Fatalf("got reason %s (%v), want %s", de.Reason, err, r)
	}
	return de
}

// assertNoSecret checks every rendering of err for the secret (and, on
// PostgreSQL, for any SCRAM verifier).
func assertNoSecret(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	// Every escaped form a server echoes (quotes doubled, backslashes
	// doubled, Go-quoted, quote-free fragments), not only the raw text.
	for _, text := range errorTexts(err) {
		if f := leakedForm(text, true, secrets...); f != "" {
			t.Errorf("error text contains %q (a form of a secret): %s", f, text)
		}
	}
	var de *ddl.Error
	if errors.As(err, &de) {
		for _, s := range secrets {
			if strings.Contains(de.Summary(), s) || strings.Contains(de.Detail(), s) {
				t.Errorf("diagnostic contains the secret %q", s)
			}
		}
	}
}
