// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Dropping a PostgreSQL owner login (an offboarding, or the old login of a
// rotation) in steps, each read before the statements it decides:
//
//  0. offboarding: the login is locked out first (NOLOGIN, its sessions
//     ended), so whatever fails after, the tenant can no longer act or
//     make new blockers; every later error says so;
//  1. the declared grantees (the owner's mark) and what the tenant granted
//     onward in db;
//  2. the handover, one transaction: db's keeper made ready (created, or
//     checked to be as tenantdb makes it: keeper.go), the default
//     privileges of declared grantees handed to it, the database and the
//     login's schemas handed to it by name (read just before), then
//     REASSIGN OWNED BY the login TO the keeper. Never to the admin:
//     tenant code that runs with its owner's rights would run with the
//     admin's. A rotation's old login leaves what it still owns to the
//     login that took the database over;
//  3. where else the login holds anything (pg_shdepend, per database); a
//     login that owns objects in another database is refused there, naming
//     the statements (after the lock-out and the handover, never instead);
//  4. a read: the login owns nothing left in db (else stop, drop nothing);
//  5. the onward grants revoked (offboarding only), the login's privileges
//     in other databases revoked, DROP OWNED, DROP ROLE.
func (s *Server) dropPostgresLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, offboarding bool) error {
	if !offboarding {
		return s.dropPostgresLoginSteps(ctx, db, user, false)
	}
	if err := s.sess.Exec(ctx, ddl.LockOutLogin(user)); err != nil {
		return err
	}
	if err := s.dropPostgresLoginSteps(ctx, db, user, true); err != nil {
		return lockedOutError(user, err)
	}
	return nil
}

// lockedOutError says, on an error after an offboarding's lock-out, that
// the tenant can no longer act and what is left: a retry finishes it.
func lockedOutError(user ddl.Username, err error) error {
	return fmt.Errorf("%w\n\nLogin %q is already locked out (NOLOGIN, its sessions ended) and cannot act; what is left "+
		"(the handover to the database's keeper role, revokes, the login's drop) is finished by the next apply", err, user.String())
}

func (s *Server) dropPostgresLoginSteps(ctx context.Context, db ddl.DatabaseName, user ddl.Username, offboarding bool) error {
	var declared map[string]bool
	var revokes ddl.Plan
	st, err := s.proof.DatabaseRow(ctx, db)
	if err != nil {
		return err
	}
	if st == nil {
		// The database is gone (dropped by hand, or an invalid database's
		// drop finished): nothing in it to hand over, read or revoke, and
		// no connection into it can be opened. What the login holds in
		// other databases still goes, then the role.
		foreign, closed, removed, err := s.foreignRevokes(ctx, db, user, offboarding)
		if err != nil {
			return err
		}
		return s.keptIfClosed(ctx, user, closed, withDependents(s.spec.Name, user,
			session.NoteRemoved(ctx, removed, s.sess.Exec(ctx, foreign.Append(ddl.DropOwnedLogin(s.dialect(), db, user))))))
	}
	if offboarding {
		if declared, err = s.declaredGrantees(ctx, db, user); err != nil {
			return err
		}
		if revokes, err = s.onwardRevokes(ctx, db, user, declared); err != nil {
			return err
		}
	}
	receiver := ddl.KeeperName(db).Role()
	toRole := !offboarding && st.Owner != user.String() && st.Owner != s.spec.Username && !ddl.IsKeeperOf(db, st.Owner)
	if toRole {
		if receiver, err = ddl.NewRoleName(st.Owner); err != nil {
			return err
		}
	}
	owns, err := s.ownedSchemas(ctx, db, user.String(), receiver.String())
	if err != nil {
		return err
	}
	owns.Database = st.Owner == user.String()
	var handover ddl.Plan
	if toRole {
		handover = ddl.HandOwnedToRole(db, user, receiver, owns)
	} else {
		ready, err := s.keeperReady(ctx, db, user, offboarding)
		if err != nil {
			return err
		}
		handover = ready.Append(ddl.HandOwnedToKeeper(db, user, owns))
	}
	handover, err = s.withDefaultsHandedOn(ctx, db, user, receiver, declared, handover)
	if err != nil {
		return err
	}
	if err := s.sess.Exec(ctx, ddl.InOneTransaction(s.dialect(), handover)); err != nil {
		return err
	}
	foreign, closed, removed, err := s.foreignRevokes(ctx, db, user, offboarding)
	if err != nil {
		return err
	}
	if err := s.requireOwnsNothing(ctx, db, user, receiver); err != nil {
		return err
	}
	return s.keptIfClosed(ctx, user, closed, withDependents(s.spec.Name, user,
		session.NoteRemoved(ctx, removed, s.sess.Exec(ctx, revokes.Append(foreign).Append(ddl.DropOwnedLogin(s.dialect(), db, user))))))
}

