// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

const mariadbInstallHint = `install the server with "apt-get install -y mariadb-server" ` +
	`(it starts no service in a container), or set TENANTDB_TEST_BACKEND=docker or dsn`

// innodbLogFileSize replaces the 96 MB default redo log, plenty for tests.
const innodbLogFileSize = "--innodb-log-file-size=16M"

// lowerCaseTableNamesFlag is given to both mariadb-install-db and mariadbd
// for WithLowerCaseTableNames.
const lowerCaseTableNamesFlag = "--lower-case-table-names=1"

// findMariaDB locates mariadbd and mariadb-install-db. /usr/sbin is searched
// explicitly because it is often missing from PATH in CI.
func findMariaDB() (server, installDB string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	server = find("mariadbd", "/usr/sbin/mariadbd")
	installDB = find("mariadb-install-db", "/usr/bin/mariadb-install-db")
	if server == "" || installDB == "" {
		return "", "", fmt.Errorf("MariaDB binaries not found (mariadbd %q, mariadb-install-db %q): %s", server, installDB, mariadbInstallHint)
	}
	return server, installDB, nil
}

// startLocalMariaDB initialises a data dir, starts mariadbd on a free port
// with our TLS certificate and the general query log in mysql.general_log
// (see statementlog.go), and creates the Super and Admin logins: the
// machine's MariaDB, or for kind mariadb11 MariaDB 11.8 run with chroot in
// its Debian root (root.go).
func startLocalMariaDB(ctx context.Context, o startOptions) (_ *Server, err error) {
	var x serverExec
	var mariadbd, installDB string
	if o.kind == KindMariaDB11 {
		if x, err = chrootExec(mariadb11Root); err != nil {
			return nil, err
		}
		mariadbd, installDB = "/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db"
	} else if mariadbd, installDB, err = findMariaDB(); err != nil {
		return nil, err
	}
	// Stop is SIGKILL: a clean MariaDB shutdown takes seconds (buffer pool
	// dump, InnoDB shutdown) and the data is thrown away anyway; mariadbd is
	// a single process, so nothing is left behind.
	li, err := newLocalInstance(x.tmpParent(), "mariadb", nil, syscall.SIGKILL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = li.destroy(5 * time.Second)
		}
	}()
	inRoot := x.path

	tlsFiles, err := li.writeServerTLS(false)
	if err != nil {
		return nil, err
	}
	certs, caFile, certFile, keyFile := tlsFiles.certs, tlsFiles.caFile, tlsFiles.certFile, tlsFiles.keyFile

	dataDir := li.path("data")
	// A private tmpdir: bootstrap servers started at the same moment (test
	// binaries run in parallel) otherwise collide on temporary table files
	// in /tmp and abort with "Unknown table 'mysql.tmp_user_sys'".
	tmpDir := li.path("tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return nil, err
	}
	x.tmpDir = tmpDir
	socket := li.path("mysqld.sock")
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is too long for a unix socket: use a shorter TMPDIR", socket)
	}

	// --no-defaults everywhere: the machine's /etc/mysql config (a service's
	// datadir, socket, port, bind address) must not leak in.
	installArgs := []string{"--no-defaults", "--datadir=" + inRoot(dataDir), "--tmpdir=" + inRoot(tmpDir),
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve",
		// Passed through to the bootstrap mariadbd: an 8x smaller data dir
		// (25 MB, not 113 MB) and a slightly faster install.
		innodbLogFileSize}
	if o.lowerCaseTableNames {
		// Also passed through to the bootstrap server: the system tables
		// are created under the setting the server will run with.
		installArgs = append(installArgs, lowerCaseTableNamesFlag)
	}
	if os.Geteuid() == 0 {
		installArgs = append(installArgs, "--user=root")
	}
	ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	name, argv := x.command(installDB, installArgs...)
	err = li.run(ictx, "install.log", name, argv...)
	cancel()
	if err != nil {
		return nil, err
	}

	logPath := li.path("error.log")
	serverArgs := func(port int) []string {
		args := []string{
			"--no-defaults",
			"--datadir=" + inRoot(dataDir),
			"--tmpdir=" + inRoot(tmpDir),
			"--bind-address=127.0.0.1",
			"--port=" + strconv.Itoa(port),
			"--socket=" + inRoot(socket),
			"--log-error=" + inRoot(logPath),
			"--pid-file=" + inRoot(li.path("mariadbd.pid")),
			"--skip-name-resolve",
			// Small and quick: a test server holds a few tiny databases.
			"--innodb-buffer-pool-size=32M",
			innodbLogFileSize,
			"--performance-schema=OFF",
			"--innodb-buffer-pool-load-at-startup=OFF",
			"--innodb-buffer-pool-dump-at-shutdown=OFF",
			// TLS offered, not required (require_secure_transport stays OFF)
			// so tests can check both tls "verify-full" and "disable".
			"--ssl-ca=" + inRoot(caFile),
			"--ssl-cert=" + inRoot(certFile),
			"--ssl-key=" + inRoot(keyFile),
			// Every statement, with the login that sent it, goes to the
			// CSV table mysql.general_log: one row per statement (newlines
			// escaped), read back with SQL (statementlog_mysql.go).
			"--general-log=1",
			"--log-output=TABLE",
			// Applies only once a test installs the PAM plugin (auth_pam):
			// its logins then ask the client for mysql_clear_password, the
			// plugin RDS's IAM logins use (iam_auth_test.go).
			"--loose-pam-use-cleartext-plugin=ON",
		}
		if o.kind != KindMariaDB11 {
			// Debian 12's packaged config sets these; --no-defaults drops
			// them. Match a stock Debian server rather than MariaDB 10.11's
			// latin1 default. Debian 13's config sets none: MariaDB 11.8's
			// own default (utf8mb4, utf8mb4_uca1400_ai_ci) is what its
			// servers run with, and what the tests must see.
			args = append(args, "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
		}
		if o.lowerCaseTableNames {
			args = append(args, lowerCaseTableNamesFlag)
		}
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		_, argv := x.command(mariadbd, args...)
		return argv
	}
	name, _ = x.command(mariadbd)
	return startMySQLProtocol(ctx, li, FlavorMariaDB, socket, logPath, certs.caPEM, name, serverArgs)
}

