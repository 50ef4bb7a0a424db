// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// LoginAccepts reports whether spec's server authenticates user with pw,
// on a connection of its own that runs nothing (a server of major version
// major). Only
// the authentication matters: a refusal after it (PostgreSQL: no CONNECT
// on the database) still means the password was right.
func LoginAccepts(ctx context.Context, spec connect.Spec, major int, user ddl.Username, pw ddl.Password) (bool, error) {
	if user.Host() != ddl.AnyHost {
		// The server matches the provider's own address against the host:
		// a refusal would prove nothing about who made the login.
		return false, fmt.Errorf("login %s may connect only from its host, so the provider cannot try its password", user.Quoted())
	}
	// The tenant's login, with its own password: never the admin's token.
	spec.Username, spec.Password, spec.Auth = user.String(), pw, connect.CloudAuth{}
	var connector driver.Connector
	switch spec.Engine {
	case ddl.EngineMySQL:
		cfg, err := spec.MySQLConfig("")
		if err != nil {
			return false, err
		}
		if connector, err = mysql.NewConnector(cfg); err != nil {
			return false, err
		}
	default:
		cfg, err := PgxSessionConfig(spec, "", major)
		if err != nil {
			return false, err
		}
		connector = stdlib.GetConnector(*cfg)
	}
	conn, err := connector.Connect(ctx)
	if err == nil {
		conn.Close()
	}
	var me *mysql.MySQLError
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &me) && me.Number == 1045: // access denied (using password)
		return false, nil
	case errors.As(err, &pe) && (pe.Code == "28P01" || pe.Code == "28000"):
		return false, nil
	case errors.As(err, &pe) && (pe.Code == "42501" || pe.Code == "3D000"):
		return true, nil // authenticated, then refused the database
	}
	return false, err
}
