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

// The docker backend's images of the other kinds (kinds.go): MySQL 9.7
// (kind mysql), MariaDB 11.8 (mariadb11), PostgreSQL 18 (postgres18).
// TENANTDB_TEST_MYSQL_IMAGE and TENANTDB_TEST_POSTGRES_IMAGE serve the
// families' default kinds, mariadb and postgres.
const (
	EnvMySQL97Image    = "TENANTDB_TEST_MYSQL97_IMAGE"
	EnvMariaDB11Image  = "TENANTDB_TEST_MARIADB11_IMAGE"
	EnvPostgres18Image = "TENANTDB_TEST_POSTGRES18_IMAGE"
)

func dsnEnv(engine string) string {
	if engine == EngineMySQL {
		return EnvMySQLDSN
	}
	return EnvPostgresDSN
}

// chooseBackend applies TENANTDB_TEST_BACKEND. In auto mode the order is:
// a DSN given for this engine, a Docker daemon that answers and can start
// the engine's image (it has it, or a registry serves it), local binaries.
// The Docker checks are a ping bounded to about a second, done once per
// process, and an image check bounded to 5 s, done once per image, so the
// local path pays at most that once.
//
// MySQL 9.7 runs from a local Debian root, so auto mode picks the local
// backend for it; MariaDB 11.8 and PostgreSQL 18 too (a root, an npm
// build), unless a DSN names the engine's server. The docker backend,
// when chosen, runs every kind from its image (dockerImage).
func chooseBackend(engine string, o startOptions) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvBackend))); v {
	case BackendLocal, BackendDocker, BackendDSN:
		return v, nil
	case "", "auto":
		if o.localOnly() || o.kind == KindMySQL {
			return BackendLocal, nil
		}
		if os.Getenv(dsnEnv(engine)) != "" {
			return BackendDSN, nil
		}
		if o.standIn() {
			return BackendLocal, nil
		}
		if dockerCanStart(kindOf(engine, o)) {
			return BackendDocker, nil
		}
		return BackendLocal, nil
	default:
		return "", fmt.Errorf("testserver: %s=%q: want local, docker, dsn or auto", EnvBackend, v)
	}
}
