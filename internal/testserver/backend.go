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
)

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
func chooseBackend(engine string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvBackend))); v {
	case BackendLocal, BackendDocker, BackendDSN:
		return v, nil
	case "", "auto":
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
