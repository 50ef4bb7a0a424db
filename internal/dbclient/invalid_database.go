// SPDX-License-Identifier: MPL-2.0

package dbclient

import "context"

// Invalid databases (issue 48). PostgreSQL 15.4+ marks a database invalid
// (pg_database.datconnlimit = -2) when its DROP DATABASE was stopped after
// it began removing the files: no one can connect to it, its data is
// partly gone, and only DROP DATABASE finishes it. tenantdb never stops
// its own drops part way (uncancellable.go), but another client's may.
// The catalog reads carry the mark (DatabaseState.Invalid, in the one
// pg_database row every refresh already reads), so:
//   - a refresh of the database, its owner or a grant reports it (the
//     provider's DriftDetected warning) and never connects into it;
//   - every change reads the database directly first (databaseDirect),
//     and is refused there with DatabaseInvalid, before any statement;
//   - the database's own drop (DropOwnDatabase) is let through: it is
//     what finishes it.
// MariaDB/MySQL keep no such mark: a drop stopped part way there leaves an
// ordinary database with fewer tables, which nothing on the server tells
// apart from a tenant that dropped its own tables.

type droppingKey struct{}

// dropping marks ctx as the database's drop, which an invalid database
// does not refuse.
func dropping(ctx context.Context) context.Context {
	return context.WithValue(ctx, droppingKey{}, true)
}
