// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// DefaultACLs reads the default privileges role gives inside db (every
// kind, database-wide and per schema), validated for a handover: what
// could refuse does so here, before the caller runs any statement. Not
// PostgreSQL, or no such role: nothing.
func (s *Server) DefaultACLs(ctx context.Context, db ddl.DatabaseName, role string) (ddl.DefaultACLs, error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return ddl.DefaultACLs{}, nil
	}
	var rows []ddl.DefaultACLRow
	err := s.sess.QueryIn(ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		rows = nil
		// Inside the tenant's database: functions qualified, the rest
		// under the pinned search_path (see pgGrantQuery).
		// The second part lists what the role's built-in default gives it
		// on its own objects (acldefault; sequences are 's' there) and its
		// database-wide entry lacks: the rights it revoked from itself.
		rs, err := q.QueryContext(ctx, `
SELECT COALESCE(n.nspname, ''), d.defaclobjtype::text, CASE WHEN a.grantee = 0 THEN '' ELSE pg_catalog.pg_get_userbyid(a.grantee) END,
       a.grantee = d.defaclrole, a.privilege_type, false
FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace, pg_catalog.aclexplode(d.defaclacl) a
WHERE d.defaclrole = (SELECT oid FROM pg_roles WHERE rolname = $1)
UNION ALL
SELECT '', d.defaclobjtype::text, '', true, b.privilege_type, true
FROM pg_default_acl d, pg_catalog.aclexplode(pg_catalog.acldefault(CASE d.defaclobjtype WHEN 'S' THEN 's' ELSE d.defaclobjtype END, d.defaclrole)) b
WHERE d.defaclrole = (SELECT oid FROM pg_roles WHERE rolname = $1) AND d.defaclnamespace = 0 AND b.grantee = d.defaclrole
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.aclexplode(d.defaclacl) a WHERE a.grantee = d.defaclrole AND a.privilege_type = b.privilege_type)
ORDER BY 1, 2, 3, 5`, role)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r ddl.DefaultACLRow
			var objType string
			if err := rs.Scan(&r.Schema, &objType, &r.Grantee, &r.Self, &r.Privilege, &r.SelfRevoked); err != nil {
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
		return ddl.DefaultACLs{}, s.sess.ReadError("read the default privileges of "+role, err)
	}
	acls, err := ddl.NewDefaultACLs(rows)
	if err != nil {
		return ddl.DefaultACLs{}, fmt.Errorf("%s: hand over the default privileges of role %q in database %q: %w; nothing was changed",
			s.spec.Describe(), role, db, err)
	}
	return acls, nil
}

// ConnectGrantees reads the roles holding CONNECT on db in its ACL: what a
// tenantdb_tenant_grant gives every grantee (PUBLIC's is revoked from a
// tenant database), so their default privileges FOR ROLE the admin are the
// ones a grant made (see ddl.DefaultACLs.MadeByGrants).
func (s *Server) ConnectGrantees(ctx context.Context, db ddl.DatabaseName) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		clear(out)
		rows, err := q.QueryContext(ctx, `SELECT pg_get_userbyid(a.grantee) FROM pg_database d, aclexplode(d.datacl) a
WHERE d.datname = $1 AND a.privilege_type = 'CONNECT' AND a.grantee <> 0`, db.String())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return err
			}
			out[name] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.sess.ReadError("read who may connect to "+db.String(), err)
	}
	return out, nil
}
