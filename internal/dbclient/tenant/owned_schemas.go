// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// ownedSchemasQuery reads, inside a database, the schemas the role $1 owns
// there, and whether the database's owner or the handover's receiver $2
// (which may not exist yet) holds CREATE on it: a tenant may revoke its
// own, and moving a schema or a publication then needs it lent
// (ddl.OwnedContainers).
const ownedSchemasQuery = `
SELECT pg_catalog.has_database_privilege(d.datdba, d.oid, 'CREATE')
       OR COALESCE(pg_catalog.has_database_privilege((SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = $2), d.oid, 'CREATE'), false),
       pg_catalog.array_to_json(ARRAY(SELECT n.nspname::text FROM pg_catalog.pg_namespace n
             WHERE n.nspowner = (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = $1) ORDER BY 1))::text
FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database()`

// ownedSchemas reads the schemas role owns in db, which a handover to
// receiver moves before REASSIGN OWNED moves the routines in them, and
// whether the handover needs CREATE on db lent to receiver: only when
// neither the database's owner (whose ACL entries follow the database to
// receiver) nor receiver holds it, so the lend's REVOKE takes back only
// what it gave (ddl.OwnedContainers; the caller says whether role owns db
// itself). Read just before the handover's statements; any name a tenant
// gave a schema.
func (s *Server) ownedSchemas(ctx context.Context, db ddl.DatabaseName, role, receiver string) (ddl.OwnedContainers, error) {
	var c ddl.OwnedContainers
	err := s.sess.QueryIn(ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		var ownerCreates bool
		var names string
		if err := q.QueryRowContext(ctx, ownedSchemasQuery, role, receiver).Scan(&ownerCreates, &names); err != nil {
			return err
		}
		var list []string
		if err := json.Unmarshal([]byte(names), &list); err != nil {
			return err
		}
		c = ddl.OwnedContainers{CreateWithheld: !ownerCreates}
		for _, n := range list {
			sn, err := ddl.NewCatalogSchemaName(n)
			if err != nil {
				return err
			}
			c.Schemas = append(c.Schemas, sn)
		}
		return nil
	})
	if err != nil {
		return ddl.OwnedContainers{}, s.sess.ReadError(fmt.Sprintf("read the schemas %s owns in database %s", role, db), err)
	}
	return c, nil
}
