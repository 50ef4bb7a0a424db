// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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
		return s.snapshotDatabaseACL(ctx, db, user)
	})
	st.Shallow = st.PrincipalFound
	return st, err
}

// snapshotDatabaseACL serves the principal's database privileges from the
// accounts snapshot, loading every database's ACL in one query.
func (s *Server) snapshotDatabaseACL(ctx context.Context, db ddl.DatabaseName, user ddl.Username) ([]ddl.Privilege, error) {
	c := &s.proof.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &c.accounts
	if a.acls == nil || time.Since(a.aclsAt) > catalogTTL {
		acls := map[[2]string][]string{}
		err := s.proof.queryEach(ctx, `SELECT d.datname, pg_get_userbyid(a.grantee), a.privilege_type
FROM pg_database d, aclexplode(d.datacl) a WHERE a.grantee <> 0`, func() { clear(acls) }, func(rows *sql.Rows) error {
			var dbName, role, priv string
			if err := rows.Scan(&dbName, &role, &priv); err != nil {
				return err
			}
			k := [2]string{dbName, role}
			acls[k] = append(acls[k], priv)
			return nil
		})
		if err != nil {
			return nil, s.sess.readError(fmt.Sprintf("read the database privileges of %s", user), err)
		}
		a.acls, a.aclsAt = acls, time.Now()
	}
	var out []ddl.Privilege
	for _, p := range a.acls[[2]string{db.String(), user.String()}] {
		out = append(out, ddl.NormalizePrivilege(p))
	}
	return out, nil
}
