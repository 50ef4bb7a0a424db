// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Invalid databases (issue 48). PostgreSQL 15.4+ marks a database invalid
// (pg_database.datconnlimit = -2) when its DROP DATABASE was stopped after
// it began removing the files: no one can connect to it, its data is
// partly gone, and only DROP DATABASE finishes it. tenantdb never stops
// its own drops part way (uncancellable.go), but another client's may.
// The catalog reads carry the mark (DatabaseState.Invalid, in the one
// pg_database row every refresh already reads), so:
//   - a refresh of the database, its owner or a grant reports it (the
//     provider's DriftDetected warning) and never connects into it;
//   - every change (each takes the tenant's lock, withLock) reads the
//     database row first, and is refused with DatabaseInvalid before any
//     statement; most changes read that row first anyway, and the reading
//     serves them (database_read_cache.go), so only a password change, a
//     rotation and an owner's drop send one read more;
//   - the database's own drop (DropOwnDatabase) is let through: it is
//     what finishes it.
// MariaDB/MySQL keep no such mark: a drop stopped part way there leaves an
// ordinary database with fewer tables, which nothing on the server tells
// apart from a tenant that dropped its own tables.

type droppingKey struct{}

// Dropping marks ctx as the database's drop, which an invalid database
// does not refuse.
func Dropping(ctx context.Context) context.Context {
	return context.WithValue(ctx, droppingKey{}, true)
}

// refuseInvalid refuses (PostgreSQL) a change of an invalid database,
// unless it is the database's drop.
func (s *Server) refuseInvalid(ctx context.Context, db ddl.DatabaseName) error {
	if s.spec.Engine != ddl.EnginePostgres || ctx.Value(droppingKey{}) != nil {
		return nil
	}
	_, err := s.DatabaseDirect(ctx, db)
	return err
}
