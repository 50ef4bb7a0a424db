// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MySQL (WithMySQL): mysqld 9.7 from Debian's unstable packages, run with
// chroot inside a Debian root that scripts/mysql-root.sh builds once (its
// binaries need a newer libc than this machine's). Everything the server
// touches (data, TLS files, socket, logs, temp files) lives in a temp dir
// inside the root, so the paths the server sees are the host's paths with
// the root's prefix removed.

// EnvMySQLRoot names the Debian root holding MySQL (default
// ~/.cache/tenantdb/mysql-root), as scripts/mysql-root.sh builds it.
const EnvMySQLRoot = "TENANTDB_MYSQL_ROOT"

const mysqlRootHint = "build it with scripts/mysql-root.sh (a Debian sid root with mysql-server-core, " +
	"about 800 MB, a few minutes once; make testacc-mysql runs it), or set " + EnvMySQLRoot

// mysqlRedoLogCapacity replaces MySQL's 100 MB redo log, plenty for tests.
const mysqlRedoLogCapacity = "--innodb-redo-log-capacity=16M"

// MySQLRoot returns the Debian root holding mysqld (TENANTDB_MYSQL_ROOT or
// ~/.cache/tenantdb/mysql-root), or why it cannot run from it: missing, or
// this process is not root (chroot).
func MySQLRoot() (string, error) {
	root := os.Getenv(EnvMySQLRoot)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s is unset and there is no home dir: %w", EnvMySQLRoot, err)
		}
		root = filepath.Join(home, ".cache", "tenantdb", "mysql-root")
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if _, err := os.Stat(filepath.Join(root, "usr", "sbin", "mysqld")); err != nil {
		return "", fmt.Errorf("no MySQL root at %s (%w): %s", root, err, mysqlRootHint)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("MySQL runs with chroot into %s, which needs root (run the tests as root, or leave out the mysql server: %s=mariadb,postgres)", root, EnvEngines)
	}
	return root, nil
}

// startLocalMySQL initialises a data dir in the root, starts mysqld there on
// a free port with our TLS certificate and the general query log in
// mysql.general_log, and creates the Super and Admin logins.
func startLocalMySQL(ctx context.Context, o startOptions) (_ *Server, err error) {
	root, err := MySQLRoot()
	if err != nil {
		return nil, err
	}
	chroot, err := exec.LookPath("chroot")
	if err != nil {
		if chroot, err = exec.LookPath("/usr/sbin/chroot"); err != nil {
			return nil, errors.New("chroot not found (coreutils)")
		}
	}
	tmpParent := filepath.Join(root, "tmp")
	// Stop is SIGKILL, as for MariaDB: the data is thrown away anyway.
	li, err := newLocalInstance(tmpParent, "mysql", nil, syscall.SIGKILL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = li.destroy(5 * time.Second)
		}
	}()
	// inRoot is a path as the chrooted server sees it.
	inRoot := func(p string) string { return "/" + strings.TrimPrefix(strings.TrimPrefix(p, root), "/") }

	tlsFiles, err := li.writeServerTLS(false)
	if err != nil {
		return nil, err
	}
	certs, caFile, certFile, keyFile := tlsFiles.certs, tlsFiles.caFile, tlsFiles.certFile, tlsFiles.keyFile
	dataDir := li.path("data")
	tmpDir := li.path("tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return nil, err
	}
	socket := li.path("mysqld.sock")
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is too long for a unix socket: use a shorter %s", socket, EnvMySQLRoot)
	}
	// chroot ROOT env TMPDIR=... mysqld ...: env and mysqld replace chroot
	// in the same process, so the pid we watch, signal and crash is mysqld's.
	mysqld := func(args ...string) []string {
		return append([]string{root, "/usr/bin/env", "TMPDIR=" + inRoot(tmpDir), "/usr/sbin/mysqld",
			// --no-defaults: the root's /etc/mysql config must not leak in.
			"--no-defaults", "--user=root", "--datadir=" + inRoot(dataDir), "--tmpdir=" + inRoot(tmpDir),
			mysqlRedoLogCapacity}, args...)
	}
	initArgs := []string{"--initialize-insecure"}
	if o.lowerCaseTableNames {
		initArgs = append(initArgs, lowerCaseTableNamesFlag)
	}
	ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = li.run(ictx, "install.log", chroot, mysqld(initArgs...)...)
	cancel()
	if err != nil {
		return nil, err
	}

	logPath := li.path("error.log")
	serverArgs := func(port int) []string {
		args := mysqld(
			"--bind-address=127.0.0.1",
			"--port="+strconv.Itoa(port),
			"--socket="+inRoot(socket),
			"--log-error="+inRoot(logPath),
			"--pid-file="+inRoot(li.path("mysqld.pid")),
			"--skip-name-resolve",
			"--mysqlx=OFF",
			"--secure-file-priv=",
			// Small and quick: a test server holds a few tiny databases,
			// and nothing reads a binary log.
			"--innodb-buffer-pool-size=32M",
			"--performance-schema=OFF",
			"--skip-log-bin",
			"--innodb-buffer-pool-load-at-startup=OFF",
			"--innodb-buffer-pool-dump-at-shutdown=OFF",
			// TLS offered, not required, as for MariaDB.
			"--ssl-ca="+inRoot(caFile),
			"--ssl-cert="+inRoot(certFile),
			"--ssl-key="+inRoot(keyFile),
			// The statement log, read as for MariaDB (statementlog_mysql.go).
			"--general-log=1",
			"--log-output=TABLE",
		)
		if o.lowerCaseTableNames {
			args = append(args, lowerCaseTableNamesFlag)
		}
		return args
	}
	return startMySQLProtocol(ctx, li, FlavorMySQL, socket, logPath, certs.caPEM, chroot, serverArgs)
}
