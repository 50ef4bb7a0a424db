// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Test-only operations. They skip the identity checks the exported methods
// make (CreateDatabase claims but records nothing; AlterDatabase and
// DropDatabase act on whatever database has the name), so production code
// must never reach them: they live here, compiled only into this package's
// tests. TestExportedSurface pins what the package exports.

// CreateDatabase claims a database name: CREATE DATABASE without IF NOT
// EXISTS, so when the name exists (made out of band, or by a concurrent
// apply) it refuses with DatabasePreExists and nothing else runs.
// ClaimDatabase does the same and also returns the new identity.
func (s *Server) CreateDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) error {
	_, _, err := s.ClaimDatabase(ctx, db, cs, co)
	return err
}

// AlterDatabase changes character set and collation in place (MySQL/MariaDB).
func (s *Server) AlterDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) error {
	plan, err := s.dialect().AlterDatabase(db, cs, co)
	if err != nil {
		return err
	}
	defer s.proof.InvalidateDatabase(db)
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error { return s.sess.Exec(ctx, plan) })
}

// DropDatabase drops a database this provider created. On PostgreSQL it
// refuses with DatabaseInUse while sessions it did not open are connected,
// listing them; it terminates nothing.
func (s *Server) DropDatabase(ctx context.Context, db ddl.DatabaseName) error {
	defer s.proof.InvalidateDatabase(db)
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error { return s.dropLocked(ctx, db) })
}

// CreateLogin creates a login and grants it privs on db (the owner). A
// login that already exists is refused with PreExistingOwnerUser.
func (s *Server) CreateLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password, privs ddl.PrivilegeSet) error {
	defer s.proof.InvalidateDatabase(db) // PostgreSQL: the owner changes
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		err := s.sess.Exec(ctx, s.dialect().CreateOwner(db, user, pw, privs))
		if session.IsUserExists(err) {
			return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, db, user)
		}
		return err
	})
}

// RevokeAll removes every privilege of grantee on db.
func (s *Server) RevokeAll(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username) error {
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		owner, err := s.databaseOwner(ctx, db)
		if err != nil {
			return err
		}
		return s.sess.Exec(ctx, s.dialect().RevokeAll(db, grantee, owner))
	})
}

// Exec runs a plan's statements in order. A transient failure retries the
// statement; a statement marked TolerateMissing succeeds when its target is
// already gone. When a statement after the first fails, the plan's Undo runs
// (best effort) so a failed create leaves nothing half-made, and the
// original error is returned.
func (s *Server) Exec(ctx context.Context, plan ddl.Plan) error {
	// A caller-built plan may touch any database: forget the snapshot.
	defer s.proof.InvalidateCatalog()
	return s.sess.Exec(ctx, plan)
}

// LoginExists reports whether a login ('user'@'%' on MySQL) or role exists.
func (s *Server) LoginExists(ctx context.Context, user ddl.Username) (bool, error) {
	var one int
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		if s.spec.Engine == ddl.EnginePostgres {
			return db.QueryRowContext(ctx, `SELECT 1 FROM pg_roles WHERE rolname = $1`, user.String()).Scan(&one)
		}
		return db.QueryRowContext(ctx, `SELECT 1 FROM mysql.user WHERE User = ? AND Host = '%'`, user.String()).Scan(&one)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.sess.ReadError("read login "+user.String(), err)
	}
	return true, nil
}

// Spec is how this server is reached.
func (s *Server) Spec() connect.Spec { return s.spec }

// SyncPrivileges is syncPrivileges without the identity check that
// SyncOwnerPrivileges makes.
func (s *Server) SyncPrivileges(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username, desired ddl.PrivilegeSet) error {
	return s.syncPrivileges(ctx, db, grantee, desired, true)
}
