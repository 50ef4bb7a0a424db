// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// An import only reads (plan and refresh never write): what an imported
// PostgreSQL tenant needs on the server, the admin's membership in the
// role that owns the database, is read at import (DatabaseOwnerToJoin) and
// taken by the apply that follows, right before the first statement that
// needs it (JoinOwnerRole for an owner, JoinDatabaseOwner for a grant).

// DatabaseOwnerToJoin reads, and only reads, whether the admin must join
// the role that owns db before it can manage the tenant's objects as the
// owner (connect once PUBLIC has no CONNECT, grant on the owner's tables,
// ALTER DEFAULT PRIVILEGES FOR ROLE the owner). It returns that role's
// name, or "" when the admin already acts as the owner (a member, the
// owner itself, a superuser), db is gone, or the server is MySQL/MariaDB.
// On PostgreSQL 16+ an owner the admin does not administer is refused
// here, by a read (MissingAdminRights, naming the superuser's statement),
// so the plan that imports it says so before anything runs.
func (s *Server) DatabaseOwnerToJoin(ctx context.Context, db ddl.DatabaseName) (string, error) {
	owner, acts, found, err := s.databaseOwnerMembership(ctx, db)
	if err != nil || !found || acts {
		return "", err
	}
	u, err := ddl.NewUsername(s.spec.Engine, owner)
	if err != nil {
		// A role tenantdb cannot name is no error here: the apply's refusal
		// (ErrAdminNotOwnerMember) says so.
		return "", nil //nolint:nilerr // see above
	}
	if err := s.requireAdministers(ctx, u); err != nil {
		return "", err
	}
	return owner, nil
}

// JoinDatabaseOwner makes the admin a member of owner, the role an import
// read as db's owner (DatabaseOwnerToJoin), under db's lock, right before
// the statements that need it. Nothing runs when the admin already acts as
// the owner, or db is no longer owned by that role (what was read at
// import no longer holds: the callers' own checks report what changed).
func (s *Server) JoinDatabaseOwner(ctx context.Context, db ddl.DatabaseName, owner ddl.Username) error {
	if s.info.Flavor != ddl.FlavorPostgres {
		return nil
	}
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		now, acts, found, err := s.databaseOwnerMembership(ctx, db)
		if err != nil || !found || acts || now != owner.String() {
			return err
		}
		if err := s.requireAdministers(ctx, owner); err != nil {
			return err
		}
		return s.sess.Exec(ctx, ddl.JoinOwnerRole(owner))
	})
}

// databaseOwnerMembership reads db's owner and whether the admin acts as
// it (pg_has_role USAGE: a member that inherits, the owner, a superuser).
func (s *Server) databaseOwnerMembership(ctx context.Context, db ddl.DatabaseName) (owner string, acts, found bool, err error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return "", false, false, nil
	}
	err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT pg_get_userbyid(datdba), pg_has_role(current_user, datdba, 'USAGE')
			FROM pg_database WHERE datname = $1`, db.String()).Scan(&owner, &acts)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, s.sess.ReadError(fmt.Sprintf("read whether the admin acts as the owner of database %s", db), err)
	}
	return owner, acts, true, nil
}

// adminMayConnect reads, from the maintenance database, whether the admin
// may connect to db (its own CONNECT, PUBLIC's, or the owner's through
// membership). A missing database reads as true: the caller's read says
// it is gone.
func (s *Server) adminMayConnect(ctx context.Context, db ddl.DatabaseName) (bool, error) {
	may := true
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		may = true
		err := q.QueryRowContext(ctx, `SELECT pg_catalog.has_database_privilege(current_user, oid, 'CONNECT')
FROM pg_catalog.pg_database WHERE datname = $1`, db.String()).Scan(&may)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, s.sess.ReadError("read whether the admin may connect to "+db.String(), err)
	}
	return may, nil
}
