// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// The demo's own SQL: it logs in as the logins Terraform made, as their
// users would, to show what they can and cannot do. It provisions nothing
// (the provider does that); its only DDL is the reporting login that exists
// before Terraform runs and, on a server the demo did not start, removing
// what it made at the end.

// login is a username and its password.
type login struct{ user, password string }

// open connects as l to database db ("" = the server's default) over TCP,
// with TLS as the target's tls mode says, and checks the connection.
func (t *target) open(ctx context.Context, l login, db string) (*sql.DB, error) {
	tlsConf, err := clientTLS(t.tls, t.caPEM, t.host)
	if err != nil {
		return nil, err
	}
	var conn *sql.DB
	if t.engine == enginePostgres {
		cfg, err := pgx.ParseConfig("sslmode=disable connect_timeout=10")
		if err != nil {
			return nil, err
		}
		cfg.Host, cfg.Port = t.host, uint16(t.port)
		cfg.User, cfg.Password = l.user, l.password
		cfg.Database = db
		if db == "" {
			cfg.Database = "postgres"
		}
		cfg.Fallbacks = nil
		cfg.TLSConfig = tlsConf
		conn = stdlib.OpenDB(*cfg)
	} else {
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(t.host, strconv.Itoa(t.port))
		cfg.User, cfg.Passwd, cfg.DBName = l.user, l.password, db
		cfg.Timeout = 10 * time.Second
		cfg.TLS = tlsConf
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		conn = sql.OpenDB(c)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := conn.PingContext(pctx); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// exec connects as l to db and runs the statements in order.
func (t *target) exec(ctx context.Context, l login, db string, stmts ...string) error {
	conn, err := t.open(ctx, l, db)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// count connects as l to db and runs a query returning one number.
func (t *target) count(ctx context.Context, l login, db, query string, args ...any) (int, error) {
	conn, err := t.open(ctx, l, db)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int
	err = conn.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// clientTLS is the client side of the provider's tls modes: the same
// configuration the provider builds (dbclient.ClientTLS).
func clientTLS(mode, caPEM, host string) (*tls.Config, error) {
	return dbclient.ClientTLS(dbclient.TLSMode(mode), host, caPEM)
}

// denied tells an authorization refusal from every other failure (a
// network error, a typo in the SQL): only a refusal proves isolation.
func denied(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "42501" // insufficient_privilege
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		// 1044 database access denied, 1142 command denied on a table.
		return me.Number == 1044 || me.Number == 1142
	}
	return false
}

// badPassword tells a refused password from every other failure.
func badPassword(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "28P01" // invalid_password
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1045 // access denied (using password: YES)
	}
	return false
}

// serverMessage is the server's own wording of an error, short.
func serverMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// SQL the demo runs, per engine.

func (t *target) versionQuery() string {
	if t.engine == enginePostgres {
		return "SHOW server_version"
	}
	return "SELECT VERSION()"
}

// createLoginSQL creates the reporting login. On PostgreSQL the password
// goes as a SCRAM-SHA-256 verifier, so not even a server logging every
// statement sees it.
func (t *target) createLoginSQL(l login) (string, error) {
	if t.engine == enginePostgres {
		pw, err := ddl.NewPassword(l.password)
		if err != nil {
			return "", err
		}
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return "", err
		}
		return fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", l.user, ddl.ScramVerifier(pw, salt, ddl.ScramIterations)), nil
	}
	return fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", l.user, l.password), nil
}

func (t *target) createTableSQL(table string) []string {
	col := "text"
	if t.engine != enginePostgres {
		col = "VARCHAR(100)"
	}
	return []string{
		fmt.Sprintf("CREATE TABLE %s (id INT PRIMARY KEY, item %s)", table, col),
		fmt.Sprintf("INSERT INTO %s (id, item) VALUES (1, 'first row')", table),
	}
}

// existingDatabases and existingLogins return which of the names exist.
func (t *target) existingDatabases(ctx context.Context, names []string) ([]string, error) {
	if t.engine == enginePostgres {
		return t.listNames(ctx, "SELECT datname FROM pg_database WHERE datname = ANY($1)", names)
	}
	return t.listNames(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN "+placeholders(len(names)), names)
}

func (t *target) existingLogins(ctx context.Context, names []string) ([]string, error) {
	if t.engine == enginePostgres {
		return t.listNames(ctx, "SELECT rolname FROM pg_roles WHERE rolname = ANY($1)", names)
	}
	return t.listNames(ctx, "SELECT DISTINCT User FROM mysql.user WHERE Host = '%' AND User IN "+placeholders(len(names)), names)
}

func placeholders(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
}

func (t *target) listNames(ctx context.Context, query string, names []string) ([]string, error) {
	conn, err := t.open(ctx, t.admin, "")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var args []any
	if t.engine == enginePostgres {
		args = []any{names}
	} else {
		for _, n := range names {
			args = append(args, n)
		}
	}
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// dropSQL removes the demo's databases and logins from a server the demo did
// not start (names it checked were free before it began).
func (t *target) dropSQL(databases, logins []string) []string {
	var out []string
	for _, d := range databases {
		if t.engine == enginePostgres {
			out = append(out, "DROP DATABASE IF EXISTS "+d)
		} else {
			out = append(out, "DROP DATABASE IF EXISTS `"+d+"`")
		}
	}
	for _, l := range logins {
		if t.engine == enginePostgres {
			out = append(out, "DROP ROLE IF EXISTS "+l)
		} else {
			out = append(out, "DROP USER IF EXISTS '"+l+"'@'%'")
		}
	}
	return out
}

// randomPassword is 26 characters of crypto/rand (base32: no quoting
// needed anywhere).
func randomPassword() string { return rand.Text() }
