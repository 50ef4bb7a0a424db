// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"os"
	"strings"
)

// Environment variables read by this package (see the package comment).
const (
	EnvBackend        = "TENANTDB_TEST_BACKEND"
	EnvMySQLImage     = "TENANTDB_TEST_MYSQL_IMAGE"
	EnvPostgresImage  = "TENANTDB_TEST_POSTGRES_IMAGE"
	EnvMySQLDSN       = "TENANTDB_TEST_MYSQL_SUPER_DSN"
	EnvPostgresDSN    = "TENANTDB_TEST_POSTGRES_SUPER_DSN"
	EnvCAFile         = "TENANTDB_TEST_CA_FILE"
	EnvPostgresBinDir = "TENANTDB_TEST_POSTGRES_BINDIR"
	EnvEngines        = "TENANTDB_TEST_ENGINES"
	// EnvDockerNetwork: "published" (default: the container's port is
	// published on 127.0.0.1) or "host" (host networking, for Docker
	// daemons without a bridge network: the server listens on 127.0.0.1).
	EnvDockerNetwork = "TENANTDB_TEST_DOCKER_NETWORK"
	// EnvDockerRun: a label value given to every container this process
	// starts (org.tenantdb.testserver.run), so that the run's leftovers can
	// be found and removed (scripts/testacc-docker.sh).
	EnvDockerRun = "TENANTDB_TEST_DOCKER_RUN"
	// EnvPostgres14BinDir names a bin dir of PostgreSQL 14 (initdb,
	// postgres) for the tests that start one to see it refused or to check
	// the harness's csvlog path; unset, those tests skip.
	EnvPostgres14BinDir = "TENANTDB_TEST_POSTGRES14_BINDIR"
)

// Server kinds: the servers the tests run on, named as
// TENANTDB_TEST_ENGINES selects them. Two of them speak engine "mysql" (the
// provider's engine name for MariaDB and MySQL alike).
const (
	KindMariaDB  = "mariadb"  // engine "mysql", MariaDB (the machine's mariadbd)
	KindMySQL    = "mysql"    // engine "mysql", MySQL 9.7 (WithMySQL)
	KindPostgres = "postgres" // engine "postgres"
)

// Kinds lists every server kind, in the order tests iterate them.
func Kinds() []string { return []string{KindMariaDB, KindMySQL, KindPostgres} }

// KindServer returns the engine and the option that start a server of kind
// (nil option for the engine's default server). It panics on an unknown
// kind: kinds are constants in test code.
func KindServer(kind string) (engine string, opt Option) {
	switch kind {
	case KindMariaDB:
		return EngineMySQL, nil
	case KindMySQL:
		return EngineMySQL, WithMySQL()
	case KindPostgres:
		return EnginePostgres, nil
	}
	panic(fmt.Sprintf("testserver: unknown server kind %q (want %q, %q or %q)", kind, KindMariaDB, KindMySQL, KindPostgres))
}

// kindOf names the kind of server engine and o start.
func kindOf(engine string, o startOptions) string {
	switch {
	case engine == EnginePostgres:
		return KindPostgres
	case o.mysql:
		return KindMySQL
	}
	return KindMariaDB
}

// EngineSelected reports whether TENANTDB_TEST_ENGINES (a comma-separated
// list of server kinds, e.g. "postgres" or "mariadb,mysql", or "all")
// selects kind: "mariadb", "mysql" (MySQL 9.7, not MariaDB) or "postgres"
// (Kinds). Unset or empty selects mariadb and postgres: MySQL runs when it
// is named, because its server needs root (chroot) and the Debian root
// scripts/mysql-root.sh builds; make testacc names it in a run of its own
// beside the others (scripts/testacc.sh). Shared skips the tests of kinds
// it leaves out.
func EngineSelected(kind string) bool {
	v := strings.TrimSpace(os.Getenv(EnvEngines))
	if v == "" {
		return kind != KindMySQL
	}
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); strings.EqualFold(e, kind) || strings.EqualFold(e, "all") {
			return true
		}
	}
	return false
}

func dsnEnv(engine string) string {
	if engine == EngineMySQL {
		return EnvMySQLDSN
	}
	return EnvPostgresDSN
}

// chooseBackend applies TENANTDB_TEST_BACKEND. In auto mode the order is:
// a DSN given for this engine, a Docker daemon that answers, local binaries.
// The Docker check is a ping bounded to about a second and done once per
// process, so the local path pays at most that once.
//
// MySQL (WithMySQL) runs from the local Debian root only, so auto mode picks
// the local backend for it.
func chooseBackend(engine string, o startOptions) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvBackend))); v {
	case BackendLocal, BackendDocker, BackendDSN:
		return v, nil
	case "", "auto":
		if o.mysql {
			return BackendLocal, nil
		}
		if os.Getenv(dsnEnv(engine)) != "" {
			return BackendDSN, nil
		}
		if dockerAvailable() {
			return BackendDocker, nil
		}
		return BackendLocal, nil
	default:
		return "", fmt.Errorf("testserver: %s=%q: want local, docker, dsn or auto", EnvBackend, v)
	}
}
