// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What an import of a tenant made elsewhere (by hand, or by the
// petoju/mysql and cyrilgdn/postgresql providers) needs beyond a read.

// JoinOwnerRole makes the admin a member of an imported PostgreSQL owner
// role that owns db, as the owner's create does (ddl.JoinOwnerRole): without
// it the admin cannot grant on the tenant's tables, nor connect once PUBLIC
// has lost CONNECT. Nothing runs when the admin already acts as the role,
// the role does not own db (the next apply hands db over, which joins it
// too), or the login is not the one read (recorded). PostgreSQL 16+ allows
// the GRANT only to an admin that administers the role: otherwise it
// refuses (MissingAdminRights, naming the superuser's statement) before any
// statement. MySQL/MariaDB: nothing to do.
func (s *Server) JoinOwnerRole(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity) error {
	if s.info.Flavor != ddl.FlavorPostgres {
		return nil
	}
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		_, err := s.requireOwnLogin(ctx, db, user, recorded)
		if err != nil {
			return err
		}
		var owns, member bool
		err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
			return q.QueryRowContext(ctx, `SELECT d.datdba = r.oid, pg_has_role(current_user, r.oid, 'USAGE')
				FROM pg_database d, pg_roles r WHERE d.datname = $1 AND r.rolname = $2`,
				db.String(), user.String()).Scan(&owns, &member)
		})
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the database or the role is gone: the callers' reads report it
		}
		if err != nil {
			return s.sess.ReadError(fmt.Sprintf("read whether the admin acts as login %s", user), err)
		}
		if !owns || member {
			return nil
		}
		if err := s.requireAdministers(ctx, user); err != nil {
			return err
		}
		return s.sess.Exec(ctx, ddl.JoinOwnerRole(user))
	})
}

// UnescapedGrant returns the statements that revoke user's old grant on
// db's name written unescaped (ddl.UnescapedGrantPattern), or "" when
// there is none: MySQL/MariaDB, from the grant-row snapshot (no query of
// its own). PostgreSQL: always "".
func (s *Server) UnescapedGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (string, error) {
	pattern := ddl.UnescapedGrantPattern(s.info, db)
	if s.info.Flavor == ddl.FlavorPostgres || pattern == "" {
		return "", nil
	}
	vals, err := s.proof.SnapshotGrantRow(ctx, proof.MySQLDBColumnNames(s.info), user, pattern)
	if err != nil {
		return "", s.sess.ReadError(fmt.Sprintf("read the unescaped grant of %s on %s", user, db), err)
	}
	privs := proof.MySQLDBPrivileges(s.info, vals)
	if len(privs) == 0 {
		return "", nil
	}
	return ddl.RevokeUnescapedGrant(db, user, slices.Contains(privs, ddl.GrantOption)).String(), nil
}