// keptIfClosed: DROP ROLE refused (2BP01) because the login still holds
// privileges in another tenant's closed database (foreignRevokes skipped
// it) ends the offboarding with the login kept, locked out (NOLOGIN), and
// a warning naming what is left; anything else is err.
func (s *Server) keptIfClosed(ctx context.Context, user ddl.Username, closed []string, err error) error {
	if err == nil || len(closed) == 0 || session.CodeOf(err) != "pg:2BP01" {
		return err
	}
	session.NoteSkip(ctx, fmt.Sprintf("login %q was kept, locked out (NOLOGIN), because it still holds privileges in database(s) %s, "+
		"which do not accept connections; once they do, connected to each: %s then DROP ROLE %s",
		user, strings.Join(closed, ", "), ddl.DropOwnedStatement(user), strings.TrimSuffix(strings.TrimPrefix(ddl.DropOwnedStatement(user), "DROP OWNED BY "), ";")+";"))
	return nil
}

// databaseClosed reads whether db refuses every connection
// (ALLOW_CONNECTIONS false). A missing database reads as open.
func (s *Server) databaseClosed(ctx context.Context, db ddl.DatabaseName) (bool, error) {
	closed := false
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		closed = false
		err := q.QueryRowContext(ctx, `SELECT NOT datallowconn FROM pg_catalog.pg_database WHERE datname = $1`, db.String()).Scan(&closed)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return false, s.sess.ReadError("read whether database "+db.String()+" accepts connections", err)
	}
	return closed, nil
}

// withDependents: DROP ROLE refused because something still depends on the
// login (2BP01: privileges granted after the reads above, or on objects
// whose owner the admin does not act as) says what, with the server's
// DETAIL ("privileges for table t in database globex").
func withDependents(server string, user ddl.Username, err error) error {
	if err == nil || session.CodeOf(err) != "pg:2BP01" || session.PGDetail(err) == "" {
		return err
	}
	return ddl.ErrLoginStillHeld(server, user, session.PGDetail(err), err)
}

