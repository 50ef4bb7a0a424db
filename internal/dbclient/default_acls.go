// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// defaultACLs reads the default privileges role gives inside db (every
// kind, database-wide and per schema), validated for a handover: what
// could refuse does so here, before the caller runs any statement. Not
// PostgreSQL, or no such role: nothing.
func (s *Server) defaultACLs(ctx context.Context, db ddl.DatabaseName, role string) (ddl.DefaultACLs, error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return ddl.DefaultACLs{}, nil
	}
	var rows []ddl.DefaultACLRow
	err := s.queryIn(ctx, db.String(), func(ctx context.Context, q queryer) error {
		rows = nil
		rs, err := q.QueryContext(ctx, `
SELECT COALESCE(n.nspname, ''), d.defaclobjtype::text, CASE WHEN a.grantee = 0 THEN '' ELSE pg_get_userbyid(a.grantee) END,
       a.grantee = d.defaclrole, a.privilege_type
FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace, aclexplode(d.defaclacl) a
WHERE d.defaclrole = (SELECT oid FROM pg_roles WHERE rolname = $1)
ORDER BY 1, 2, 3, 5`, role)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r ddl.DefaultACLRow
			var objType string
			if err := rs.Scan(&r.Schema, &objType, &r.Grantee, &r.Self, &r.Privilege); err != nil {
				return err
			}
			if objType != "" {
				r.ObjType = objType[0]
			}
			rows = append(rows, r)
		}
		return rs.Err()
	})
	if err != nil {
		return ddl.DefaultACLs{}, s.readError("read the default privileges of "+role, err)
	}
	acls, err := ddl.NewDefaultACLs(rows)
	if err != nil {
		return ddl.DefaultACLs{}, fmt.Errorf("%s: hand over the default privileges of role %q in database %q: %w; nothing was changed",
			s.spec.describe(), role, db, err)
	}
	return acls, nil
}
