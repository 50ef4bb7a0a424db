// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"database/sql"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// adminGrantStatements returns the statements, run as superuser after the
// login `user` exists (see createLoginSQL), that give the tenant admin its
// rights: exactly the statements the provider documents and prints in
// MissingAdminRights (internal/ddl), so the acceptance tests prove those
// rights suffice. The admin is NOT a superuser (no SUPER, no ALL, no
// SUPERUSER).
func adminGrantStatements(info ddl.ServerInfo, user string) []string {
	admin := ddl.AdminAccount{User: user, Host: "%"}
	if info.Flavor == ddl.FlavorPostgres {
		return ddl.PostgresAdminGrants(admin)
	}
	return ddl.MySQLAdminGrants(info, admin)
}

// superGrantStatements makes the login `user` a full superuser.
func superGrantStatements(flavor, user string) []string {
	switch flavor {
	case FlavorMariaDB, FlavorMySQL:
		return []string{"GRANT ALL PRIVILEGES ON *.* TO " + mysqlAccount(user) + " WITH GRANT OPTION"}
	case FlavorPostgres:
		return []string{"ALTER ROLE " + pgIdent(user) + " SUPERUSER"}
	}
	panic("testserver: superGrantStatements: unknown flavor " + flavor)
}

// setupLogins creates the Super and Admin logins on the server behind db.
// super may be empty (dsn backend: the DSN's own login is the superuser).
func setupLogins(ctx context.Context, db *sql.DB, engine, flavor string, super, admin Login) error {
	raw, err := queryVersion(ctx, engine, db)
	if err != nil {
		return err
	}
	v, err := ddl.ParseVersion(raw)
	if err != nil {
		return err
	}
	info := ddl.ServerInfo{Flavor: ddl.Flavor(flavor), Version: v}
	return execAll(ctx, db, setupLoginsSQL(engine, info, super, admin))
}

func setupLoginsSQL(engine string, info ddl.ServerInfo, super, admin Login) []string {
	flavor := string(info.Flavor)
	var stmts []string
	if super.Username != "" {
		stmts = append(stmts, createLoginSQL(engine, super.Username, super.Password))
		stmts = append(stmts, superGrantStatements(flavor, super.Username)...)
	}
	stmts = append(stmts, createLoginSQL(engine, admin.Username, admin.Password))
	return append(stmts, adminGrantStatements(info, admin.Username)...)
}

// createLoginSQL is a plain CREATE of a password login. Passwords cannot be
// bound as parameters in CREATE USER/ROLE on either engine, so they are
// rendered as literals.
func createLoginSQL(engine, name, password string) string {
	if engine == EngineMySQL {
		return "CREATE USER " + mysqlAccount(name) + " IDENTIFIED BY " + mysqlString(password)
	}
	return "CREATE ROLE " + pgIdent(name) + " LOGIN PASSWORD " + pgString(password)
}

func dropLoginSQL(engine, name string) string {
	if engine == EngineMySQL {
		return "DROP USER IF EXISTS " + mysqlAccount(name)
	}
	return "DROP ROLE IF EXISTS " + pgIdent(name)
}

// mysqlAccount renders 'name'@'%'.
func mysqlAccount(name string) string { return mysqlString(name) + "@'%'" }

// mysqlString renders a string literal for the servers' default sql_mode
// (NO_BACKSLASH_ESCAPES off, as on every server this package starts):
// backslashes and quotes are doubled.
func mysqlString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// pgIdent quotes an identifier exactly as given (case is kept).
func pgIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

// pgString renders a standard-conforming string literal.
func pgString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// randomString returns n characters drawn uniformly from alphabet using crypto/rand.
func randomString(n int, alphabet string) string {
	max := big.NewInt(int64(len(alphabet)))
	b := make([]byte, n)
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("testserver: crypto/rand: " + err.Error())
		}
		b[i] = alphabet[v.Int64()]
	}
	return string(b)
}

// randomPassword is 24 alphanumeric characters (~143 bits): no quoting or
// escaping problems anywhere a test may paste it.
func randomPassword() string {
	return randomString(24, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
}

// randomSuffix names per-run objects on shared servers; lower case so the
// same name works unquoted in PostgreSQL.
func randomSuffix() string { return randomString(8, "abcdefghijklmnopqrstuvwxyz0123456789") }

func joinHostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// execAll runs statements in order on db, stopping at the first error.
func execAll(ctx context.Context, db *sql.DB, stmts []string) error {
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", redactPasswords(stmt), err)
		}
	}
	return nil
}

// redactPasswords hides the literal after IDENTIFIED BY / PASSWORD in error
// messages, which end up in test logs.
func redactPasswords(stmt string) string {
	for _, kw := range []string{" IDENTIFIED BY '", " PASSWORD '"} {
		if i := strings.Index(stmt, kw); i >= 0 {
			start := i + len(kw)
			if j := strings.Index(stmt[start:], "'"); j >= 0 {
				stmt = stmt[:start] + "***" + stmt[start+j:]
			}
		}
	}
	return stmt
}

// queryVersion asks the server for its version string.
func queryVersion(ctx context.Context, engine string, db *sql.DB) (string, error) {
	q := "SELECT VERSION()"
	if engine == EnginePostgres {
		q = "SHOW server_version"
	}
	var v string
	if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return "", fmt.Errorf("query version: %w", err)
	}
	return v, nil
}

// ---------------------------------------------------------------------------
// Connection helpers.

// mysqlTCPConfig is the go-sql-driver config for a TCP connection; tlsConf
// nil means no TLS.
func mysqlTCPConfig(host string, port int, login Login, database string, tlsConf *tls.Config) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = joinHostPort(host, port)
	cfg.User = login.Username
	cfg.Passwd = login.Password
	cfg.DBName = database
	cfg.Timeout = 10 * time.Second
	if tlsConf != nil {
		cfg.TLS = tlsConf.Clone()
	}
	return cfg
}

func openMySQL(cfg *mysql.Config) (*sql.DB, error) {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql config: %w", err)
	}
	return sql.OpenDB(conn), nil
}

// pgConnConfig builds a pgx config for a TCP connection. tlsConf nil means no
// TLS (sslmode=disable); otherwise TLS with exactly that config, no plaintext
// fallback.
func pgConnConfig(host string, port int, login Login, database string, tlsConf *tls.Config) (*pgx.ConnConfig, error) {
	if database == "" {
		database = "postgres"
	}
	// Parse a minimal string for the defaults, then set fields directly so
	// that no value needs quoting.
	cfg, err := pgx.ParseConfig("sslmode=disable connect_timeout=10")
	if err != nil {
		return nil, err
	}
	cfg.Host = host
	cfg.Port = uint16(port)
	cfg.User = login.Username
	cfg.Password = login.Password
	cfg.Database = database
	cfg.Fallbacks = nil
	if tlsConf != nil {
		cfg.TLSConfig = tlsConf.Clone()
	}
	return cfg, nil
}

func openPG(cfg *pgx.ConnConfig) *sql.DB { return stdlib.OpenDB(*cfg) }

// pgConnect succeeds once a connection with cfg is made (and closed).
func pgConnect(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// waitFor calls probe until it succeeds, ctx ends, the deadline passes, or
// exited is closed (the server process died: no point waiting). It returns the
// last probe error on failure.
func waitFor(ctx context.Context, timeout time.Duration, exited <-chan struct{}, probe func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = probe(pctx)
		cancel()
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", timeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
		case <-exited:
			return fmt.Errorf("server process exited (last connect error: %v)", last)
		case <-time.After(25 * time.Millisecond):
		}
	}
}