// declaredGrantees reads the principals (OIDs) of the declared grants on db
// from the owner login's mark: only the admin writes it (ddl.OwnerMark).
// A login without a mark for db (imported, made by an earlier version)
// declares none: every grant on db is then revoked by the offboarding, and
// each declared grant's next apply grants it again.
func (s *Server) declaredGrantees(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (map[string]bool, error) {
	mark, ok, err := s.proof.LoginMark(ctx, user)
	if err != nil || !ok || mark.Database != db {
		return map[string]bool{}, err
	}
	out := map[string]bool{}
	for _, g := range mark.GranteeOIDs() {
		out[g] = true
	}
	return out, nil
}

// onwardQuery lists, inside a tenant database, every grantee's entries on
// the database and on what the owner ($1), the admin ($2) or db's keeper
// ($4; a retried offboarding finds its objects there) owns there
// (schemas, relations and their columns, sequences, routines, types,
// large objects), one row per grantee and object (per schema for the kinds
// revoked schema-wide). $3 false: the onward grants (grantees other than
// the owner and the admin); true: what the login $1 holds on anyone's
// objects (another tenant's database). Columns: kind, schema, object,
// grantee name ("" PUBLIC), grantee OID, privileges, any grantable.
const onwardQuery = `
WITH o AS (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $1),
own AS (SELECT oid FROM o
        UNION ALL SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $2
        UNION ALL SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $4
        UNION ALL SELECT oid FROM pg_catalog.pg_roles WHERE rolname = 'pg_database_owner'),
n AS (SELECT oid, nspname, nspacl, nspowner FROM pg_catalog.pg_namespace
      WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'),
e AS (
 SELECT 'database' AS kind, '' AS sch, '' AS obj, x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_database d, pg_catalog.aclexplode(d.datacl) x WHERE d.datname = pg_catalog.current_database()
 UNION ALL SELECT 'schema', n.nspname::text, '', x.grantee, x.privilege_type, x.is_grantable
   FROM n, pg_catalog.aclexplode(n.nspacl) x WHERE $3 OR n.nspowner IN (SELECT oid FROM own)
 UNION ALL SELECT CASE WHEN c.relkind = 'S' THEN 'sequences' ELSE 'tables' END, n.nspname::text, '', x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_class c JOIN n ON n.oid = c.relnamespace, pg_catalog.aclexplode(c.relacl) x
   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ($3 OR c.relowner IN (SELECT oid FROM own))
 UNION ALL SELECT 'tables', n.nspname::text, '', x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_attribute t JOIN pg_catalog.pg_class c ON c.oid = t.attrelid JOIN n ON n.oid = c.relnamespace,
        pg_catalog.aclexplode(t.attacl) x
   WHERE t.attacl IS NOT NULL AND ($3 OR c.relowner IN (SELECT oid FROM own))
 UNION ALL SELECT 'routines', n.nspname::text, '', x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_proc p JOIN n ON n.oid = p.pronamespace, pg_catalog.aclexplode(p.proacl) x
   WHERE $3 OR p.proowner IN (SELECT oid FROM own)
 UNION ALL SELECT CASE WHEN t.typtype = 'd' THEN 'domain' ELSE 'type' END, n.nspname::text, t.typname::text,
        x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_type t JOIN n ON n.oid = t.typnamespace, pg_catalog.aclexplode(t.typacl) x
   WHERE $3 OR t.typowner IN (SELECT oid FROM own)
 UNION ALL SELECT 'largeobject', '', l.oid::text, x.grantee, x.privilege_type, x.is_grantable
   FROM pg_catalog.pg_largeobject_metadata l, pg_catalog.aclexplode(l.lomacl) x
   WHERE $3 OR l.lomowner IN (SELECT oid FROM own))
SELECT kind, sch, obj, CASE WHEN grantee = 0 THEN '' ELSE pg_catalog.pg_get_userbyid(grantee)::text END, grantee::text,
       pg_catalog.string_agg(DISTINCT privilege_type, ',' ORDER BY privilege_type), pg_catalog.bool_or(is_grantable)
FROM e
WHERE CASE WHEN $3 THEN grantee IN (SELECT oid FROM o) ELSE grantee NOT IN (SELECT oid FROM own) END
GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4`

// onwardRows runs onwardQuery in db.
func (s *Server) onwardRows(ctx context.Context, db ddl.DatabaseName, user ddl.Username, foreign bool, declared map[string]bool) ([]ddl.OnwardRow, error) {
	var rows []ddl.OnwardRow
	err := s.sess.QueryIn(ctx, db.String(), func(ctx context.Context, q session.Queryer) error {
		rows = nil
		rs, err := q.QueryContext(ctx, onwardQuery, user.String(), s.spec.Username, foreign, ddl.KeeperName(db).String())
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var r ddl.OnwardRow
			var kind, oid, privs string
			if err := rs.Scan(&kind, &r.Schema, &r.Object, &r.Grantee, &oid, &privs, &r.Grantable); err != nil {
				return err
			}
			r.Kind, r.Privileges, r.Declared = ddl.OnwardKind(kind), strings.Split(privs, ","), declared[oid]
			rows = append(rows, r)
		}
		return rs.Err()
	})
	if err != nil {
		return nil, s.sess.ReadError(fmt.Sprintf("read what is granted in database %s", db), err)
	}
	return rows, nil
}

