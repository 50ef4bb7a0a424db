// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"strings"
)

// Option changes how Start and Shared configure a server.
type Option func(*startOptions)

// WithLowerCaseTableNames starts MariaDB with lower_case_table_names = 1: the
// server stores database and table names lower-cased and compares them
// without regard to case (CREATE DATABASE Foo_X makes foo_x). The setting is
// given to mariadb-install-db (which passes it to the bootstrap server that
// creates the system tables) and to mariadbd, as the server requires it to
// be the same from initialisation on. The docker backend gives the flag to
// the container's server, and the official images (and the local stand-ins
// of scripts/docker-images.sh) give it to their initialisation too. Engine
// "mysql" and the local and docker backends only: Start and Shared fail
// with an error otherwise.
func WithLowerCaseTableNames() Option {
	return func(o *startOptions) { o.lowerCaseTableNames = true }
}

// WithPostgresBinDir starts PostgreSQL from the initdb and postgres in dir
// instead of the ones TENANTDB_TEST_POSTGRES_BINDIR or
// /usr/lib/postgresql/<major>/bin name, so that one test can start a server
// of another version (e.g. PostgreSQL 14, to see it refused) without
// changing the environment other tests read. Servers of 14 and older keep
// their statement log as csvlog (jsonlog is 15+): the statement-log methods
// work the same. Engine "postgres" and the local backend only: Start and
// Shared fail with an error otherwise.
func WithPostgresBinDir(dir string) Option {
	return func(o *startOptions) { o.postgresBinDir = dir }
}

// WithMySQL serves engine "mysql" with MySQL (9.7, from the Debian root
// of scripts/server-root.sh, see local_mysql.go; on the docker backend the
// image TENANTDB_TEST_MYSQL97_IMAGE names) rather than MariaDB, the default
// server of that engine. Engine "mysql" and the local and docker backends
// only (in auto mode the local backend is chosen for it): Start and Shared
// fail with an error on the dsn backend. Most tests name a server by its kind instead
// (Kinds, SharedKind).
func WithMySQL() Option { return withKind(KindMySQL) }

type startOptions struct {
	lowerCaseTableNames bool
	postgresBinDir      string
	// clientCertAdmin: WithClientCertAdmin (client_cert_admin.go).
	clientCertAdmin bool
	// kind: the server of the engine when not the family's default
	// (KindMySQL, KindMariaDB11, KindPostgres18; kinds.go); "" until
	// resolveKind, or for MariaDB 10.11 and PostgreSQL 15.
	kind string
}

// kindNames describe the non-default kinds in messages and keys.
var kindNames = map[string]string{KindMySQL: "MySQL", KindMariaDB11: "MariaDB 11.8", KindPostgres18: "PostgreSQL 18"}

func newStartOptions(opts []Option) startOptions {
	var o startOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// check rejects options that make no sense for the engine.
func (o startOptions) check(engine string) error {
	if o.lowerCaseTableNames && engine != EngineMySQL {
		return fmt.Errorf("testserver: WithLowerCaseTableNames is a MariaDB/MySQL setting; engine %q has no such server", engine)
	}
	if o.kind != "" {
		if want, _ := KindServer(o.kind); want != engine {
			return fmt.Errorf("testserver: kind %s serves engine %q; engine %q has no such server", o.kind, want, engine)
		}
	}
	if o.postgresBinDir != "" && engine != EnginePostgres {
		return fmt.Errorf("testserver: WithPostgresBinDir is a PostgreSQL setting; engine %q has no such server", engine)
	}
	return nil
}

// needsLocal: options only the local backend can honour. The docker backend
// starts lower_case_table_names=1 servers and MySQL too; a dsn server is
// already initialised as it is, and is what it is.
func (o startOptions) needsLocal(backend string) bool {
	return o.localOnly() || (backend == BackendDSN && (o.lowerCaseTableNames || o.kind == KindMySQL))
}

// localOnly: servers only the local backend starts (a bin dir, an admin
// that must present a client certificate), so auto mode picks it for them.
func (o startOptions) localOnly() bool {
	return o.postgresBinDir != "" || o.clientCertAdmin
}

// standIn: a newer release serving its family's tests (kinds.go). Auto mode
// starts it locally unless a DSN names the engine's server; the docker
// backend runs its own image (TENANTDB_TEST_MARIADB11_IMAGE,
// TENANTDB_TEST_POSTGRES18_IMAGE).
func (o startOptions) standIn() bool {
	_, ok := standIns[o.kind]
	return ok
}

// String describes the options for messages ("with default settings" when none).
func (o startOptions) String() string {
	var parts []string
	if o.kind != "" {
		parts = append(parts, kindNames[o.kind])
	}
	if o.lowerCaseTableNames {
		parts = append(parts, "lower_case_table_names=1")
	}
	if o.postgresBinDir != "" {
		parts = append(parts, "binaries from "+o.postgresBinDir)
	}
	if o.clientCertAdmin {
		parts = append(parts, "a client certificate required of the admin")
	}
	if len(parts) == 0 {
		return "with default settings"
	}
	return "with " + strings.Join(parts, ", ")
}

// suffix names the variant in keys and messages: "" for the default server,
// " (lower_case_table_names=1)" otherwise.
func (o startOptions) suffix() string {
	if o == (startOptions{}) {
		return ""
	}
	return " (" + strings.TrimPrefix(o.String(), "with ") + ")"
}
