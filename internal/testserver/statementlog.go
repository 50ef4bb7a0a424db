// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Statement log: what each login sent the server, read back from the
// server's own log. See the package comment ("Statement log") for the
// guarantees and limits; statementlog_mysql.go and statementlog_postgres.go
// read the two engines' logs.

// fenceTimeout bounds the wait for a fence statement to show up in the log.
const fenceTimeout = 10 * time.Second

// Statement is one statement a login sent, as the server logged it.
type Statement struct {
	// Kind is how the server logged it.
	//
	// MariaDB/MySQL: the general log's command type: "Query" (text
	// protocol), "Prepare" (a server-side prepare, binary protocol or SQL
	// PREPARE: Text is the statement with its placeholders), "Execute" (a
	// prepared statement run: Text has the parameters filled in), or
	// another command such as "Init DB" (Text is its argument).
	//
	// PostgreSQL: "statement" (simple protocol: Text is the whole query
	// string, which may hold several statements), "execute" (extended
	// protocol: Text has the $n placeholders; the parameters are not part
	// of it), or "error" (a statement that failed before it was logged as
	// run, e.g. a parse error in the extended protocol: Text is the
	// statement the error report names).
	Kind string
	// Text is the statement text as the server logged it (passwords
	// included: redact before printing, as CheckNoDDL does).
	Text string
	// Database is the database the session was connected to (PostgreSQL;
	// "" on MySQL/MariaDB, whose general log does not say).
	Database string
}

func (st Statement) String() string { return "[" + st.Kind + "] " + st.Text }

// LogMark is a point in a server's statement log, from Server.LogMark. The
// zero LogMark is invalid: every method refuses it.
type LogMark struct {
	srv   *Server
	fence string // the fence statement whose log entry is the mark
	pos   int64  // MySQL: row number of that entry in mysql.general_log; PostgreSQL: byte offset just past it
	file  string // PostgreSQL: the log file pos is in
}

// IsZero reports whether m is the zero LogMark (no mark was taken).
func (m LogMark) IsZero() bool { return m.srv == nil }

// statementLogReader reads one engine's log. Both methods run a fence first,
// so that everything that completed before the call is in what they see.
type statementLogReader interface {
	// mark runs a fence and returns its position.
	mark(ctx context.Context) (LogMark, error)
	// since runs a fence and returns the entries logged after m and before
	// that fence, in log order, for every login.
	since(ctx context.Context, m LogMark) ([]logEntry, error)
}

// logEntry is one statement with the login that sent it.
type logEntry struct {
	user string
	stmt Statement
}

var fenceCounter atomic.Uint64

// newFence returns a statement, unique in this process and across processes
// (random part), to run as the superuser and look for in the log.
func newFence() string {
	return fmt.Sprintf("%s%s-%d'", fencePrefix, randomSuffix(), fenceCounter.Add(1))
}

// runFence runs the fence statement as the superuser.
func (s *Server) runFence(ctx context.Context, fence string) error {
	db, err := s.SuperDB("")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, fence); err != nil {
		return fmt.Errorf("fence %s: %w", fence, err)
	}
	return nil
}

// pollLog calls try until it reports done, with short sleeps, for at most
// fenceTimeout (or until ctx ends).
func pollLog(ctx context.Context, what string, try func() (done bool, err error)) error {
	deadline := time.Now().Add(fenceTimeout)
	sleep := 2 * time.Millisecond
	for {
		done, err := try()
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear in the statement log within %v", what, fenceTimeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s in the statement log: %w", what, ctx.Err())
		case <-time.After(sleep):
		}
		if sleep < 50*time.Millisecond {
			sleep *= 2
		}
	}
}

// statementLog returns the server's log reader, setting it up on first use:
// it checks (dsn: may enable, see the package comment) the server's logging
// and proves, with a probe statement run as Admin, that the log holds the
// Admin's statements under the Admin's name and not under the superuser's.
// Failures are not cached: the next call tries again.
func (s *Server) statementLog(ctx context.Context) (statementLogReader, error) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	if s.stmtLog != nil {
		return s.stmtLog, nil
	}
	r, err := s.newStatementLogReader(ctx)
	if err == nil {
		err = s.probeStatementLog(ctx, r)
	}
	if err != nil {
		return nil, fmt.Errorf("testserver: statement log of the %s server (%s backend) is not usable: %w", s.Engine, s.Backend, err)
	}
	s.stmtLog = r
	return r, nil
}