// onwardRevokes renders the revokes of everything the tenant granted
// onward in db (ddl.OffboardRevokes), read before any statement runs.
func (s *Server) onwardRevokes(ctx context.Context, db ddl.DatabaseName, user ddl.Username, declared map[string]bool) (ddl.Plan, error) {
	rows, err := s.onwardRows(ctx, db, user, false, declared)
	if err != nil {
		return ddl.Plan{}, err
	}
	p, err := ddl.OffboardRevokes(db, rows)
	if err != nil {
		return ddl.Plan{}, fmt.Errorf("%s: offboard database %q: %w; nothing was changed", s.spec.Describe(), db, err)
	}
	return p, nil
}

// foreignQuery: per other database, whether the login $1 owns objects
// there other than large objects (its default privileges aside), how many
// large objects it owns there, whether it has default privileges there
// (its own, or someone's naming it), and whether it holds privileges
// there, from pg_shdepend.
const foreignQuery = `
SELECT d.datname::text,
       pg_catalog.bool_or(s.deptype = 'o' AND s.classid NOT IN ('pg_catalog.pg_default_acl'::pg_catalog.regclass,
                                                                'pg_catalog.pg_largeobject'::pg_catalog.regclass)),
       pg_catalog.count(*) FILTER (WHERE s.deptype = 'o' AND s.classid = 'pg_catalog.pg_largeobject'::pg_catalog.regclass),
       pg_catalog.bool_or(s.classid = 'pg_catalog.pg_default_acl'::pg_catalog.regclass),
       pg_catalog.bool_or(s.deptype = 'a' AND s.classid <> 'pg_catalog.pg_default_acl'::pg_catalog.regclass)
FROM pg_catalog.pg_shdepend s JOIN pg_catalog.pg_database d ON d.oid = s.dbid
WHERE s.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass
  AND s.refobjid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $1) AND d.datname <> $2
GROUP BY 1 ORDER BY 1`

// foreignHolding is one row of foreignQuery.
type foreignHolding struct {
	name            string
	owns            bool  // objects other than large objects
	largeObjects    int64 // large objects it owns there
	defaults, privs bool
}

