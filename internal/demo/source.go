// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Where the demo's server comes from, decided before anything slow runs:
// a server the user names (Existing), else a throwaway one from local
// server binaries, else a throwaway one from Docker, else nothing, and the
// demo stops at once saying how to install one.

const (
	enginePostgres = "postgres"
	engineMySQL    = "mysql"
)

// flavor is what ENGINE asks for.
type flavor string

const (
	flavorPostgres flavor = "postgres"
	flavorMariaDB  flavor = "mariadb"
	flavorMySQL    flavor = "mysql"
)

func parseFlavor(s string) (flavor, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "postgres", "postgresql", "pg":
		return flavorPostgres, nil
	case "mariadb":
		return flavorMariaDB, nil
	case "mysql":
		return flavorMySQL, nil
	}
	return "", fmt.Errorf("ENGINE=%s: want postgres (the default), mariadb or mysql", s)
}

// engine is the provider's engine name for the flavor.
func (f flavor) engine() string {
	if f == flavorPostgres {
		return enginePostgres
	}
	return engineMySQL
}

func (f flavor) product() string {
	switch f {
	case flavorMariaDB:
		return "MariaDB"
	case flavorMySQL:
		return "MySQL"
	}
	return "PostgreSQL"
}

// dockerImage is the image a throwaway server of the flavor runs.
func (f flavor) dockerImage() string {
	switch f {
	case flavorMariaDB:
		return "mariadb:11.4"
	case flavorMySQL:
		return "mysql:8.4"
	}
	return "postgres:15"
}

// Existing names a server the user already runs. The demo connects as its
// admin login only: that login needs the rights README lists for the
// provider, and the demo uses the same rights for its own few statements
// (creating the reporting login beforehand, reading rows, and removing
// what it made at the end).
type Existing struct {
	Host     string
	Port     int    // 0: 5432 for postgres, 3306 otherwise
	Admin    string // "": tenantdb_admin
	Password string
	TLS      string // "": verify-full when CAPEM is set, else require
	CAPEM    string // PEM of the CA that signed the server's certificate
}

// Server sources.
const (
	sourceExisting = "existing"
	sourceLocal    = "local"
	sourceDocker   = "docker"
)

type source struct {
	kind   string
	binDir string // local PostgreSQL found outside Debian's layout: its bin dir
}

func (s source) describe(f flavor) string {
	switch s.kind {
	case sourceExisting:
		return "your server (DEMO_HOST)"
	case sourceDocker:
		return "throwaway server from Docker (" + f.dockerImage() + ")"
	}
	return "throwaway server from local binaries"
}

// chooseSource picks where the server comes from; ok is false when there
// is none.
func chooseSource(cfg Config, f flavor) (source, bool) {
	if cfg.Existing != nil {
		return source{kind: sourceExisting}, true
	}
	if !throwawaySupported {
		return source{}, false
	}
	local := cfg.localBinaries
	if local == nil {
		local = findLocalBinaries
	}
	if dir, ok := local(f); ok {
		return source{kind: sourceLocal, binDir: dir}, true
	}
	docker := cfg.dockerAvailable
	if docker == nil {
		docker = dockerAvailable
	}
	if docker() {
		return source{kind: sourceDocker}, true
	}
	return source{}, false
}