func (s *Server) newStatementLogReader(ctx context.Context) (statementLogReader, error) {
	if s.Engine == EngineMySQL {
		return s.newMySQLLogReader(ctx)
	}
	return s.newPostgresLogReader(ctx)
}

// probeStatementLog: a search for absence must first prove it searches
// something. Run a unique statement as Admin and check that the window holds
// it under the Admin's name only.
func (s *Server) probeStatementLog(ctx context.Context, r statementLogReader) error {
	m, err := r.mark(ctx)
	if err != nil {
		return err
	}
	probe := fmt.Sprintf("SELECT 'tenantdb-logprobe-%s'", randomSuffix())
	db, err := s.Open(s.Admin, "")
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, probe)
	_ = db.Close()
	if err != nil {
		return fmt.Errorf("probe %s as %q: %w", probe, s.Admin.Username, err)
	}
	entries, err := r.since(ctx, m)
	if err != nil {
		return err
	}
	var asAdmin, asOther int
	for _, e := range entries {
		if e.stmt.Text == probe {
			if e.user == s.Admin.Username {
				asAdmin++
			} else {
				asOther++
			}
		}
	}
	if asAdmin != 1 || asOther != 0 {
		return fmt.Errorf("probe %s run once as %q was logged %d time(s) under that login and %d time(s) under others: "+
			"the log does not attribute statements to logins as this package expects", probe, s.Admin.Username, asAdmin, asOther)
	}
	return nil
}

// LogMark returns the current point of the server's statement log: a fence
// statement run as the superuser, waited for (at most 10 s) until the log
// shows it. Statements that completed before LogMark was called are before
// the mark. It fails when the backend cannot provide a log that attributes
// statements to logins (see the package comment).
func (s *Server) LogMark(ctx context.Context) (LogMark, error) {
	r, err := s.statementLog(ctx)
	if err != nil {
		return LogMark{}, err
	}
	m, err := r.mark(ctx)
	if err != nil {
		return LogMark{}, fmt.Errorf("testserver: %s statement log mark: %w", s.Engine, err)
	}
	return m, nil
}

// MarkLog is LogMark for tests: it fails the test (never skips it) when the
// server has no usable statement log.
func (s *Server) MarkLog(t testing.TB) LogMark {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*fenceTimeout)
	defer cancel()
	m, err := s.LogMark(ctx)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return m
}

// RequireStatementLog fails the test (never skips it) unless the server keeps
// a statement log this package can read and attribute to logins; it runs the
// same self-check as the first LogMark. Call it first in tests whose point is
// what the log shows, so that a backend without one fails at once with a
// clear message.
func (s *Server) RequireStatementLog(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*fenceTimeout)
	defer cancel()
	if _, err := s.statementLog(ctx); err != nil {
		t.Fatalf("%v", err)
	}
}

