// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestStatementLogWindow: a statement the admin runs after the mark is in
// the window with its exact text (multi-line included), one before the mark
// is not, and the superuser's statements are attributed to the superuser,
// not the admin. StatementsSince is called right after the statements ran,
// with no sleep: its fence must make the log complete.
func TestStatementLogWindow(t *testing.T) {
	for _, kind := range testserver.Kinds() { // MariaDB and MySQL logs differ: each kind
		engine, _ := testserver.KindServer(kind)
		t.Run(kind, func(t *testing.T) {
			srv := testserver.SharedKind(t, kind)
			srv.RequireStatementLog(t)
			admin := openVerifyFull(t, srv, srv.Admin)
			tag := uniqueTag()

			before := fmt.Sprintf("SELECT 'before-%s'", tag)
			mustExec(t, admin, before)
			mark := srv.MarkLog(t)
			after := fmt.Sprintf("SELECT 'after-%s'", tag)
			multi := fmt.Sprintf("SELECT\n  'multi-%s',\n\t2 -- a comment\n  , 3", tag)
			superStmt := fmt.Sprintf("SELECT 'super-%s'", tag)
			mustExec(t, admin, after, multi)
			srv.MustExec(t, superStmt)
			// A statement with a parameter: the binary/extended protocol.
			param := "param-" + tag
			prepared := "SELECT ?"
			if engine == testserver.EnginePostgres {
				prepared = "SELECT $1::text"
			}
			if _, err := admin.Exec(prepared, param); err != nil {
				t.Fatal(err)
			}

			ctx := context.Background()
			got, err := srv.StatementsSince(ctx, mark, srv.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("admin's statements since the mark:\n%s", dump(got))
			iAfter, iMulti := indexOf(got, after), indexOf(got, multi)
			if iAfter < 0 || iMulti < 0 || iAfter > iMulti {
				t.Errorf("want %q then %q (exact text) in the admin's window, got positions %d, %d", after, multi, iAfter, iMulti)
			}
			if indexOf(got, before) >= 0 {
				t.Errorf("statement run before the mark is in the window: %q", before)
			}
			if indexOf(got, superStmt) >= 0 {
				t.Errorf("superuser's statement attributed to the admin: %q", superStmt)
			}
			// MySQL logs the prepared text and the execution with the
			// parameter filled in; PostgreSQL logs the execution with $1.
			if engine == testserver.EngineMySQL && (indexOf(got, prepared) < 0 || indexOf(got, "SELECT '"+param+"'") < 0) ||
				engine == testserver.EnginePostgres && indexOf(got, prepared) < 0 {
				t.Errorf("statement with a parameter (%s) not in the admin's window", prepared)
			}

			sup, err := srv.StatementsSince(ctx, mark, srv.Super.Username)
			if err != nil {
				t.Fatal(err)
			}
			if indexOf(sup, superStmt) < 0 {
				t.Errorf("superuser's statement %q not in the superuser's window:\n%s", superStmt, dump(sup))
			}
			if indexOf(sup, after) >= 0 || indexOf(sup, multi) >= 0 || indexOf(sup, before) >= 0 {
				t.Errorf("admin's statements attributed to the superuser:\n%s", dump(sup))
			}
			if containsText(sup, "tenantdb-fence-") || containsText(sup, "general_log") || containsText(sup, "pg_read_binary_file") {
				t.Errorf("the harness's own fences and log reads are in the superuser's window:\n%s", dump(sup))
			}

			// Nothing the admin runs after a call is in that call's window;
			// a later call sees it (each call fences anew).
			late := fmt.Sprintf("SELECT 'late-%s'", tag)
			mustExec(t, admin, late)
			again, err := srv.StatementsSince(ctx, mark, srv.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			if indexOf(got, late) >= 0 || indexOf(again, late) < 0 || len(again) <= len(got) {
				t.Errorf("second call: want the earlier window plus %q, got\n%s", late, dump(again))
			}
		})
	}
}

// TestStatementLogHoldsNoSetupPasswords: the harness creates Super and Admin
// unlogged, so their passwords are nowhere in the logs, which do hold the
// statement-log probe (so the search covers a log with statements in it).
func TestStatementLogHoldsNoSetupPasswords(t *testing.T) {
	for _, kind := range testserver.Kinds() { // MariaDB and MySQL logs differ: each kind
		engine, _ := testserver.KindServer(kind)
		t.Run(kind, func(t *testing.T) {
			srv := testserver.SharedKind(t, kind)
			srv.RequireStatementLog(t) // runs the probe
			needles := map[string]string{"probe": "tenantdb-logprobe-", "admin password": srv.Admin.Password, "super password": srv.Super.Password}
			found := map[string]bool{}
			if engine == testserver.EngineMySQL {
				super, err := srv.SuperDB("")
				if err != nil {
					t.Fatal(err)
				}
				for what, needle := range needles {
					// Searched for in hex, so that this query, which the
					// log records too, does not contain the needle.
					var n int
					if err := super.QueryRow("SELECT COUNT(*) FROM mysql.general_log WHERE LOCATE(UNHEX(?), argument) > 0",
						fmt.Sprintf("%X", needle)).Scan(&n); err != nil {
						t.Fatal(err)
					}
					found[what] = n > 0
				}
			} else {
				all := testserver.PostgresLogs(t, srv)
				for what, needle := range needles {
					found[what] = strings.Contains(string(all), needle)
				}
			}
			if !found["probe"] {
				t.Fatal("the log does not hold the probe statement: the search below would prove nothing")
			}
			if found["admin password"] || found["super password"] {
				t.Errorf("setup passwords in the statement log: admin %v, super %v", found["admin password"], found["super password"])
			}
		})
	}
}

// TestStatementLogFenceWaitsForLogger holds PostgreSQL's logging collector
// stopped (SIGSTOP) while the admin runs a statement, and lets it go on
// 300 ms later: StatementsSince, called at once, must wait for its fence and
// still return the statement. (MariaDB writes its log synchronously, before
// the statement runs, so there is nothing to hold up there.)
func TestStatementLogFenceWaitsForLogger(t *testing.T) {
	srv := testserver.Shared(t, testserver.EnginePostgres)
	if srv.PID() == 0 {
		t.Fatalf("%s backend: this test needs the server's processes on this machine (a logger process to pause)", srv.Backend)
	}
	srv.RequireStatementLog(t)
	logger := childNamed(srv.PID(), "postgres: logger")
	if logger == 0 {
		t.Fatalf("no logging collector process under postmaster %d", srv.PID())
	}
	admin := openVerifyFull(t, srv, srv.Admin)
	mark := srv.MarkLog(t)
	stmt := fmt.Sprintf("SELECT 'held-%s'", uniqueTag())
	if err := testserver.Signal(srv, logger, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	resumed := make(chan struct{})
	go func() {
		defer close(resumed)
		time.Sleep(300 * time.Millisecond)
		released.Store(true)
		_ = testserver.Signal(srv, logger, syscall.SIGCONT)
	}()
	defer func() { <-resumed }()
	mustExec(t, admin, stmt)
	got, err := srv.StatementsSince(context.Background(), mark, srv.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	if !released.Load() {
		t.Fatal("StatementsSince returned while the logger was still stopped")
	}
	if indexOf(got, stmt) < 0 {
		t.Errorf("statement run while the logger was stopped is missing:\n%s", dump(got))
	}
}

// childNamed returns a child of ppid whose command line starts with prefix.
func childNamed(ppid int, prefix string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		st := string(b)
		f := strings.Fields(st[strings.LastIndexByte(st, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(string(cmd), prefix) {
			return pid
		}
	}
	return 0
}

// TestStatementLogDDL: the DDL filter picks CREATE, GRANT and a refused
// CREATE, skips SELECT; CheckNoDDL and AssertNoDDL report them with the
// password redacted, and pass a window without DDL.
func TestStatementLogDDL(t *testing.T) {
	for _, kind := range testserver.Kinds() { // MariaDB and MySQL logs differ: each kind
		engine, _ := testserver.KindServer(kind)
		t.Run(kind, func(t *testing.T) {
			srv := testserver.SharedKind(t, kind)
			admin := openVerifyFull(t, srv, srv.Admin)
			tag := uniqueTag()
			dbName, user, secret := "ddl_"+tag, "ddl_user_"+tag, "Secr3t"+tag
			var create, createUser, grant, selectStmt string
			if engine == testserver.EngineMySQL {
				create = "CREATE DATABASE " + dbName
				createUser = fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", user, secret)
				grant = fmt.Sprintf("GRANT SELECT ON `%s`.* TO '%s'@'%%'", strings.ReplaceAll(dbName, "_", `\_`), user)
				selectStmt = "SELECT 1 /* CREATE in a comment */"
				t.Cleanup(func() {
					srv.MustExec(t, "DROP USER IF EXISTS '"+user+"'@'%'", "DROP DATABASE IF EXISTS "+dbName)
				})
			} else {
				create = "CREATE DATABASE " + dbName
				createUser = fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", user, secret)
				grant = fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", dbName, user)
				selectStmt = "SELECT 1 /* CREATE in a comment */"
				t.Cleanup(func() {
					srv.MustExec(t, "DROP DATABASE IF EXISTS "+dbName, "DROP ROLE IF EXISTS "+user)
				})
			}

			mark := srv.MarkLog(t)
			mustExec(t, admin, selectStmt, create, createUser, grant)
			if _, err := admin.Exec(create); err == nil { // exists: refused, but sent
				t.Fatalf("second %q succeeded", create)
			}
			ctx := context.Background()
			ddl, err := srv.DDLSince(ctx, mark, srv.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("DDL since the mark:\n%s", dump(ddl))
			loggedUser := createUser
			if kind == testserver.KindMySQL {
				// MySQL writes the password into its general log as <secret>.
				loggedUser = strings.Replace(createUser, "'"+secret+"'", "<secret>", 1)
			}
			want := []string{create, loggedUser, grant, create}
			if got := texts(ddl); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("DDLSince texts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			all, err := srv.StatementsSince(ctx, mark, srv.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			if indexOf(all, selectStmt) < 0 {
				t.Errorf("the SELECT is not among all statements:\n%s", dump(all))
			}

			// The checks that tests use report the violation.
			err = srv.CheckNoDDL(ctx, mark, srv.Admin.Username)
			if err == nil || !strings.Contains(err.Error(), grant) || !strings.Contains(err.Error(), "4 DDL/DCL") {
				t.Errorf("CheckNoDDL = %v, want an error listing the 4 statements", err)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("CheckNoDDL error shows the password: %v", err)
			}
			rec := &recordingTB{TB: t}
			srv.AssertNoDDL(rec, mark, srv.Admin.Username)
			if len(rec.failures) != 1 || !strings.Contains(rec.failures[0], grant) {
				t.Errorf("AssertNoDDL over a window with DDL: failures %q, want one naming %q", rec.failures, grant)
			}

			// A window with statements but no DDL passes.
			clean := srv.MarkLog(t)
			mustExec(t, admin, selectStmt)
			if err := srv.CheckNoDDL(ctx, clean, srv.Admin.Username); err != nil {
				t.Errorf("CheckNoDDL over a SELECT: %v", err)
			}
			rec = &recordingTB{TB: t}
			srv.AssertNoDDL(rec, clean, srv.Admin.Username)
			if len(rec.failures) != 0 {
				t.Errorf("AssertNoDDL over a SELECT failed: %q", rec.failures)
			}
			// The DDL of the first window is before this mark.
			if ddl, err := srv.DDLSince(ctx, clean, srv.Admin.Username); err != nil || len(ddl) != 0 {
				t.Errorf("DDLSince(clean mark) = %v, %v; want none", ddl, err)
			}

			// A zero mark is refused, never an empty (passing) window.
			rec = &recordingTB{TB: t}
			srv.AssertNoDDL(rec, testserver.LogMark{}, srv.Admin.Username)
			if len(rec.failures) != 1 || !strings.Contains(rec.failures[0], "zero LogMark") {
				t.Errorf("AssertNoDDL with a zero mark: failures %q, want one about the zero mark", rec.failures)
			}
			other := testserver.Shared(t, otherEngine(engine))
			if _, err := srv.StatementsSince(ctx, other.MarkLog(t), srv.Admin.Username); err == nil {
				t.Error("StatementsSince accepted another server's mark")
			}
		})
	}
}

// TestCreateAdminLogin: a login with Admin's rights, whose statements are
// its own: neither the Admin's window nor its window holds the other's.
func TestCreateAdminLogin(t *testing.T) {
	for _, kind := range testserver.Kinds() { // MariaDB and MySQL logs differ: each kind
		t.Run(kind, func(t *testing.T) {
			srv := testserver.SharedKind(t, kind)
			tag := uniqueTag()
			own := srv.CreateAdminLogin(t, "own_admin_"+tag)
			db := openVerifyFull(t, srv, own)
			admin := openVerifyFull(t, srv, srv.Admin)
			mark := srv.MarkLog(t)
			create := "CREATE DATABASE own_" + tag
			mustExec(t, db, create)
			t.Cleanup(func() { srv.MustExec(t, "DROP DATABASE IF EXISTS own_"+tag) })
			mustExec(t, admin, "SELECT 'admin-"+tag+"'")
			ctx := context.Background()
			mine, err := srv.DDLSince(ctx, mark, own.Username)
			if err != nil || len(mine) != 1 || mine[0].Text != create {
				t.Errorf("DDL of %s = %v, %v; want [%s]", own.Username, mine, err, create)
			}
			if err := srv.CheckNoDDL(ctx, mark, srv.Admin.Username); err != nil {
				t.Errorf("the other login's DDL is counted against the admin: %v", err)
			}
			if got, err := srv.StatementsSince(ctx, mark, own.Username); err != nil || containsText(got, "admin-"+tag) {
				t.Errorf("the admin's statement is in %s's window: %v, %v", own.Username, got, err)
			}
		})
	}
}

// TestStatementLogPostgresFailedStatements: statements PostgreSQL never ran
// (syntax error in the simple protocol, unknown table at parse time in the
// extended protocol) count as sent, as Kind "error"; a refused statement
// that was logged before it ran is listed once.
func TestStatementLogPostgresFailedStatements(t *testing.T) {
	srv := testserver.Shared(t, testserver.EnginePostgres)
	admin := openVerifyFull(t, srv, srv.Admin)
	tag := uniqueTag()
	mark := srv.MarkLog(t)
	syntax := "CREAT DATABASE syntax_" + tag
	parse := fmt.Sprintf("SELECT * FROM no_such_table_%s WHERE a = $1", tag)
	refused := "ALTER SYSTEM SET work_mem = '8MB' -- " + tag
	for _, q := range []string{syntax, refused} {
		if _, err := admin.Exec(q); err == nil {
			t.Fatalf("%q succeeded", q)
		}
	}
	if _, err := admin.Exec(parse, 1); err == nil {
		t.Fatalf("%q succeeded", parse)
	}
	got, err := srv.StatementsSince(context.Background(), mark, srv.Admin.Username)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("admin's statements:\n%s", dump(got))
	want := []testserver.Statement{{Kind: "error", Text: syntax}, {Kind: "statement", Text: refused}, {Kind: "error", Text: parse}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
	// A syntax error is not DDL by its first keyword; ALTER SYSTEM is.
	ddl, err := srv.DDLSince(context.Background(), mark, srv.Admin.Username)
	if err != nil || len(ddl) != 1 || ddl[0].Text != refused {
		t.Errorf("DDLSince = %v, %v; want the ALTER SYSTEM only", ddl, err)
	}
}

// TestStatementLogDSN reads the statement log through the dsn backend,
// pointed at the local shared servers: MySQL reads mysql.general_log as on
// the local backend, PostgreSQL reads the jsonlog with pg_read_binary_file
// instead of from the file.
func TestStatementLogDSN(t *testing.T) {
	for _, kind := range testserver.Kinds() { // MariaDB and MySQL logs differ: each kind
		t.Run(kind, func(t *testing.T) {
			target := testserver.SharedKind(t, kind)
			srv := startDSNOn(t, target)
			srv.RequireStatementLog(t)
			admin := openVerifyFull(t, srv, srv.Admin)
			mark := srv.MarkLog(t)
			stmt := fmt.Sprintf("CREATE DATABASE dsn_%s", uniqueTag())
			mustExec(t, admin, stmt)
			t.Cleanup(func() { target.MustExec(t, "DROP DATABASE IF EXISTS "+strings.TrimPrefix(stmt, "CREATE DATABASE ")) })
			ddl, err := srv.DDLSince(context.Background(), mark, srv.Admin.Username)
			if err != nil {
				t.Fatal(err)
			}
			if len(ddl) != 1 || ddl[0].Text != stmt {
				t.Errorf("DDLSince over dsn = %v, want [%s]", ddl, stmt)
			}
		})
	}
}

// TestStatementLogDSNTurnsLogOnAndBack: a dsn MariaDB whose general log is
// off gets it turned on at first use and turned back off by Stop. Not
// parallel: starts racing for free ports would upset TestStopRemovesDirAndProcess,
// which counts its start attempts.
func TestStatementLogDSNTurnsLogOnAndBack(t *testing.T) {
	skipUnselected(t, testserver.EngineMySQL)
	target, err := testserver.Start(context.Background(), testserver.EngineMySQL)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	target.MustExec(t, "SET GLOBAL general_log = 0", "SET GLOBAL log_output = 'FILE'")
	srv := startDSNOn(t, target)
	srv.RequireStatementLog(t)
	var on int
	var output string
	super, _ := target.SuperDB("")
	if err := super.QueryRow("SELECT @@global.general_log, @@global.log_output").Scan(&on, &output); err != nil || on != 1 || output != "FILE,TABLE" {
		t.Errorf("after first use: general_log %d, log_output %q (%v); want 1, FILE,TABLE", on, output, err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := super.QueryRow("SELECT @@global.general_log, @@global.log_output").Scan(&on, &output); err != nil || on != 0 || output != "FILE" {
		t.Errorf("after Stop: general_log %d, log_output %q (%v); want 0, FILE", on, output, err)
	}
}

// TestStatementLogDockerPostgresRefused is not runnable here (no Docker
// daemon); the refusal is covered by reading newPostgresLogReader.

// TestIsDDL covers the classifier without a server.
func TestIsDDL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine, stmt string
		want         bool
	}{
		{"mysql", "CREATE DATABASE x", true},
		{"mysql", "  \n\tcreate user 'a'@'%'", true},
		{"mysql", "GRANT SELECT ON `x`.* TO 'a'@'%'", true},
		{"mysql", "REVOKE ALL ON *.* FROM 'a'@'%'", true},
		{"mysql", "drop user if exists 'a'@'%'", true},
		{"mysql", "ALTER USER 'a'@'%' IDENTIFIED BY 'p'", true},
		{"mysql", "RENAME USER 'a'@'%' TO 'b'@'%'", true},
		{"mysql", "TRUNCATE t", true},
		{"mysql", "SET PASSWORD FOR 'a'@'%' = PASSWORD('p')", true},
		{"mysql", "set  password = 'p'", true},
		{"mysql", "SET DEFAULT ROLE r FOR 'a'@'%'", true},
		{"mysql", "/* leading */ -- line\n# hash\nCREATE TABLE t (a int)", true},
		{"mysql", "/*!50001 CREATE ALGORITHM=UNDEFINED VIEW v AS SELECT 1 */", true},
		{"mysql", "/*M!100100 DROP TABLE t */", true},
		{"mysql", "SELECT 1", false},
		{"mysql", "select 'CREATE DATABASE x'", false},
		{"mysql", "SELECT 'a;CREATE' FROM t", false},
		{"mysql", "SELECT 'it''s; DROP TABLE t'", false},
		{"mysql", `SELECT "a\"; DROP TABLE t"`, true}, // a DROP under NO_BACKSLASH_ESCAPES: flagged
		{"mysql", "SELECT `a;drop` FROM t", false},
		{"mysql", "SELECT 1; DROP TABLE t", true},
		{"mysql", "SET SESSION sql_mode = 'ANSI'", false},
		{"mysql", "SET STATEMENT sql_mode = 'A,NO_AUTO_CREATE_USER' FOR GRANT SELECT ON `x`.* TO 'a'@'%'", true},
		{"mysql", "set statement max_statement_time=1, sql_mode='for x' for select 1", false},
		{"mysql", "SET STATEMENT sql_mode = 'FOR GRANT' FOR SELECT 1", false},
		{"mysql", "SET GLOBAL general_log = 1", false},
		{"mysql", "SHOW GRANTS FOR 'a'@'%'", false},
		{"mysql", "DO RELEASE_LOCK('x')", false},
		{"mysql", "SELECT GET_LOCK('create', 5)", false},
		{"mysql", "createx", false},
		{"mysql", "INSERT INTO t VALUES ('DROP')", false},
		{"postgres", "CREATE ROLE a LOGIN", true},
		{"postgres", "REASSIGN OWNED BY a TO b", true},
		{"postgres", "COMMENT ON DATABASE x IS 'y'", true},
		{"postgres", "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO a", true},
		{"postgres", "DO $$BEGIN EXECUTE 'CREATE TABLE t ()'; END$$", true},
		{"postgres", "SELECT $$; DROP TABLE t$$", false},
		{"postgres", "SELECT $tag$ ; CREATE $tag$", false},
		{"postgres", "SELECT $1::text", false},
		{"postgres", "SELECT 'C:\\'; CREATE TABLE t ()", true},
		{"postgres", "SELECT E'it\\'s; DROP' ", false},
		{"postgres", "/* outer /* nested; DROP */ still comment */ SELECT 1", false},
		{"postgres", "SELECT 1; CREATE DATABASE x", true},
		{"postgres", "-- ping", false},
		{"postgres", "SET ROLE a", false},
		{"postgres", "", false},
	}
	for _, c := range cases {
		if got := testserver.IsDDL(c.engine, c.stmt); got != c.want {
			t.Errorf("IsDDL(%s, %q) = %v, want %v", c.engine, c.stmt, got, c.want)
		}
	}
}

func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"CREATE USER 'a'@'%' IDENTIFIED BY 'p''w'":         "CREATE USER 'a'@'%' IDENTIFIED BY '***'",
		"ALTER USER 'a'@'%' identified by 'x\\'y' ACCOUNT": "ALTER USER 'a'@'%' identified by '***' ACCOUNT",
		"CREATE ROLE a LOGIN PASSWORD 'x'":                 "CREATE ROLE a LOGIN PASSWORD '***'",
		"SET PASSWORD FOR 'a'@'%' = PASSWORD('x')":         "SET PASSWORD FOR 'a'@'%' = PASSWORD('***')",
		"SET PASSWORD = 'x'":                               "SET PASSWORD = '***'",
		"CREATE USER a IDENTIFIED BY PASSWORD '*ABC'":      "CREATE USER a IDENTIFIED BY PASSWORD '***'",
		"SELECT 'password'":                                "SELECT 'password'",
	}
	for in, want := range cases {
		if got := testserver.RedactSecrets(in); got != want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", in, got, want)
		}
	}
}

// ---------------------------------------------------------------------------
// helpers

// recordingTB records failures instead of failing, to test AssertNoDDL.
type recordingTB struct {
	testing.TB
	failures []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(f string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(f, a...))
}
func (r *recordingTB) Errorf(f string, a ...any) {
	r.failures = append(r.failures, fmt.Sprintf(f, a...))
}
func (r *recordingTB) Fatal(a ...any) { r.failures = append(r.failures, fmt.Sprint(a...)) }
func (r *recordingTB) Error(a ...any) { r.failures = append(r.failures, fmt.Sprint(a...)) }

func uniqueTag() string { return fmt.Sprintf("%d_%d", os.Getpid(), time.Now().UnixNano()%1e12) }

func otherEngine(engine string) string {
	if engine == testserver.EngineMySQL {
		return testserver.EnginePostgres
	}
	return testserver.EngineMySQL
}

func indexOf(stmts []testserver.Statement, text string) int {
	for i, st := range stmts {
		if st.Text == text {
			return i
		}
	}
	return -1
}

func containsText(stmts []testserver.Statement, sub string) bool {
	for _, st := range stmts {
		if strings.Contains(st.Text, sub) {
			return true
		}
	}
	return false
}

func texts(stmts []testserver.Statement) []string {
	out := make([]string, len(stmts))
	for i, st := range stmts {
		out[i] = st.Text
	}
	return out
}

func dump(stmts []testserver.Statement) string {
	var b strings.Builder
	for i, st := range stmts {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, testserver.RedactSecrets(st.String()))
	}
	return b.String()
}

// startDSNOn starts a dsn-backend server pointed at target through its
// superuser (as TestDSNBackend does), stopped when the test ends.
func startDSNOn(t *testing.T, target *testserver.Server) *testserver.Server {
	t.Helper()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(target.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	var dsn string
	if target.Engine == testserver.EngineMySQL {
		dsn = fmt.Sprintf("%s:%s@tcp(%s)/?tls=skip-verify", target.Super.Username, target.Super.Password, target.Addr())
	} else {
		dsn = fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=verify-full&sslrootcert=%s",
			target.Super.Username, target.Super.Password, target.Addr(), caFile)
	}
	// Not through the environment: t.Setenv forbids t.Parallel.
	srv, err := testserver.StartDSN(context.Background(), target.Engine, dsn, caFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}