// findLocalBinaries looks where internal/testserver looks (MySQL: the Debian
// root scripts/mysql-root.sh builds, run as root). For PostgreSQL
// found on PATH rather than under /usr/lib/postgresql/<v>/bin it returns the
// bin dir, which the demo hands to testserver.
func findLocalBinaries(f flavor) (string, bool) {
	if f == flavorMySQL {
		return "", localMySQLRoot()
	}
	if f == flavorPostgres {
		if dir := os.Getenv("TENANTDB_TEST_POSTGRES_BINDIR"); dir != "" {
			return "", isExecutable(filepath.Join(dir, "postgres")) && isExecutable(filepath.Join(dir, "initdb"))
		}
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
		for _, m := range matches {
			if isExecutable(m) && isExecutable(filepath.Join(filepath.Dir(m), "initdb")) {
				return "", true
			}
		}
		if p, err := exec.LookPath("postgres"); err == nil {
			if dir := filepath.Dir(p); isExecutable(filepath.Join(dir, "initdb")) {
				return dir, true
			}
		}
		return "", false
	}
	find := func(names ...string) bool {
		for _, n := range names {
			if _, err := exec.LookPath(n); err == nil {
				return true
			}
		}
		return false
	}
	return "", find("mariadbd", "/usr/sbin/mariadbd") && find("mariadb-install-db", "/usr/bin/mariadb-install-db")
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// noServerMessage says why there is no server and the exact command that
// installs one on this platform.
func noServerMessage(f flavor) string {
	var b strings.Builder
	engine := ""
	if f != flavorPostgres {
		engine = " ENGINE=" + string(f)
	}
	useYours := "      export DEMO_ADMIN_PASSWORD=<the admin's password>; make demo" + engine + " DEMO_HOST=<host> [DEMO_CA_FILE=ca.pem]\n"
	cmd := installCommand(f)
	switch {
	case !throwawaySupported:
		fmt.Fprintf(&b, "✗ no server for the demo: this build starts throwaway servers on Linux only, and DEMO_HOST is not set.\n")
		if cmd != "" {
			fmt.Fprintf(&b, "  Install a server:\n      %s\n", cmd)
		}
		b.WriteString("  run it with password authentication and an admin login holding the rights README lists, then:\n" + useYours)
	case f == flavorMySQL:
		fmt.Fprintf(&b, "✗ no server for the demo: ENGINE=mysql runs MySQL 9.7 from the Debian root scripts/mysql-root.sh builds (as root), "+
			"or MySQL 8 from Docker (%s); neither is here, and DEMO_HOST is not set.\n", f.dockerImage())
		fmt.Fprintf(&b, "  Start Docker, or run MariaDB from local binaries: make demo ENGINE=mariadb")
		if c := installCommand(flavorMariaDB); c != "" {
			fmt.Fprintf(&b, " (install: %s)", c)
		}
		b.WriteString("\n  or use a MySQL server you run:\n" + useYours)
	default:
		fmt.Fprintf(&b, "✗ no server for the demo: no local %s server binaries, no Docker daemon, no DEMO_HOST.\n", f.product())
		if cmd != "" {
			fmt.Fprintf(&b, "  Install them (the demo starts its own throwaway server from them; no service is needed):\n      %s\n", cmd)
		} else if f == flavorPostgres {
			b.WriteString("  Install your system's PostgreSQL server package: initdb and postgres on PATH, or TENANTDB_TEST_POSTGRES_BINDIR=<their dir>.\n")
		} else {
			b.WriteString("  Install your system's MariaDB server package: mariadbd and mariadb-install-db on PATH.\n")
		}
		fmt.Fprintf(&b, "  or start Docker (the demo then runs %s), or use a server you run:\n%s", f.dockerImage(), useYours)
	}
	return b.String()
}

// installCommand is the command that installs the flavor's server on this
// platform, "" when the demo cannot tell.
func installCommand(f flavor) string {
	if f == flavorMySQL {
		return ""
	}
	if runtime.GOOS == "darwin" {
		if f == flavorPostgres {
			return "brew install postgresql@15"
		}
		return "brew install mariadb"
	}
	if runtime.GOOS != "linux" {
		return ""
	}
	sudo := "sudo "
	if os.Geteuid() == 0 {
		sudo = ""
	}
	id := osRelease()
	switch {
	case id["debian"] || id["ubuntu"]:
		pkg := "postgresql"
		if f == flavorMariaDB {
			pkg = "mariadb-server"
		}
		return sudo + "apt-get install -y " + pkg
	case id["fedora"] || id["rhel"] || id["centos"]:
		pkg := "postgresql-server"
		if f == flavorMariaDB {
			pkg = "mariadb-server"
		}
		return sudo + "dnf install -y " + pkg
	case id["arch"]:
		pkg := "postgresql"
		if f == flavorMariaDB {
			pkg = "mariadb"
		}
		return sudo + "pacman -S --noconfirm " + pkg
	}
	return ""
}

// osRelease returns the ID and ID_LIKE words of /etc/os-release.
func osRelease() map[string]bool {
	ids := map[string]bool{}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return ids
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || (k != "ID" && k != "ID_LIKE") {
			continue
		}
		for _, w := range strings.Fields(strings.Trim(v, `"'`)) {
			ids[w] = true
		}
	}
	return ids
}
