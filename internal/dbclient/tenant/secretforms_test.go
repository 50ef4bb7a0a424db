// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// secretForms is every form in which a password could appear in a text that
// leaks it: as is; as the engines escape it inside a literal (quotes doubled
// under NO_BACKSLASH_ESCAPES and standard_conforming_strings; backslash
// escapes, as a server in the default sql_mode or a client library echoes
// it); as Go's %q and JSON print it; and every run of at least five bytes
// between quote and backslash characters, which survives any escaping.
// Searching only for the raw password misses a server that echoes the
// statement: it doubles each quote.
func secretForms(pw string) []string {
	forms := []string{
		pw,
		strings.ReplaceAll(pw, "'", "''"),
		strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(pw),
		strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw),
		strings.NewReplacer(`\`, `\\`, `'`, `\'`, `"`, `\"`).Replace(pw),
		strings.ReplaceAll(pw, `"`, `""`),
		strings.ReplaceAll(pw, "`", "``"),
	}
	if q := strconv.Quote(pw); len(q) > 2 {
		forms = append(forms, q[1:len(q)-1])
	}
	if b, err := json.Marshal(pw); err == nil && len(b) > 2 {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	for _, frag := range strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune("'\"`\\", r) }) {
		if len(frag) >= 5 {
			forms = append(forms, frag)
		}
	}
	// MariaDB receives the mysql_native_password hash instead: it is as
	// secret as the password.
	inner := sha1.Sum([]byte(pw))
	outer := sha1.Sum(inner[:])
	forms = append(forms, strings.ToUpper(hex.EncodeToString(outer[:])))
	var out []string
	for _, f := range forms {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// TestSecretForms pins the forms the searches rely on.
func TestSecretForms(t *testing.T) {
	t.Parallel()
	forms := secretForms(`s3cr3t-'pw'\x`)
	for _, want := range []string{`s3cr3t-'pw'\x`, `s3cr3t-''pw''\x`, `s3cr3t-\'pw\'\\x`, `s3cr3t-''pw''\\x`, "s3cr3t-"} {
		if !slices.Contains(forms, want) {
			t.Errorf("secretForms lacks %q: %q", want, forms)
		}
	}
	// Every hostile password has a form that is not trivially short.
	for _, pw := range hostilePasswords {
		if len(secretForms(pw)) == 0 {
			t.Errorf("no forms for %q", pw)
		}
	}
}

// leakedForm returns the first form of a secret found in text, or "" (and,
// when scram is set, reports any SCRAM verifier as "SCRAM-SHA-256$").
func leakedForm(text string, scram bool, secrets ...string) string {
	for _, s := range secrets {
		for _, f := range secretForms(s) {
			if strings.Contains(text, f) {
				return f
			}
		}
	}
	if scram && strings.Contains(text, "SCRAM-SHA-256$") {
		return "SCRAM-SHA-256$"
	}
	return ""
}

// errorTexts is every rendering of err a user or a log could see.
func errorTexts(err error) []string {
	texts := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%s", err)}
	var de *ddl.Error
	if errors.As(err, &de) {
		texts = append(texts, de.Summary(), de.Detail())
	}
	var se *session.StatementError
	if errors.As(err, &se) {
		texts = append(texts, se.Statement, se.Message)
	}
	return texts
}

// assertNoSecretForms checks every rendering of err for every form of each
// secret and for any SCRAM verifier. It first asserts that there is an
// error to search and that it says what matters (mustContain), so it
// cannot pass by searching nothing.
func assertNoSecretForms(t *testing.T, err error, mustContain string, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error to search for secrets")
	}
	if !strings.Contains(err.Error(), mustContain) {
		t.Fatalf("the error searched for secrets does not contain %q, so it is not the one provoked: %v", mustContain, err)
	}
	for _, text := range errorTexts(err) {
		if f := leakedForm(text, true, secrets...); f != "" {
			t.Errorf("error text contains %q (a form of a secret): %s", f, text)
		}
	}
}

// loggedStatement is one line of the statement logger.
type loggedStatement struct {
	Msg, Server, Database, Statement string
	Line                             string // the whole line, fields included
}

// stmtLog records what a Registry's statement logger receives.
type stmtLog struct {
	mu      sync.Mutex
	entries []loggedStatement
}

func (l *stmtLog) log(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	str := func(k string) string { s, _ := fields[k].(string); return s }
	l.entries = append(l.entries, loggedStatement{
		Msg: msg, Server: str("server"), Database: str("database"), Statement: str("statement"),
		Line: fmt.Sprint(msg, " ", fields),
	})
}

// mark is the position to read new entries from.
func (l *stmtLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// since returns the entries logged after mark.
func (l *stmtLog) since(mark int) []loggedStatement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[mark:])
}

func statements(entries []loggedStatement) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Statement
	}
	return out
}