// StatementsSince returns, in log order, the statements the login username
// sent after mark (protocol noise left out: see the package comment). It runs
// a fence as the superuser first and waits (at most 10 s) until the log shows
// it, so every statement that completed before the call is included; it
// stops at that fence. username is the login name (srv.Admin.Username for
// the admin), compared exactly.
func (s *Server) StatementsSince(ctx context.Context, mark LogMark, username string) ([]Statement, error) {
	if mark.srv == nil {
		return nil, errors.New("testserver: StatementsSince: zero LogMark (take one with LogMark first)")
	}
	if mark.srv != s {
		return nil, fmt.Errorf("testserver: StatementsSince: the mark belongs to another server (%s on %s)", mark.srv.Engine, mark.srv.Addr())
	}
	r, err := s.statementLog(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := r.since(ctx, mark)
	if err != nil {
		return nil, fmt.Errorf("testserver: %s statements since mark: %w", s.Engine, err)
	}
	var out []Statement
	for _, e := range entries {
		if e.user != username || isNoopStatement(e.stmt) || e.user == s.Super.Username && isHarnessStatement(e.stmt.Text) {
			continue
		}
		out = append(out, e.stmt)
	}
	return out, nil
}

// Texts of the statements the harness itself runs as the superuser to read
// the log; left out of the superuser's statements.
const (
	fencePrefix        = "SELECT 'tenantdb-fence-"
	mysqlLogReadPrefix = "SELECT user_host, command_type, argument FROM mysql.general_log LIMIT "
	pgLogReadPrefix    = "SELECT f, pg_read_binary_file(f, "
)

func isHarnessStatement(text string) bool {
	return strings.HasPrefix(text, fencePrefix) || strings.HasPrefix(text, mysqlLogReadPrefix) || strings.HasPrefix(text, pgLogReadPrefix)
}

// isNoopStatement: SQL text that is only whitespace, comments and
// semicolons runs nothing (pgx's liveness check sends "-- ping").
func isNoopStatement(st Statement) bool {
	if st.Kind != "Query" && st.Kind != "statement" {
		return false
	}
	for _, piece := range splitSQL(st.Text, lexPostgres) {
		if strings.TrimSpace(piece) != "" {
			return false
		}
	}
	for _, piece := range splitSQL(st.Text, lexMySQL) {
		if strings.TrimSpace(piece) != "" {
			return false
		}
	}
	return true
}

// DDLSince returns the statements of StatementsSince that are DDL or DCL by
// IsDDL: attempted ones included (a statement the server refused was still
// sent, and is logged).
func (s *Server) DDLSince(ctx context.Context, mark LogMark, username string) ([]Statement, error) {
	stmts, err := s.StatementsSince(ctx, mark, username)
	if err != nil {
		return nil, err
	}
	var out []Statement
	for _, st := range stmts {
		if st.isDDL(s.Engine) {
			out = append(out, st)
		}
	}
	return out, nil
}

// CheckNoDDL returns nil when the login username sent no DDL/DCL (IsDDL)
// after mark, and otherwise an error listing those statements, passwords
// redacted. A log that cannot be read is an error too.
func (s *Server) CheckNoDDL(ctx context.Context, mark LogMark, username string) error {
	ddl, err := s.DDLSince(ctx, mark, username)
	if err != nil {
		return err
	}
	return noDDLError(s.Engine, username, ddl)
}

func noDDLError(engine, username string, ddl []Statement) error {
	if len(ddl) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "testserver: login %q sent %d DDL/DCL statement(s) to the %s server since the mark, want none:", username, len(ddl), engine)
	for i, st := range ddl {
		fmt.Fprintf(&b, "\n  %d. [%s] %s", i+1, st.Kind, RedactSecrets(st.Text))
	}
	return errors.New(b.String())
}

// AssertNoDDL fails the test when the login username sent any DDL/DCL
// statement (IsDDL) after mark, listing them (passwords redacted), and also
// when the log cannot be read or mark is the zero LogMark: it never passes
// without having read the log.
func (s *Server) AssertNoDDL(t testing.TB, mark LogMark, username string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*fenceTimeout)
	defer cancel()
	if err := s.CheckNoDDL(ctx, mark, username); err != nil {
		t.Fatalf("%v", err)
	}
}

// CreateAdminLogin creates an extra login with exactly the rights of Admin
// (MySQL: 'name'@'%'), dropped (best effort) when the test ends. Statement-log
// assertions are per login, so a test that runs alongside others on a shared
// server and asserts what "the admin" did should give the provider a login of
// its own.
func (s *Server) CreateAdminLogin(t testing.TB, name string) Login {
	t.Helper()
	info, err := s.serverInfo()
	if err != nil {
		t.Fatalf("testserver: CreateAdminLogin: %v", err)
	}
	return s.CreateLogin(t, name, randomPassword(), adminGrantStatements(info, name)...)
}

func (st Statement) isDDL(engine string) bool {
	if engine == EngineMySQL && mysqlDDLCommands[st.Kind] {
		return true
	}
	return st.isSQL(engine) && IsDDL(engine, st.Text)
}

