// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// DSN backend: an existing server reached with a superuser DSN. The harness
// only adds (and on Stop drops) a uniquely named admin login, so several runs
// may share one server. Super is the DSN's own login; connections keep the
// DSN's own options (TLS included).

func startDSN(ctx context.Context, engine string) (_ *Server, err error) {
	return startDSNWith(ctx, engine, os.Getenv(dsnEnv(engine)), os.Getenv(EnvCAFile))
}

// startDSNWith is startDSN with the DSN and CA file given rather than read
// from the environment.
func startDSNWith(ctx context.Context, engine, dsn, caFile string) (_ *Server, err error) {
	if dsn == "" {
		return nil, fmt.Errorf("%s is not set", dsnEnv(engine))
	}
	var caPEM []byte
	if f := caFile; f != "" {
		if caPEM, err = os.ReadFile(f); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvCAFile, err)
		}
	}

	s := &Server{Engine: engine}
	var dsnTLS bool
	if engine == EngineMySQL {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			// The DSN holds a password: do not echo it.
			return nil, fmt.Errorf("%s: not a valid go-sql-driver DSN", EnvMySQLDSN)
		}
		if cfg.Net != "tcp" {
			return nil, fmt.Errorf("%s: the provider connects over TCP, so the DSN must use tcp(host:port), not %q", EnvMySQLDSN, cfg.Net)
		}
		host, p, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("%s: address %q: %w", EnvMySQLDSN, cfg.Addr, err)
		}
		if s.Port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("%s: port %q: %w", EnvMySQLDSN, p, err)
		}
		s.Host = host
		s.Super = Login{Username: cfg.User, Password: cfg.Passwd}
		dsnTLS = cfg.TLS != nil || (cfg.TLSConfig != "" && cfg.TLSConfig != "false")
		s.open = func(login Login, database string) (*sql.DB, error) {
			c := cfg.Clone()
			c.User, c.Passwd, c.DBName = login.Username, login.Password, database
			return openMySQL(c)
		}
	} else {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("%s: not a valid pgx connection string", EnvPostgresDSN)
		}
		if strings.HasPrefix(cfg.Host, "/") {
			return nil, fmt.Errorf("%s: the provider connects over TCP, so the DSN must name a TCP host, not the socket dir %q", EnvPostgresDSN, cfg.Host)
		}
		s.Host, s.Port = cfg.Host, int(cfg.Port)
		s.Super = Login{Username: cfg.User, Password: cfg.Password}
		dsnTLS = cfg.TLSConfig != nil
		defaultDB := cfg.Database
		if defaultDB == "" {
			defaultDB = "postgres"
		}
		s.open = func(login Login, database string) (*sql.DB, error) {
			c := cfg.Copy()
			c.User, c.Password = login.Username, login.Password
			c.Database = database
			if database == "" {
				c.Database = defaultDB
			}
			return openPG(c), nil
		}
	}

	switch {
	case len(caPEM) > 0:
		s.CAPEM = string(caPEM)
		if s.tlsConf, err = clientTLSConfig(caPEM, s.Host); err != nil {
			return nil, fmt.Errorf("%s: %w", EnvCAFile, err)
		}
		s.tlsMode = "verify-full"
	case dsnTLS:
		s.tlsMode = "require"
	default:
		s.tlsMode = "disable"
	}

	// Checks the DSN and fills in the version; the admin does not exist yet.
	if err := finishSetup(ctx, s); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.mu.Lock()
			for _, db := range s.dbs {
				_ = db.Close()
			}
			s.mu.Unlock()
		}
	}()
	s.Flavor = FlavorPostgres
	if engine == EngineMySQL {
		s.Flavor = FlavorMySQL
		if strings.Contains(strings.ToLower(s.version), "mariadb") {
			s.Flavor = FlavorMariaDB
		}
	}

	// A unique admin per run: parallel runs against one server must not
	// collide. 23 characters, within MySQL's 32.
	s.Admin = Login{Username: AdminUsername + "_" + randomSuffix(), Password: randomPassword()}
	db, err := s.SuperDB("")
	if err != nil {
		return nil, err
	}
	s.dropSQL = []string{dropLoginSQL(engine, s.Admin.Username)}
	if err := setupLogins(ctx, db, engine, s.Flavor, Login{}, s.Admin); err != nil {
		_, _ = db.ExecContext(ctx, s.dropSQL[0])
		return nil, fmt.Errorf("create admin login: %w", err)
	}
	s.stopBackend = func() error { return nil } // not ours to stop
	return s, nil
}
