// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The shallow PostgreSQL grant refresh (the provider's
// postgres_grant_refresh = "database"): a refresh reads a grant from one
// catalog snapshot of every database's ACL and the logins snapshot, and
// never connects into a tenant database. It sees a dropped or re-created
// principal and database-level drift (CONNECT, CREATE, TEMPORARY); it
// cannot see table-level drift (a REVOKE on a table, a changed default
// privilege, a new schema), which the full refresh does. Apply always
// sets everything, whatever the setting.

type fullReadKey struct{}

// FullGrantRead makes ReadGrant under ctx read in full even with the shallow
// refresh: an import adopts what the grant really is.
func FullGrantRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, fullReadKey{}, true)
}

// readGrantShallow is ReadGrant from the snapshots; Held holds only the
// database-level privileges, and Shallow says so.
func (s *Server) readGrantShallow(ctx context.Context, db ddl.DatabaseName, user ddl.Username, st GrantState) (GrantState, error) {
	st, err := s.readFromSnapshots(ctx, st, user, func(ctx context.Context) ([]ddl.Privilege, error) {
		return s.proof.SnapshotDatabaseACL(ctx, db, user)
	})
	st.Shallow = st.PrincipalFound
	return st, err
}
