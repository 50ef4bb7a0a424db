// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// keeperQuery reads the role $1 (a keeper's name) as far as it matters for
// holding a retained database ($3, by name) for the admin ($2): its
// attributes, what it is a member of, who else is a member of it, where
// else it owns or holds anything (pg_shdepend, and databases it owns), and
// on PostgreSQL 16+ whether the admin administers it.
const keeperQuery = `
SELECT r.rolcanlogin, r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolreplication, r.rolbypassrls,
       pg_catalog.array_to_json(ARRAY(SELECT pg_catalog.pg_get_userbyid(m.roleid)::text FROM pg_catalog.pg_auth_members m
             WHERE m.member = r.oid ORDER BY 1))::text,
       pg_catalog.array_to_json(ARRAY(SELECT DISTINCT pg_catalog.pg_get_userbyid(m.member)::text FROM pg_catalog.pg_auth_members m
             WHERE m.roleid = r.oid AND m.member <> (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $2) ORDER BY 1))::text,
       pg_catalog.array_to_json(ARRAY(SELECT DISTINCT d.datname::text FROM pg_catalog.pg_database d
             WHERE d.datname <> $3 AND (d.datdba = r.oid OR EXISTS (SELECT 1 FROM pg_catalog.pg_shdepend s
                   WHERE s.dbid = d.oid AND s.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass AND s.refobjid = r.oid))
             ORDER BY 1))::text,
       CASE WHEN $4 THEN pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER WITH ADMIN OPTION') ELSE true END
FROM pg_catalog.pg_roles r WHERE r.rolname = $1`

// keeperState reads db's keeper: whether it exists, and why it may not be
// used (empty: it is as tenantdb makes it).
func (s *Server) keeperState(ctx context.Context, db ddl.DatabaseName) (bool, ddl.KeeperFault, error) {
	var f ddl.KeeperFault
	found := true
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		f = ddl.KeeperFault{}
		var login, super, createdb, createrole, repl, bypass, administers bool
		var memberOf, members, elsewhere string
		err := q.QueryRowContext(ctx, keeperQuery, ddl.KeeperName(db).String(), s.spec.Username, db.String(),
			ddl.AdministersRolesItCreates(s.info)).
			Scan(&login, &super, &createdb, &createrole, &repl, &bypass, &memberOf, &members, &elsewhere, &administers)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		for _, l := range []struct {
			text string
			into *[]string
		}{{memberOf, &f.MemberOf}, {members, &f.Members}, {elsewhere, &f.Elsewhere}} {
			if err := json.Unmarshal([]byte(l.text), l.into); err != nil {
				return err
			}
		}
		for _, a := range []struct {
			on   bool
			name string
		}{{login, "LOGIN"}, {super, "SUPERUSER"}, {createdb, "CREATEDB"}, {createrole, "CREATEROLE"}, {repl, "REPLICATION"}, {bypass, "BYPASSRLS"}} {
			if a.on {
				f.Attributes = append(f.Attributes, a.name)
			}
		}
		f.NotAdmin = !administers
		return nil
	})
	if err != nil {
		return false, f, s.sess.ReadError("read the keeper role of database "+db.String(), err)
	}
	return found, f, nil
}

// keeperReady renders what makes db's keeper ready to receive: its create
// when it does not exist, the admin's membership when it does and is as
// tenantdb makes it; a keeper that is not is refused (ErrKeeperTampered).
func (s *Server) keeperReady(ctx context.Context, db ddl.DatabaseName, user ddl.Username, lockedOut bool) (ddl.Plan, error) {
	found, f, err := s.keeperState(ctx, db)
	if err != nil {
		return ddl.Plan{}, err
	}
	if !found {
		return ddl.CreateKeeper(db), nil
	}
	if !f.Empty() {
		return ddl.Plan{}, ddl.ErrKeeperTampered(s.spec.Name, db, user, f, lockedOut)
	}
	return ddl.JoinOwnerRole(ddl.KeeperName(db)), nil
}

// withKeeperHandedTo appends to a plan that makes owner the owner of db
// (a create, or ownership re-asserted) the keeper's handover when db's
// keeper holds it (a retained database re-onboarded): the keeper's
// default privileges carried to owner, everything it owns in db
// reassigned to owner, the keeper dropped. Read before any statement.
func (s *Server) withKeeperHandedTo(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, plan ddl.Plan) (ddl.Plan, error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return plan, nil
	}
	d, err := s.proof.DatabaseDirect(ctx, db)
	if err != nil || d == nil || !ddl.IsKeeperOf(db, d.Owner) {
		return plan, err
	}
	keeper := ddl.KeeperName(db)
	acls, err := s.proof.DefaultACLs(ctx, db, keeper.String())
	if err != nil {
		return ddl.Plan{}, err
	}
	owns, err := s.ownedSchemas(ctx, db, keeper.String(), owner.String())
	if err != nil {
		return ddl.Plan{}, err
	}
	return plan.Append(ddl.CarryDefaultPrivileges(db, owner.Role(), acls.WithoutSelf())).Append(ddl.KeeperHandsTo(db, owner, owns)), nil
}

// lockedOut reads whether the PostgreSQL login user may not log in
// (NOLOGIN: an offboarding's lock-out). A missing login reads as not.
func (s *Server) lockedOut(ctx context.Context, user ddl.Username) (bool, error) {
	locked := false
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		locked = false
		err := q.QueryRowContext(ctx, `SELECT NOT rolcanlogin FROM pg_catalog.pg_roles WHERE rolname = $1`, user.String()).Scan(&locked)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, s.sess.ReadError("read whether login "+user.String()+" may log in", err)
	}
	return locked, nil
}