// startMySQLProtocol starts a MariaDB or MySQL server (name, with
// serverArgs(port)) on a free port, retrying on a new one when the chosen
// port was taken, waits until root answers on the socket, creates the
// Super and Admin logins and describes the server. The caller's instance
// already holds an initialised data dir.
func startMySQLProtocol(ctx context.Context, li *localInstance, flavor, socket, logPath string, caPEM []byte,
	name string, serverArgs func(port int) []string,
) (*Server, error) {
	rootConnector, err := mysql.NewConnector(rootSocketConfig(socket))
	if err != nil {
		return nil, err
	}
	ready := func(ctx context.Context) error {
		conn, err := rootConnector.Connect(ctx)
		if err != nil {
			return err
		}
		return conn.Close()
	}
	var port, attempts int
	var args []string
	for attempt := 1; ; attempt++ {
		if port, err = pickPort(attempt); err != nil {
			return nil, err
		}
		args = serverArgs(port)
		if err = li.startServer(logPath, name, args...); err != nil {
			return nil, err
		}
		err = waitFor(ctx, readyTimeout, li.exited, ready)
		if err == nil {
			attempts = attempt
			break
		}
		_ = li.stopServer(5 * time.Second)
		if attempt < bindAttempts && isBindFailure(logPath, port) {
			continue
		}
		return nil, fmt.Errorf("%s on port %d: %w%s", flavor, port, err, logTail(logPath))
	}

	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	if err := setupSocketLogins(ctx, socket, flavor, super, admin); err != nil {
		return nil, fmt.Errorf("set up logins: %w%s", err, logTail(logPath))
	}

	s, err := newLocalServer(EngineMySQL, flavor, port, caPEM, li, attempts, super, admin)
	if err != nil {
		return nil, err
	}
	s.open = func(login Login, database string) (*sql.DB, error) {
		return openMySQL(mysqlTCPConfig(s.Host, s.Port, login, database, s.tlsConf))
	}
	s.stopBackend = func() error { return li.destroy(5 * time.Second) }
	s.restartable(li, func() error { return li.startServer(logPath, name, args...) }, ready)
	if err := finishSetup(ctx, s); err != nil {
		return nil, fmt.Errorf("%w%s", err, logTail(logPath))
	}
	return s, nil
}

// rootSocketConfig connects as root over the unix socket, where root has an
// empty password (--auth-root-authentication-method=normal).
func rootSocketConfig(socket string) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.Net = "unix"
	cfg.Addr = socket
	cfg.User = "root"
	cfg.Timeout = 2 * time.Second
	return cfg
}

// setupSocketLogins runs, as root over the socket and not logged: removal of
// the accounts that would let anyone on the machine in without a password
// over TCP (root@127.0.0.1, root@::1, root@<hostname>, anonymous users), then
// the creation of Super and Admin (MariaDB or MySQL, as flavor says).
func setupSocketLogins(ctx context.Context, socket, flavor string, super, admin Login) error {
	cfg := rootSocketConfig(socket)
	// Keep this session out of the general log: it sets the Super and Admin
	// passwords, and nothing a test asks about happens here.
	cfg.Params = map[string]string{"sql_log_off": "1"}
	db, err := openMySQL(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT User, Host FROM mysql.user WHERE (User = 'root' AND Host <> 'localhost') OR User = ''")
	if err != nil {
		return err
	}
	var drops []string
	for rows.Next() {
		var u, h string
		if err := rows.Scan(&u, &h); err != nil {
			rows.Close()
			return err
		}
		drops = append(drops, "DROP USER "+mysqlString(u)+"@"+mysqlString(h))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := execAll(ctx, db, drops); err != nil {
		return err
	}
	return setupLogins(ctx, db, EngineMySQL, flavor, super, admin)
}

// finishSetup checks the server the way tests will use it (superuser over
// TCP, with TLS verified against CAPEM when set) and records its version.
// On failure it closes any pool it opened: the caller discards s.
func finishSetup(ctx context.Context, s *Server) (err error) {
	defer func() {
		if err != nil {
			s.mu.Lock()
			for _, db := range s.dbs {
				_ = db.Close()
			}
			s.dbs = nil
			s.mu.Unlock()
		}
	}()
	db, err := s.SuperDB("")
	if err != nil {
		return err
	}
	s.version, err = queryVersion(ctx, s.Engine, db)
	return err
}
