// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// PGGrant is one read of the PostgreSQL catalogs inside a tenant database.
type PGGrant struct {
	Read             ddl.PostgresGrantRead
	Scope            ddl.PostgresGrantScope
	Owner            string // the database owner (datdba)
	GranteeIsOwner   bool
	AdminActsAsOwner bool   // the admin has the owner's privileges (member, or the owner itself, or superuser)
	PrincipalOID     string // "" when no such role exists
}

func (g PGGrant) OwnerName(s *Server, db ddl.DatabaseName) (ddl.Username, error) {
	u, err := ddl.CatalogOwner(g.Owner) // the admin's name need not match the owner pattern
	if err != nil {
		return ddl.Username{}, fmt.Errorf("%s: database %q is owned by role %q, whose name tenantdb cannot manage: %w",
			s.spec.Describe(), db, g.Owner, err)
	}
	return u, nil
}

// pgGrantQuery reads, inside the tenant database, everything a grant is:
// the principal's entries in the ACLs of the database, of the tenant
// schemas (owned by the database owner, or public through
// pg_database_owner; $2 false: public only), of the owner's tables there,
// and of the owner's default privileges on tables (per tenant schema, and
// database-wide), with grant options; the tenant schemas it may use through
// its own USAGE or PUBLIC's (grantee 0; ddl.PostgresGrantRead.Held says
// why); and the facts around them. One row per fact: kind, name,
// grantable, count. It runs inside the tenant's database, where the tenant
// creates schemas, functions and operators: functions are qualified
// (pg_catalog.), and relations, operators and types resolve under the
// pinned search_path that each connection verifies before its first
// statement (admin_session_postgres.go).
const pgGrantQuery = `
WITH g AS (SELECT oid FROM pg_roles WHERE rolname = $1),
d AS (SELECT oid, datdba, datacl FROM pg_database WHERE datname = pg_catalog.current_database()),
s AS (SELECT n.oid, n.nspname, n.nspacl FROM pg_namespace n, d
      WHERE n.nspowner IN (d.datdba, 'pg_database_owner'::regrole)
        AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
        AND ($2::boolean OR n.nspname = 'public')),
t AS (SELECT c.oid, c.relacl FROM pg_class c JOIN s ON c.relnamespace = s.oid, d
      WHERE c.relowner = d.datdba AND c.relkind IN ('r', 'p', 'v', 'm', 'f')),
da AS (SELECT x.defaclnamespace AS nsp, a.privilege_type, a.is_grantable
       FROM d, pg_default_acl x, pg_catalog.aclexplode(x.defaclacl) a, g
       WHERE x.defaclrole = d.datdba AND x.defaclobjtype = 'r' AND a.grantee = g.oid
         AND (x.defaclnamespace = 0 OR x.defaclnamespace IN (SELECT oid FROM s)))
SELECT 'database', a.privilege_type, pg_catalog.bool_or(a.is_grantable), pg_catalog.count(*)::int
  FROM d, pg_catalog.aclexplode(d.datacl) a, g WHERE a.grantee = g.oid GROUP BY 2
UNION ALL SELECT 'schema-acl', a.privilege_type, pg_catalog.bool_or(a.is_grantable), pg_catalog.count(DISTINCT s.oid)::int
  FROM s, pg_catalog.aclexplode(s.nspacl) a, g WHERE a.grantee = g.oid GROUP BY 2
UNION ALL SELECT 'schema-reachable', '', false, pg_catalog.count(DISTINCT s.oid)::int
  FROM s, pg_catalog.aclexplode(s.nspacl) a, g WHERE a.grantee IN (g.oid, 0) AND a.privilege_type = 'USAGE'
UNION ALL SELECT 'table', a.privilege_type, pg_catalog.bool_or(a.is_grantable), pg_catalog.count(DISTINCT t.oid)::int
  FROM t, pg_catalog.aclexplode(t.relacl) a, g WHERE a.grantee = g.oid GROUP BY 2
UNION ALL SELECT 'schema-default', privilege_type, pg_catalog.bool_or(is_grantable), pg_catalog.count(DISTINCT nsp)::int
  FROM da WHERE nsp <> 0 GROUP BY 2
UNION ALL SELECT 'wide-default', privilege_type, pg_catalog.bool_or(is_grantable), 0 FROM da WHERE nsp = 0 GROUP BY 2
UNION ALL SELECT 'schema', nspname::text, false, 0 FROM s
UNION ALL SELECT 'tables', '', false, (SELECT pg_catalog.count(*) FROM t)::int
UNION ALL SELECT 'owner', pg_catalog.pg_get_userbyid(d.datdba), COALESCE(d.datdba = (SELECT oid FROM g), false), 0 FROM d
UNION ALL SELECT 'admin', '', pg_catalog.pg_has_role(current_user, d.datdba, 'USAGE'), 0 FROM d
UNION ALL SELECT 'principal', oid::text, false, 0 FROM g`

// PGGrantRead runs pgGrantQuery in db for grantee; allSchemas false limits
// the scope to schema public (the Dialect's SyncPrivileges).
func (s *Server) PGGrantRead(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username, allSchemas bool) (PGGrant, error) {
	var g PGGrant
	err := s.sess.QueryIn(ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		g = PGGrant{Read: ddl.PostgresGrantRead{OnTables: map[ddl.Privilege]int{}, InDefaults: map[ddl.Privilege]int{}}}
		rows, err := q.QueryContext(ctx, pgGrantQuery, grantee.String(), allSchemas)
		if err != nil {
			return err
		}
		defer rows.Close()
		r := &g.Read
		for rows.Next() {
			var kind, name string
			var grantable bool
			var n int
			if err := rows.Scan(&kind, &name, &grantable, &n); err != nil {
				return err
			}
			p := ddl.NormalizePrivilege(name)
			switch kind {
			case "database":
				r.Database, r.Grantable = append(r.Database, p), r.Grantable || grantable
			case "schema-acl":
				if p == "USAGE" {
					r.UsableSchemas = n
				}
				r.Grantable = r.Grantable || grantable
			case "schema-reachable":
				r.Reachable = n
			case "table":
				r.OnTables[p], r.Grantable = n, r.Grantable || grantable
			case "schema-default":
				r.InDefaults[p], r.Grantable = n, r.Grantable || grantable
			case "wide-default":
				r.WideDefaults, r.Grantable = append(r.WideDefaults, p), r.Grantable || grantable
				g.Scope.WideDefaults = true
			case "schema":
				sn, err := ddl.NewCatalogSchemaName(name)
				if err != nil {
					return err
				}
				g.Scope.Schemas = append(g.Scope.Schemas, sn)
				r.Schemas++
			case "tables":
				r.Tables = n
			case "owner":
				g.Owner, g.GranteeIsOwner = name, grantable
			case "admin":
				g.AdminActsAsOwner = grantable
			case "principal":
				g.PrincipalOID = name
			}
		}
		return rows.Err()
	})
	slices.SortFunc(g.Scope.Schemas, func(a, b ddl.SchemaName) int { return strings.Compare(a.String(), b.String()) })
	return g, err
}
