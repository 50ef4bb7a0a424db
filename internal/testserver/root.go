// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Servers run with chroot inside a Debian root that scripts/server-root.sh
// builds once, because their Debian packages need a newer libc than this
// machine's: MySQL 9.7 (Debian sid) and MariaDB 11.8 (Debian 13, trixie).
// Everything such a server touches (data, TLS files, socket, logs, temp
// files) lives in a temp dir inside the root, so the paths it sees are the
// host's paths with the root's prefix removed.

// EnvMySQLRoot names the Debian root holding MySQL (default
// ~/.cache/tenantdb/mysql-root), as scripts/server-root.sh mysql builds it.
const EnvMySQLRoot = "TENANTDB_MYSQL_ROOT"

// EnvMariaDB11Root names the Debian root holding MariaDB 11.8 (default
// ~/.cache/tenantdb/mariadb11-root), as scripts/server-root.sh mariadb11
// builds it.
const EnvMariaDB11Root = "TENANTDB_MARIADB11_ROOT"

// debianRoot describes one kind's root: where it is and what proves it built.
type debianRoot struct {
	kind    string // the argument of scripts/server-root.sh
	env     string
	dirName string // under ~/.cache/tenantdb
	server  string // the server binary, as the root sees it
	what    string // for messages
}

var (
	mysqlRoot     = debianRoot{KindMySQL, EnvMySQLRoot, "mysql-root", "/usr/sbin/mysqld", "a Debian sid root with mysql-server-core, about 800 MB"}
	mariadb11Root = debianRoot{KindMariaDB11, EnvMariaDB11Root, "mariadb11-root", "/usr/sbin/mariadbd", "a Debian trixie root with mariadb-server, about 600 MB"}
)

// find returns the root (its env var or ~/.cache/tenantdb/<dirName>), or
// why a server cannot run from it: missing, or this process is not root
// (chroot).
func (r debianRoot) find() (string, error) {
	root := os.Getenv(r.env)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s is unset and there is no home dir: %w", r.env, err)
		}
		root = filepath.Join(home, ".cache", "tenantdb", r.dirName)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if _, err := os.Stat(filepath.Join(root, r.server)); err != nil {
		return "", fmt.Errorf("no %s root at %s (%w): build it with scripts/server-root.sh %s (%s, a few minutes once; make test runs it), or set %s",
			r.kind, root, err, r.kind, r.what, r.env)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("the %s server runs with chroot into %s, which needs root (run the tests as root, or leave out the %s server: %s=mariadb,postgres)",
			r.kind, root, r.kind, EnvEngines)
	}
	return root, nil
}

// MySQLRoot returns the Debian root holding mysqld (TENANTDB_MYSQL_ROOT or
// ~/.cache/tenantdb/mysql-root), or why it cannot run from it: missing, or
// this process is not root (chroot).
func MySQLRoot() (string, error) { return mysqlRoot.find() }

// MariaDB11Root is MySQLRoot for MariaDB 11.8 (TENANTDB_MARIADB11_ROOT or
// ~/.cache/tenantdb/mariadb11-root).
func MariaDB11Root() (string, error) { return mariadb11Root.find() }

// serverExec says how a server's programs run and which paths they see: on
// the host as they are (root ""), or with chroot in a Debian root.
type serverExec struct {
	root   string // host path of the root; "" = the host
	chroot string // the chroot binary
	tmpDir string // TMPDIR inside the root (a host TMPDIR missing there breaks initialisation)
}

// chrootExec prepares running programs in the root r, with TMPDIR set to
// tmpDir (a host path inside the root) once the caller knows it.
func chrootExec(r debianRoot) (serverExec, error) {
	root, err := r.find()
	if err != nil {
		return serverExec{}, err
	}
	chroot, err := exec.LookPath("chroot")
	if err != nil {
		if chroot, err = exec.LookPath("/usr/sbin/chroot"); err != nil {
			return serverExec{}, errors.New("chroot not found (coreutils)")
		}
	}
	return serverExec{root: root, chroot: chroot}, nil
}

// tmpParent is where the server's temp dir goes: in a root, its
// /tenantdb-scratch tmpfs (mountRootTmpfs) or else its /tmp; on the host,
// scratchParent.
func (x serverExec) tmpParent() string {
	if x.root == "" {
		return scratchParent()
	}
	if dir := filepath.Join(x.root, "tenantdb-scratch"); mountRootTmpfs(dir) {
		return dir
	}
	return filepath.Join(x.root, "tmp")
}

// path is host path p as the server sees it.
func (x serverExec) path(p string) string {
	if x.root == "" {
		return p
	}
	return "/" + strings.TrimPrefix(strings.TrimPrefix(p, x.root), "/")
}

// command is the program and arguments that run bin (a path as the server
// sees it) with args: chroot ROOT env TMPDIR=... bin args... in a root
// (env and bin replace chroot in the same process, so the pid the harness
// watches, signals and crashes is the server's).
func (x serverExec) command(bin string, args ...string) (string, []string) {
	if x.root == "" {
		return bin, args
	}
	return x.chroot, append([]string{x.root, "/usr/bin/env", "TMPDIR=" + x.path(x.tmpDir), bin}, args...)
}