// foreignRevokes renders what ends user's holdings in other databases.
//
// A rotation's old login (offboarding false): what it holds through
// someone else's grant (another tenant's owner granting it a table) is
// revoked; objects it owns there, and default privileges, are refused
// before any statement, naming each database and the statements that
// clear it.
//
// An offboarding (the login already locked out and its database already
// the keeper's): nothing the tenant made or was given elsewhere may stop
// it. Where the login owns no object but large objects (the maintenance
// database: lo_create needs no privilege), DROP OWNED there removes its
// large objects, its default privileges and the privileges granted to it;
// each database and what went is noted (the caller notes them once the
// plan ran). Objects of any other kind it owns in another database (a
// table in another tenant's database, possibly holding that tenant's
// rows) are never dropped or reassigned there: refused, after the
// lock-out, naming the statements.
//
// Either way another tenant's closed database (ALLOW_CONNECTIONS false) is
// skipped and named (closed), never a reason to stop.
func (s *Server) foreignRevokes(ctx context.Context, db ddl.DatabaseName, user ddl.Username, offboarding bool) (ddl.Plan, []string, []string, error) {
	var hs []foreignHolding
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		hs = nil
		rs, err := q.QueryContext(ctx, foreignQuery, user.String(), db.String())
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var h foreignHolding
			if err := rs.Scan(&h.name, &h.owns, &h.largeObjects, &h.defaults, &h.privs); err != nil {
				return err
			}
			hs = append(hs, h)
		}
		return rs.Err()
	})
	if err != nil {
		return ddl.Plan{}, nil, nil, s.sess.ReadError("read where login "+user.String()+" holds privileges", err)
	}
	var p ddl.Plan
	var blocked []ddl.ForeignHolding
	var closedDBs, removed []string
	for _, h := range hs {
		other, err := ddl.NewCatalogDatabaseName(h.name)
		if err != nil {
			return ddl.Plan{}, nil, nil, err
		}
		if h.owns || (!offboarding && (h.largeObjects > 0 || h.defaults)) {
			blocked = append(blocked, ddl.ForeignHolding{Database: other, OwnsObjects: h.owns || h.largeObjects > 0, Defaults: h.defaults})
			continue
		}
		if closed, err := s.databaseClosed(ctx, other); err != nil || closed {
			// Another tenant closed its database (ALLOW_CONNECTIONS
			// false): never reopened for this one's offboarding, and
			// never a reason to stop it. Named; what the login holds
			// there keeps it from being dropped (dropPostgresLoginSteps).
			if err != nil {
				return ddl.Plan{}, nil, nil, err
			}
			closedDBs = append(closedDBs, other.String())
			session.NoteSkip(ctx, fmt.Sprintf("database %q does not accept connections (ALLOW_CONNECTIONS false): what login %q holds "+
				"there was not read or revoked; connected there once it is open: %s", other, user, ddl.DropOwnedStatement(user)))
			continue
		}
		if may, err := s.adminMayConnect(ctx, other); err != nil || !may {
			if err != nil {
				return ddl.Plan{}, nil, nil, err
			}
			blocked = append(blocked, ddl.ForeignHolding{Database: other})
			continue
		}
		if offboarding {
			p = p.Append(ddl.DropOwnedIn(other, user))
			removed = append(removed, foreignRemoved(other, user, h))
			continue
		}
		rows, err := s.onwardRows(ctx, other, user, true, nil)
		if err != nil {
			return ddl.Plan{}, nil, nil, err
		}
		revokes, err := ddl.RevokeFromLogin(other, rows)
		if err != nil {
			return ddl.Plan{}, nil, nil, err
		}
		p = p.Append(revokes)
	}
	if len(blocked) > 0 {
		return ddl.Plan{}, nil, nil, ddl.ErrForeignHoldings(s.spec.Name, user, blocked, offboarding)
	}
	return p, closedDBs, removed, nil
}

// foreignRemoved says what DROP OWNED removed in another database.
func foreignRemoved(other ddl.DatabaseName, user ddl.Username, h foreignHolding) string {
	var what []string
	if h.largeObjects > 0 {
		what = append(what, fmt.Sprintf("%d large object(s) it owned", h.largeObjects))
	}
	if h.defaults {
		what = append(what, "default privileges (its own, or naming it)")
	}
	if h.privs {
		what = append(what, "privileges granted to it")
	}
	return fmt.Sprintf("database %q: login %q (locked out) held %s there; removed (%s)", other, user,
		strings.Join(what, ", "), ddl.DropOwnedStatement(user))
}

// ownedLeftQuery names what the login $1 still owns in the current
// database (the database itself included), its default privileges aside.
const ownedLeftQuery = `
SELECT pg_catalog.pg_describe_object(s.classid, s.objid, s.objsubid)
FROM pg_catalog.pg_shdepend s, pg_catalog.pg_database d
WHERE d.datname = pg_catalog.current_database() AND s.deptype = 'o'
  AND s.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass
  AND s.refobjid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = $1)
  AND s.classid <> 'pg_catalog.pg_default_acl'::pg_catalog.regclass
  AND (s.dbid = d.oid OR (s.classid = 'pg_catalog.pg_database'::pg_catalog.regclass AND s.objid = d.oid))
ORDER BY 1 LIMIT 20`

// requireOwnsNothing is the read between REASSIGN OWNED and DROP OWNED:
// DROP OWNED drops every object the login still owns in db, so it runs
// only once the login owns nothing there.
func (s *Server) requireOwnsNothing(ctx context.Context, db ddl.DatabaseName, user ddl.Username, receiver ddl.RoleName) error {
	left, err := s.proof.QueryStrings(ctx, db.String(), ownedLeftQuery, user.String())
	if err != nil {
		return s.sess.ReadError(fmt.Sprintf("read what login %s still owns in %s", user, db), err)
	}
	if len(left) > 0 {
		return ddl.ErrStillOwns(s.spec.Name, db, user, receiver, left)
	}
	return nil
}