// loggedServer connects as the admin through a fresh Registry whose
// statement logger records into the returned log (closed before the env
// drops what the test made).
func (e *env) loggedServer() (*Server, *stmtLog) {
	e.t.Helper()
	log := &stmtLog{}
	reg := NewRegistryWithLogger(log.log)
	e.t.Cleanup(reg.Close)
	s, err := reg.Server(e.ctx, adminSpec(e.t, e.ts, e.ts.Admin))
	if err != nil {
		e.t.Fatalf("connect as admin: %v", err)
	}
	return s, log
}

// assertLoggedPlan checks that every statement of plan appears in entries,
// in order, redacted (its String form, on the right database), and that no
// entry carries a form of a secret or a SCRAM verifier.
func assertLoggedPlan(t *testing.T, entries []loggedStatement, plan ddl.Plan, secrets ...string) {
	t.Helper()
	if len(entries) == 0 {
		t.Fatalf("the statement log is empty; want the plan:\n%s", plan)
	}
	for _, en := range entries {
		if en.Msg != "tenantdb statement" || en.Server == "" || en.Statement == "" {
			t.Errorf("malformed statement log line: %s", en.Line)
		}
		if f := leakedForm(en.Line, true, secrets...); f != "" {
			t.Errorf("statement log line contains %q (a form of a secret): %s", f, en.Line)
		}
	}
	i := 0
	for _, st := range plan.Statements {
		for i < len(entries) && !(entries[i].Statement == st.String() && entries[i].Database == st.Database) {
			i++
		}
		if i == len(entries) {
			t.Errorf("the statement log lacks %q (database %q), in plan order; it has:\n%s", st.String(), st.Database, strings.Join(statements(entries), "\n"))
			return
		}
		i++
	}
}

// TestStatementErrorHidesEscapedSecret: a server message that quotes a
// statement carrying a password never reaches the error text, directly or
// through exhausted retries (PrimaryUnavailable). A server echoes the
// literal with its quotes doubled (or backslash-escaped), so the search is
// for every escaped form and for the quote-free fragment "s3cr3t-", and it
// first proves that the provoked server message does contain one of them.
// Serial: it lowers the retry budget.
func TestStatementErrorHidesEscapedSecret(t *testing.T) {
	savedBase := session.RetryBase
	session.RetryBase = time.Millisecond
	t.Cleanup(func() { session.RetryBase = savedBase })
	const pw = `s3cr3t-'pw'\x"y`
	for _, info := range []ddl.ServerInfo{
		{Flavor: ddl.FlavorMariaDB, Version: ddl.Version{Major: 10, Minor: 11}},
		{Flavor: ddl.FlavorMySQL, Version: ddl.Version{Major: 8, Minor: 0, Patch: 36}},
		{Flavor: ddl.FlavorPostgres, Version: ddl.Version{Major: 15}},
	} {
		d := ddl.NewDialect(info)
		u, err := ddl.NewUsername(info.Flavor.Engine(), "acme_app")
		if err != nil {
			t.Fatal(err)
		}
		db, err := ddl.NewDatabaseName(info.Flavor.Engine(), "acme")
		if err != nil {
			t.Fatal(err)
		}
		var secretStatements []ddl.Statement
		for _, p := range []ddl.Plan{
			d.SetPassword(u, mustPassword(t, pw), false),
			d.SetPassword(u, mustPassword(t, pw), true),
			d.CreateOwner(db, u, mustPassword(t, pw), mustPrivileges(t, info.Flavor.Engine(), "ALL PRIVILEGES")),
		} {
			for _, st := range p.Statements {
				if st.SQL() != st.String() {
					secretStatements = append(secretStatements, st)
				}
			}
		}
		if len(secretStatements) < 3 {
			t.Fatalf("%s: only %d statements carry a secret", info, len(secretStatements))
		}
		for _, st := range secretStatements {
			echoed := st.SQL() // what a server quoting the statement echoes
			backslashed := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(echoed)
			var driverErrs []error
			if info.Flavor == ddl.FlavorPostgres {
				driverErrs = []error{
					&pgconn.PgError{Code: "42601", Message: "syntax error at or near " + echoed},
					&pgconn.PgError{Code: "42601", Message: "syntax error", Detail: echoed, Hint: backslashed, InternalQuery: echoed},
					&pgconn.PgError{Code: "25006", Message: "read-only: " + echoed},
					&pgconn.PgError{Code: "08006", Message: "connection lost during " + echoed},
				}
			} else {
				driverErrs = []error{
					&mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax; check the manual near '" + echoed + "' at line 1"},
					&mysql.MySQLError{Number: 1064, Message: "near '" + backslashed + "'"},
					&mysql.MySQLError{Number: 1290, Message: "read-only: " + echoed},
					&mysql.MySQLError{Number: 2013, Message: "lost connection during " + echoed},
				}
			}
			for _, driverErr := range driverErrs {
				// The search must be able to see a leak: the raw server
				// message carries a form of the secret (MySQL: the
				// password with quotes doubled; PostgreSQL: the verifier).
				raw := driverErr.Error()
				if info.Flavor == ddl.FlavorPostgres {
					raw = fmt.Sprintf("%s %s %s %s", raw, driverErr.(*pgconn.PgError).Detail, driverErr.(*pgconn.PgError).Hint, driverErr.(*pgconn.PgError).InternalQuery)
				}
				if leakedForm(raw, true, pw) == "" {
					t.Fatalf("%s: the provoked server message %q carries no form of the secret: the search would prove nothing", info, raw)
				}
				if info.Flavor == ddl.FlavorMySQL && !strings.Contains(raw, "s3cr3t-") {
					t.Fatalf("%s: the quote-free fragment is not in %q", info, raw)
				}
				se := session.NewStatementError("srv", st, driverErr)
				assertNoSecretForms(t, se, "[redacted]", pw)
				if session.CodeOf(se) == "" {
					t.Errorf("%v: the code is no longer reachable", driverErr)
				}
				// Transient and lost-connection errors are retried and end
				// as PrimaryUnavailable, whose text includes the last error.
				spec := connect.Spec{Name: "srv", Engine: info.Flavor.Engine()}
				err := session.Retry(context.Background(), spec, func(context.Context) error { return se })
				assertNoSecretForms(t, err, "srv", pw)
			}
		}
	}
}