// isSQL: the Kinds whose Text is SQL (MySQL "Init DB" carries a database
// name, for instance).
func (st Statement) isSQL(engine string) bool {
	if engine == EnginePostgres {
		return true
	}
	switch st.Kind {
	case "Query", "Prepare", "Execute":
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// DDL/DCL classification.

// DDLKeywords are the first keywords (case-insensitive, after whitespace and
// comments) that make a statement DDL/DCL for IsDDL. "SET" counts only as
// SET PASSWORD or SET DEFAULT ROLE (MySQL/MariaDB account changes); "DO" only
// on PostgreSQL, where an anonymous code block can run any DDL (MySQL's DO
// just evaluates expressions, e.g. DO RELEASE_LOCK(...)).
var DDLKeywords = []string{
	"CREATE", "ALTER", "DROP", "GRANT", "REVOKE", "RENAME", "REASSIGN", "COMMENT", "TRUNCATE",
	"SET PASSWORD", "SET DEFAULT ROLE", "DO (PostgreSQL)",
}

var ddlFirstWords = map[string]bool{
	"CREATE": true, "ALTER": true, "DROP": true, "GRANT": true, "REVOKE": true,
	"RENAME": true, "REASSIGN": true, "COMMENT": true, "TRUNCATE": true,
}

// IsDDL reports whether stmt, sent to a server of the given engine ("mysql"
// or "postgres"), holds a DDL/DCL statement: one whose first keyword is in
// DDLKeywords. A text holding several statements (PostgreSQL's simple
// protocol allows it) counts when any of them does. Comments are skipped,
// except MySQL executable comments (/*! ... */, /*M! ... */), whose content
// the server runs. The text is split at semicolons outside quotes, comments
// and (PostgreSQL) dollar quotes by the engine's lexical rules. On MySQL a
// backslash in a string escapes the next character unless sql_mode has
// NO_BACKSLASH_ESCAPES, which the text does not tell: both readings are
// tried, and either finding DDL is enough (a false alarm rather than a
// missed statement). An engine other than "mysql" and "postgres" tries every
// reading. Not seen: statements run inside functions or procedures (CALL, a
// trigger), and SQL built by EXECUTE inside PL/pgSQL beyond the DO keyword
// itself.
func IsDDL(engine, stmt string) bool {
	var readings []sqlLexing
	switch engine {
	case EngineMySQL:
		readings = []sqlLexing{lexMySQL, lexMySQLNoBackslash}
	case EnginePostgres:
		readings = []sqlLexing{lexPostgres}
	default:
		readings = []sqlLexing{lexMySQL, lexMySQLNoBackslash, lexPostgres}
	}
	for _, lx := range readings {
		for _, piece := range splitSQL(stmt, lx) {
			if pieceIsDDL(engine, piece) {
				return true
			}
		}
	}
	return false
}

// sqlLexing selects the lexical rules splitSQL follows.
type sqlLexing int

const (
	lexMySQL            sqlLexing = iota // backslash escapes in strings (the default sql_mode)
	lexMySQLNoBackslash                  // sql_mode NO_BACKSLASH_ESCAPES
	lexPostgres
)

func pieceIsDDL(engine, code string) bool {
	w1, rest := firstWord(code)
	if ddlFirstWords[w1] {
		return true
	}
	switch w1 {
	case "DO":
		return engine == EnginePostgres
	case "SET":
		w2, rest := firstWord(rest)
		if w2 == "PASSWORD" {
			return true
		}
		if w2 == "DEFAULT" {
			w3, _ := firstWord(rest)
			return w3 == "ROLE"
		}
		// MariaDB: SET STATEMENT var = value[, ...] FOR <statement> runs
		// <statement> (tenantdb wraps its grants so): classify that.
		if w2 == "STATEMENT" && engine == EngineMySQL {
			if inner, ok := afterFor(rest); ok {
				return pieceIsDDL(engine, inner)
			}
		}
	}
	return false
}

// afterFor returns what follows the first FOR keyword outside quotes.
func afterFor(s string) (string, bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case (c == 'F' || c == 'f') && i+3 <= len(s) && strings.EqualFold(s[i:i+3], "FOR") &&
			(i == 0 || !isIdentByte(s[i-1])) && (i+3 == len(s) || !isIdentByte(s[i+3])):
			return s[i+3:], true
		}
	}
	return "", false
}

