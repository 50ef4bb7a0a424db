// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// connectTimeout bounds one connection attempt: dial, TLS and login.
const connectTimeout = 10 * time.Second

// MySQLConfig is the go-sql-driver configuration for spec on database.
func (s Spec) MySQLConfig(database string) (*mysql.Config, error) {
	tlsCfg, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = s.Username, s.Password.Reveal()
	// JoinHostPort: an IPv6 host needs its brackets ([::1]:3306).
	cfg.Net, cfg.Addr = "tcp", s.Addr()
	// Wait for the server's greeting before the driver does, so the wrong
	// engine's port is a clear error, not a long silence.
	cfg.DialFunc = s.dialMySQL
	cfg.DBName = database
	cfg.TLS = tlsCfg
	cfg.Timeout = connectTimeout
	// Every statement waits for a lock at most lock_timeout (whole seconds,
	// at least 1): metadata locks and InnoDB row locks alike.
	wait := strconv.Itoa(max(1, int(s.EffectiveLockTimeout().Seconds())))
	cfg.Params = map[string]string{"sql_mode": "'" + ddl.MySQLSessionSQLMode + "'",
		"lock_wait_timeout": wait, "innodb_lock_wait_timeout": wait}
	cfg.Collation = "utf8mb4_general_ci"
	cfg.InterpolateParams = false
	cfg.AllowNativePasswords = true
	if err := s.applyMySQLToken(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// pgPinnedSettings names, in pgx's connection string, every libpq setting
// pgx would otherwise take from the PG* environment variables of the
// process (Terraform's, so a CI runner's): a connection string setting wins
// over the environment. TLS, host, port, user, password, database and the
// run-time parameters are then set from the provider's own settings, so no
// variable (PGOPTIONS, PGTARGETSESSIONATTRS, PGSSLMODE, PGHOST, ...) changes
// what the provider's sessions do. PGSERVICE cannot be pinned (pgx reads
// the service whenever it is set): one it cannot read fails the connection
// with a message naming it; what a readable one sets is replaced like the
// rest.
const pgPinnedSettings = "host=localhost port=5432 dbname=postgres user=tenantdb password=unused passfile='' " +
	"sslmode=disable sslrootcert='' sslcert='' sslkey='' sslpassword='' sslsni=1 sslcertmode=allow sslnegotiation=postgres " +
	"target_session_attrs=any connect_timeout=0 min_protocol_version=3.0 max_protocol_version=3.0 " +
	"channel_binding=prefer require_auth='' krbsrvname='' krbspn='' options='' application_name=tenantdb timezone='' servicefile=''"

// PgxConfig is the pgx configuration for spec on database ("" = postgres):
// how to reach and log in. What the session then runs with is the session
// layer's (pgxSessionConfig).
func (s Spec) PgxConfig(database string) (*pgx.ConnConfig, error) {
	tlsCfg, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(pgPinnedSettings)
	if err != nil {
		if service, ok := os.LookupEnv("PGSERVICE"); ok {
			return nil, fmt.Errorf("server %q: the environment variable PGSERVICE=%q names a PostgreSQL service that cannot "+
				"be read (tenantdb takes no setting from it, but the driver reads it whenever it is set): unset it: %w", s.Name, service, err)
		}
		return nil, err
	}
	// What the environment could still have set is replaced: the session's
	// run-time parameters are exactly tenantdb's (PGOPTIONS, PGTZ and a
	// service file's options land in RuntimeParams).
	cfg.RuntimeParams = map[string]string{}
	cfg.ValidateConnect = nil
	// pgx takes the bare host (an IPv6 address without brackets, as
	// libpq's host) and joins it with the port itself (net.JoinHostPort).
	cfg.Host, cfg.Port = s.Host, uint16(s.Port)
	cfg.User, cfg.Password = s.Username, s.Password.Reveal()
	cfg.Database = database
	if database == "" {
		cfg.Database = "postgres"
	}
	cfg.TLSConfig = tlsCfg
	cfg.Fallbacks = nil
	if s.Bastion != nil || s.Proxy != nil {
		// Through the bastion or proxy, which resolves the host itself
		// (a name only the private network knows; socks5:// resolves it
		// here, in dialNet).
		cfg.DialFunc = s.dialNet
		cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	}
	cfg.ConnectTimeout = connectTimeout
	return cfg, nil
}
