// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

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
	plan, err := s.Dialect().AlterDatabase(db, cs, co)
	if err != nil {
		return err
	}
	defer s.invalidateDatabase(db)
	return s.WithLock(ctx, db, func(ctx context.Context) error { return s.exec(ctx, plan) })
}

// DropDatabase drops a database this provider created. On PostgreSQL it
// refuses with DatabaseInUse while sessions it did not open are connected,
// listing them; it terminates nothing.
func (s *Server) DropDatabase(ctx context.Context, db ddl.DatabaseName) error {
	defer s.invalidateDatabase(db)
	return s.WithLock(ctx, db, func(ctx context.Context) error { return s.dropLocked(ctx, db) })
}

// dropLocked refuses DatabaseInUse or drops; the caller holds the lock.
func (s *Server) dropLocked(ctx context.Context, db ddl.DatabaseName) error {
	sessions, err := s.Sessions(ctx, db)
	if err != nil {
		return err
	}
	if len(sessions) > 0 {
		described := make([]string, len(sessions))
		for i, x := range sessions {
			described[i] = x.String()
		}
		return ddl.ErrDatabaseInUse(s.spec.Name, db, described)
	}
	return s.exec(ctx, s.Dialect().DropDatabase(db))
}

// CreateLogin creates a login and grants it privs on db (the owner). A
// login that already exists is refused with PreExistingOwnerUser.
func (s *Server) CreateLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password, privs ddl.PrivilegeSet) error {
	defer s.invalidateDatabase(db) // PostgreSQL: the owner changes
	return s.WithLock(ctx, db, func(ctx context.Context) error {
		err := s.exec(ctx, s.Dialect().CreateOwner(db, user, pw, privs))
		if IsUserExists(err) {
			return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, db, user)
		}
		return err
	})
}

// SyncPrivileges moves grantee's privileges on db to desired: reads what it
// holds, grants the missing ones first, then revokes the surplus.
func (s *Server) SyncPrivileges(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username, desired ddl.PrivilegeSet) error {
	return s.WithLock(ctx, db, func(ctx context.Context) error {
		actual, err := s.Privileges(ctx, db, grantee)
		if err != nil {
			return err
		}
		diff := ddl.Diff(s.info, desired, actual)
		if diff.Empty() {
			return nil
		}
		owner, err := s.databaseOwner(ctx, db)
		if err != nil {
			return err
		}
		return s.exec(ctx, s.Dialect().SyncPrivileges(db, grantee, owner, diff))
	})
}

// RevokeAll removes every privilege of grantee on db.
func (s *Server) RevokeAll(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username) error {
	return s.WithLock(ctx, db, func(ctx context.Context) error {
		owner, err := s.databaseOwner(ctx, db)
		if err != nil {
			return err
		}
		return s.exec(ctx, s.Dialect().RevokeAll(db, grantee, owner))
	})
}

// databaseOwner is the PostgreSQL owner role of db (default privileges are
// per creating role); MySQL databases have none.
func (s *Server) databaseOwner(ctx context.Context, db ddl.DatabaseName) (ddl.Username, error) {
	if s.spec.Engine != ddl.EnginePostgres {
		return ddl.Username{}, nil
	}
	st, err := s.Database(ctx, db)
	if err != nil {
		return ddl.Username{}, err
	}
	if st == nil {
		return ddl.Username{}, fmt.Errorf("%s: database %q does not exist", s.spec.describe(), db)
	}
	return ddl.NewUsername(s.spec.Engine, st.Owner)
}
