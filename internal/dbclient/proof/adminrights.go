// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// CheckAdminRights reads what the admin login may do and refuses with
// MissingAdminRights, listing each missing right and its fix. It also
// returns what the login holds beyond the documented minimum that README
// says it must not hold (superuser, SUPER, ALL), for the caller to warn.
func (s *Server) CheckAdminRights(ctx context.Context) (ddl.AdminExcess, error) {
	if s.spec.Engine == ddl.EnginePostgres {
		var held ddl.PostgresHeldRights
		err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
			return db.QueryRowContext(ctx,
				`SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user`).
				Scan(&held.Superuser, &held.CreateDB, &held.CreateRole)
		})
		if err != nil {
			return ddl.AdminExcess{}, s.sess.ReadError("read admin rights", err)
		}
		admin := ddl.AdminAccount{User: s.spec.Username}
		return ddl.ExcessPostgresAdminRights(admin, held),
			ddl.MissingAdminRightsError(s.spec.Name, admin, ddl.MissingPostgresAdminRights(admin, held))
	}

	var held ddl.MySQLHeldRights
	var current string
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		held = ddl.MySQLHeldRights{}
		if err := db.QueryRowContext(ctx, `SELECT CURRENT_USER()`).Scan(&current); err != nil {
			return err
		}
		// SHOW GRANTS shows the account's own grants. Rights of a default
		// role count too (the reference guide's rule): MariaDB activates
		// the default role at login and SHOW GRANTS FOR CURRENT_ROLE lists
		// it; MySQL 8's SHOW GRANTS ... USING expands active roles.
		stmts := []string{"SHOW GRANTS"}
		if s.info.Flavor == ddl.FlavorMariaDB {
			var role sql.NullString
			if err := db.QueryRowContext(ctx, `SELECT CURRENT_ROLE()`).Scan(&role); err != nil {
				return err
			}
			if role.Valid && role.String != "" {
				stmts = append(stmts, "SHOW GRANTS FOR CURRENT_ROLE")
			}
		}
		for _, q := range stmts {
			if err := s.grantLines(ctx, db, q, &held); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ddl.AdminExcess{}, s.sess.ReadError("read admin rights", err)
	}
	user, host := current, "%"
	if i := strings.LastIndex(current, "@"); i >= 0 {
		user, host = current[:i], current[i+1:]
	}
	admin := ddl.AdminAccount{User: user, Host: host}
	return ddl.ExcessMySQLAdminRights(s.info, admin, held),
		ddl.MissingAdminRightsError(s.spec.Name, admin, ddl.MissingMySQLAdminRights(s.info, admin, held))
}

// grantLines feeds each SHOW GRANTS line to the parser and keeps nothing
// else: MariaDB's lines carry the password hash.
func (s *Server) grantLines(ctx context.Context, db session.Queryer, q string, held *ddl.MySQLHeldRights) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		held.ParseMySQLGrantLine(s.info, line)
	}
	return rows.Err()
}