// TestServerEchoWithheld (MariaDB): a real server that quotes a statement
// carrying a secret. MariaDB has no ALTER ROLE, so the PostgreSQL dialect's
// password statement is a syntax error whose message quotes the statement
// from ROLE on, SCRAM verifier included; run as the superuser the message
// does show it, and through dbclient it must not. (No PostgreSQL statement
// message quotes the statement: that half is covered by
// TestStatementErrorHidesEscapedSecret.)
func TestServerEchoWithheld(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		if e.isPG() {
			t.Skip("PostgreSQL messages do not quote statements")
		}
		const pw = `Echo-me-not-'x'\y`
		u := e.newUser("echo")
		pgDialect := ddl.NewDialect(ddl.ServerInfo{Flavor: ddl.FlavorPostgres, Version: ddl.Version{Major: 15}})
		pgUser, err := ddl.NewUsername(ddl.EnginePostgres, u.String())
		if err != nil {
			t.Fatal(err)
		}
		st := pgDialect.SetPassword(pgUser, mustPassword(t, pw), false).Statements[0]

		_, rawErr := e.superDB().ExecContext(e.ctx, st.SQL())
		if rawErr == nil || !strings.Contains(rawErr.Error(), "SCRAM-SHA-256$") {
			t.Fatalf("the server's own message does not echo the secret literal (%v): the check below would prove nothing", rawErr)
		}
		t.Logf("the server's message: %.90s...", rawErr)

		s, log := e.loggedServer()
		mark := log.mark()
		err = s.Exec(e.ctx, ddl.Plan{Statements: []ddl.Statement{st}})
		assertNoSecretForms(t, err, "[redacted]", pw)
		var se *session.StatementError
		if !asStatementError(err, &se) || se.Message != "" || se.Code != "mysql:1064" {
			t.Errorf("want a *statementError 1064 with the server message withheld, got %#v", err)
		}
		assertLoggedPlan(t, log.since(mark), ddl.Plan{Statements: []ddl.Statement{st}}, pw)
	})
}

// TestDropDatabaseGoesAhead: a drop of a database this provider created
// really removes it, as the superuser's catalog shows, runs exactly the
// dialect's drop statement (as the statement log shows), and terminates no
// session. On MariaDB it goes ahead with a foreign session connected to the
// database (no per-database sessions to cut); PostgreSQL refuses that case
// (TestDropDatabaseInUse), so there the drop runs with none.
func TestDropDatabaseGoesAhead(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		s, log := e.loggedServer()
		db := e.newDB("goes")
		if err := s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		if _, _, _, found := e.dbState(db); !found {
			t.Fatal("the database was not created, so its drop proves nothing")
		}
		var check func() error
		if !e.isPG() {
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
			var current string
			if err := conn.QueryRowContext(e.ctx, `SELECT DATABASE()`).Scan(&current); err != nil || current != db.String() {
				t.Fatalf("the foreign session is not in %s: %q, %v", db, current, err)
			}
			check = func() error {
				var one int
				return conn.QueryRowContext(e.ctx, `SELECT 1`).Scan(&one)
			}
		}

		mark := log.mark()
		if err := s.DropDatabase(e.ctx, db); err != nil {
			t.Fatalf("drop: %v", err)
		}
		if _, _, _, found := e.dbState(db); found {
			t.Errorf("%s still exists on the server after DropDatabase returned nil", db)
		}
		drop := s.dialect().DropDatabase(db)
		entries := log.since(mark)
		if got, want := statements(entries), statements(planEntries(drop)); !slices.Equal(got, want) {
			t.Errorf("the drop ran %q, want exactly %q", got, want)
		}
		if check != nil {
			if err := check(); err != nil {
				t.Errorf("the foreign session was cut by the drop: %v", err)
			}
		}
	})
}

// planEntries is what the statement log shows for a plan.
func planEntries(p ddl.Plan) []loggedStatement {
	out := make([]loggedStatement, len(p.Statements))
	for i, st := range p.Statements {
		out[i] = loggedStatement{Statement: st.String(), Database: st.Database}
	}
	return out
}
