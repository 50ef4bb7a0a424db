// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Declared grantees (PostgreSQL): the owner login's mark lists the OIDs of
// the principals of the tenantdb_tenant_grant resources on its database
// (ddl.OwnerMark.Grantees), so its offboarding knows whom to leave their
// rights (offboard.go). The tenant can grant anything to anyone, and a
// grant by a member of the owning role is recorded with the owner as
// grantor, so neither the ACL nor its grantor tells a declared grant from
// the tenant's own; a role's comment can be written only by a role with
// CREATEROLE (PostgreSQL 16+: that also administers it) or a superuser:
// the admin, not the tenant and not a grantee.
//
// The list is kept by the grants themselves (a create or update adds its
// principal, a destroy removes it), carried by each new owner login (a
// rotation copies the old login's list; an owner created on a database the
// admin owns takes the roles holding CONNECT there, which only the admin
// or a superuser could have granted).

// granteesToCarry is the grants= list a new owner login of db carries:
// that of owner (the database's current owner) when it is a marked owner
// of db, or, while the admin owns db, the roles holding CONNECT on it.
func (s *Server) granteesToCarry(ctx context.Context, db ddl.DatabaseName, owner string) (string, error) {
	if owner == s.spec.Username {
		oids, err := s.connectGranteeOIDs(ctx, db)
		return strings.Join(oids, ","), err
	}
	mark, ok, err := s.roleMark(ctx, owner)
	if err != nil || !ok || mark.Database != db {
		return "", err
	}
	return mark.Grantees, nil
}

// connectGranteeOIDs lists the OIDs of the roles holding CONNECT on db, in
// numeric order.
func (s *Server) connectGranteeOIDs(ctx context.Context, db ddl.DatabaseName) ([]string, error) {
	out, err := s.QueryStrings(ctx, "", `SELECT a.grantee::text FROM pg_catalog.pg_database d, pg_catalog.aclexplode(d.datacl) a
WHERE d.datname = $1 AND a.privilege_type = 'CONNECT' AND a.grantee <> 0 AND a.grantee <> d.datdba
GROUP BY a.grantee ORDER BY a.grantee`, db.String())
	if err != nil {
		return nil, s.sess.ReadError("read who may connect to "+db.String(), err)
	}
	return out, nil
}

// MarkGrantee adds (a grant made or updated) or removes (a grant revoked)
// principal, an OID, in the mark of db's owner login. Nothing when the
// database's owner is not a marked owner of db (the admin owns it: the
// next owner takes the CONNECT holders; an imported owner without a mark:
// its offboarding revokes every grant, and each grant's next apply
// grants it again).
func (s *Server) MarkGrantee(ctx context.Context, db ddl.DatabaseName, principal string, add bool) error {
	if s.info.Flavor != ddl.FlavorPostgres || principal == "" {
		return nil
	}
	d, err := s.DatabaseDirect(ctx, db)
	if err != nil || d == nil || d.Owner == s.spec.Username {
		return err
	}
	mark, ok, err := s.roleMark(ctx, d.Owner)
	if err != nil || !ok || mark.Database != db || !mark.Finished {
		return err
	}
	next, changed := mark.WithGrantee(principal, add)
	if !changed {
		return nil
	}
	owner, err := ddl.CatalogOwner(d.Owner)
	if err != nil {
		return err
	}
	return s.sess.Exec(ctx, ddl.RecordGrantees(owner, next))
}
