// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// MySQL (WithMySQL): mysqld 9.7 from Debian's unstable packages, run with
// chroot inside the Debian root scripts/server-root.sh builds once (root.go).

// mysqlRedoLogCapacity replaces MySQL's 100 MB redo log, plenty for tests.
const mysqlRedoLogCapacity = "--innodb-redo-log-capacity=16M"

// startLocalMySQL initialises a data dir in the root, starts mysqld there on
// a free port with our TLS certificate and the general query log in
// mysql.general_log, and creates the Super and Admin logins.
func startLocalMySQL(ctx context.Context, o startOptions) (_ *Server, err error) {
	x, err := chrootExec(mysqlRoot)
	if err != nil {
		return nil, err
	}
	// Stop is SIGKILL, as for MariaDB: the data is thrown away anyway.
	li, err := newLocalInstance(x.tmpParent(), "mysql", nil, syscall.SIGKILL)
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
	tmpDir := li.path("tmp")
	if err := os.MkdirAll(tmpDir, 0o700); err != nil {
		return nil, err
	}
	x.tmpDir = tmpDir
	socket := li.path("mysqld.sock")
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is too long for a unix socket: use a shorter %s", socket, EnvMySQLRoot)
	}
	mysqld := func(args ...string) []string {
		_, argv := x.command("/usr/sbin/mysqld", append([]string{
			// --no-defaults: the root's /etc/mysql config must not leak in.
			"--no-defaults", "--user=root", "--datadir=" + inRoot(dataDir), "--tmpdir=" + inRoot(tmpDir),
			mysqlRedoLogCapacity}, args...)...)
		return argv
	}
	initArgs := []string{"--initialize-insecure"}
	if o.lowerCaseTableNames {
		initArgs = append(initArgs, lowerCaseTableNamesFlag)
	}
	ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = li.run(ictx, "install.log", x.chroot, mysqld(initArgs...)...)
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
	return startMySQLProtocol(ctx, li, FlavorMySQL, socket, logPath, certs.caPEM, x.chroot, serverArgs)
}
