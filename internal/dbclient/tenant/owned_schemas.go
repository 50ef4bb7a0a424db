// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// ownedSchemasQuery lists, inside a database, the schemas the role $1 owns
// there.
const ownedSchemasQuery = `SELECT n.nspname::text FROM pg_catalog.pg_namespace n
WHERE n.nspowner = (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = $1) ORDER BY 1`

// ownedSchemas reads the schemas role owns in db, which a handover moves
// before REASSIGN OWNED moves the routines in them (ddl.OwnedContainers):
// read just before the handover's statements, any name a tenant gave them.
func (s *Server) ownedSchemas(ctx context.Context, db ddl.DatabaseName, role string) ([]ddl.SchemaName, error) {
	names, err := s.proof.QueryStrings(ctx, db.String(), ownedSchemasQuery, role)
	if err != nil {
		return nil, s.sess.ReadError(fmt.Sprintf("read the schemas %s owns in database %s", role, db), err)
	}
	out := make([]ddl.SchemaName, 0, len(names))
	for _, n := range names {
		sn, err := ddl.NewCatalogSchemaName(n)
		if err != nil {
			return nil, fmt.Errorf("%s: database %q: %w; nothing was changed", s.spec.Describe(), db, err)
		}
		out = append(out, sn)
	}
	return out, nil
}