// firstWord returns the first run of letters in code (after whitespace),
// upper-cased, and the rest; "" when code starts with anything else.
func firstWord(code string) (string, string) {
	code = strings.TrimLeft(code, " \t\r\n\f\v")
	i := 0
	for i < len(code) && (code[i] >= 'a' && code[i] <= 'z' || code[i] >= 'A' && code[i] <= 'Z' || code[i] == '_') {
		i++
	}
	return strings.ToUpper(code[:i]), code[i:]
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// splitSQL splits text at semicolons outside quotes and comments, and blanks
// comments out of the pieces (a comment becomes one space). MySQL: backslash
// escapes in '...' and "..." (unless lexMySQLNoBackslash), `...`
// identifiers, '#' and "-- " comments, executable comments /*!NNNNN ... */
// kept as code. PostgreSQL: backslash escapes only in E'...', "--"
// comments, nested /* */ comments, $tag$...$tag$ dollar quotes.
func splitSQL(text string, lx sqlLexing) []string {
	mysqlLexing := lx != lexPostgres
	var pieces []string
	var b strings.Builder
	execComments := 0 // MySQL: open /*! ... */ whose content is code
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		next := byte(0)
		if i+1 < n {
			next = text[i+1]
		}
		switch {
		case c == ';':
			pieces = append(pieces, b.String())
			b.Reset()
			i++
		case c == '\'' || c == '"' || (c == '`' && mysqlLexing):
			backslash := c != '`' && lx == lexMySQL
			if !mysqlLexing && c == '\'' && i > 0 && (text[i-1] == 'E' || text[i-1] == 'e') && (i < 2 || !isIdentByte(text[i-2])) {
				backslash = true // E'...' escape string
			}
			j := i + 1
			for j < n {
				if backslash && text[j] == '\\' {
					j += 2
					continue
				}
				if text[j] == c {
					if j+1 < n && text[j+1] == c { // doubled quote
						j += 2
						continue
					}
					j++
					break
				}
				j++
			}
			if j > n {
				j = n
			}
			b.WriteString(text[i:j])
			i = j
		case c == '-' && next == '-' && (!mysqlLexing || i+2 >= n || text[i+2] <= ' '):
			i = skipLine(text, i)
			b.WriteByte(' ')
		case c == '#' && mysqlLexing:
			i = skipLine(text, i)
			b.WriteByte(' ')
		case c == '/' && next == '*':
			if mysqlLexing && (strings.HasPrefix(text[i:], "/*!") || strings.HasPrefix(text[i:], "/*M!")) {
				i += 3
				if text[i-1] == 'M' {
					i++
				}
				for i < n && text[i] >= '0' && text[i] <= '9' {
					i++
				}
				execComments++
				b.WriteByte(' ')
				continue
			}
			i = skipBlockComment(text, i, !mysqlLexing)
			b.WriteByte(' ')
		case c == '*' && next == '/' && execComments > 0:
			execComments--
			i += 2
			b.WriteByte(' ')
		case c == '$' && !mysqlLexing && (i == 0 || !isIdentByte(text[i-1])):
			if tag, ok := dollarTag(text[i:]); ok {
				end := strings.Index(text[i+len(tag):], tag)
				j := n
				if end >= 0 {
					j = i + len(tag) + end + len(tag)
				}
				b.WriteString(text[i:j])
				i = j
				continue
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return append(pieces, b.String())
}

// skipLine returns the index just past the end of the line at i.
func skipLine(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// skipBlockComment returns the index just past the comment opened at i.
func skipBlockComment(text string, i int, nested bool) int {
	depth := 0
	for i < len(text) {
		switch {
		case strings.HasPrefix(text[i:], "/*") && (nested || depth == 0):
			depth++
			i += 2
		case strings.HasPrefix(text[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(text)
}

// dollarTag returns the opening $tag$ (or $$) at the start of s.
func dollarTag(s string) (string, bool) {
	if len(s) < 2 || s[0] != '$' {
		return "", false
	}
	if s[1] == '$' {
		return "$$", true
	}
	if !(s[1] >= 'a' && s[1] <= 'z' || s[1] >= 'A' && s[1] <= 'Z' || s[1] == '_' || s[1] >= 0x80) {
		return "", false // $1 is a parameter
	}
	for j := 2; j < len(s); j++ {
		if s[j] == '$' {
			return s[:j+1], true
		}
		if !isIdentByte(s[j]) {
			return "", false
		}
	}
	return "", false
}

// secretLiteral matches the string literal after IDENTIFIED BY [PASSWORD],
// PASSWORD, PASSWORD( and PASSWORD = in account statements.
var secretLiteral = regexp.MustCompile(`(?is)(\b(?:IDENTIFIED\s+(?:WITH\s+\S+\s+)?(?:BY|AS)(?:\s+PASSWORD)?|PASSWORD)\s*(?:\(\s*|=\s*)?)(?:'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")`)

// RedactSecrets replaces the password literals of account statements
// (IDENTIFIED BY '...', PASSWORD '...', PASSWORD('...')) with '***', for
// printing logged statements.
func RedactSecrets(stmt string) string {
	return secretLiteral.ReplaceAllString(stmt, "$1'***'")
}

// serverInfo describes the server for internal/ddl's renderers.
func (s *Server) serverInfo() (ddl.ServerInfo, error) {
	v, err := ddl.ParseVersion(s.version)
	if err != nil {
		return ddl.ServerInfo{}, err
	}
	return ddl.ServerInfo{Flavor: ddl.Flavor(s.Flavor), Version: v}, nil
}
