// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// faultOwnerClaimLostBefore and faultOwnerClaimLostAfter make an owner's
// CREATE USER/ROLE claim end in a lost connection, before anything ran or
// after the whole create plan ran.
const (
	faultOwnerClaimLostBefore = "owner-claim-lost-before"
	faultOwnerClaimLostAfter  = "owner-claim-lost-after"
)

// settleOwnerClaim decides, after the connection was lost during the
// CREATE USER/ROLE of an owner, whether the login exists and is ours. A
// login with that name that accepts the password this claim set is ours:
// the password is the caller's (write-only, usually random), so no one else
// made a login with it in the moment the connection was lost. It returns
// true when the login is ours, false with an error otherwise.
func (s *Server) settleOwnerClaim(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password) (bool, error) {
	ctx = settling(unlocked(ctx))
	if _, found, err := s.proof.LoginIdentity(ctx, user); err != nil || !found {
		if err == nil {
			err = fmt.Errorf("%s: the connection was lost while creating login %q, and it does not exist: nothing was "+
				"created; apply again", s.spec.describe(), user)
		}
		return false, err
	}
	ok, err := s.loginAccepts(ctx, user, pw)
	if err != nil {
		return false, fmt.Errorf("%s: the connection was lost while creating login %q, and whether the login that now "+
			"exists is this claim's could not be checked: %w", s.spec.describe(), user, err)
	}
	if !ok {
		return false, ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, db, user)
	}
	return true, nil
}

// loginAccepts reports whether the server authenticates user with pw. Only
// the authentication matters: a refusal after it (PostgreSQL: no CONNECT
// on the database) still means the password was right.
func (s *Server) loginAccepts(ctx context.Context, user ddl.Username, pw ddl.Password) (bool, error) {
	if user.Host() != ddl.AnyHost {
		// The server matches the provider's own address against the host:
		// a refusal would prove nothing about who made the login.
		return false, fmt.Errorf("login %s may connect only from its host, so the provider cannot try its password", user.Quoted())
	}
	spec := s.spec
	// The tenant's login, with its own password: never the admin's token.
	spec.Username, spec.Password, spec.Auth = user.String(), pw, CloudAuth{}
	var connector driver.Connector
	switch spec.Engine {
	case ddl.EngineMySQL:
		cfg, err := spec.mysqlConfig("")
		if err != nil {
			return false, err
		}
		if connector, err = mysql.NewConnector(cfg); err != nil {
			return false, err
		}
	default:
		cfg, err := pgxSessionConfig(spec, "", s.info.Version.Major)
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
