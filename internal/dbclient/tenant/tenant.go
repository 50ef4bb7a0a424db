// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// dropLocked refuses DatabaseInUse or drops; the caller holds the lock.
func (s *Server) dropLocked(ctx context.Context, db ddl.DatabaseName) error {
	sessions, err := s.proof.Sessions(ctx, db)
	if err != nil {
		return err
	}
	if len(sessions) > 0 {
		described := make([]string, len(sessions))
		for i, x := range sessions {
			described[i] = x.String()
		}
		return ddl.ErrDatabaseInUse(s.spec.Name, db, described)
	}
	// A declared delete: IS_TEMPLATE true (the owner may set it) would
	// refuse the drop on every apply.
	if _, err := s.sess.ResetFlags(ctx, db, false, true); err != nil {
		return err
	}
	keeperHeld := false
	if s.info.Flavor == ddl.FlavorPostgres {
		d, err := s.proof.DatabaseDirect(ctx, db)
		if err != nil {
			return err
		}
		keeperHeld = d != nil && ddl.IsKeeperOf(db, d.Owner)
	}
	if err := s.sess.Exec(ctx, s.dialect().DropDatabase(db)); err != nil || !keeperHeld {
		return err
	}
	// The keeper held only this database: it goes with it.
	return s.sess.Exec(ctx, ddl.DropKeeper(db))
}

// syncPrivileges moves grantee's privileges on db to desired: reads what it
// holds, grants the missing ones first, then revokes the surplus.
//
// created (a login this resource made): what it holds on db is what
// tenantdb granted it where the ledger has no record yet (an earlier
// version's owner); an imported login's is not (ledger_grants.go).
func (s *Server) syncPrivileges(ctx context.Context, db ddl.DatabaseName, grantee ddl.Username, desired ddl.PrivilegeSet, created bool) error {
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		actual, err := s.proof.Privileges(ctx, db, grantee)
		if err != nil {
			return err
		}
		diff := ddl.Diff(s.info, desired, actual)
		if diff.Empty() {
			return nil
		}
		owner, err := s.databaseOwner(ctx, db)
		if err != nil {
			return err
		}
		var fallback []ddl.Privilege
		if created {
			fallback = actual
		}
		// Only what it did not hold yet is tenantdb's grant (GRANT ALL
		// re-grants what a DBA gave it too: that stays the DBA's).
		if err := s.proof.RecordGranting(ctx, db, grantee, ddl.MinusPrivileges(desired.Expand(s.info), actual), fallback); err != nil {
			return err
		}
		if err := s.sess.Exec(ctx, s.dialect().SyncPrivileges(db, grantee, owner, diff)); err != nil {
			return err
		}
		return s.proof.RecordRevoked(ctx, db, grantee, diff.Revoke, fallback)
	})
}

// databaseOwner is the PostgreSQL owner role of db (default privileges are
// per creating role); MySQL databases have none.
func (s *Server) databaseOwner(ctx context.Context, db ddl.DatabaseName) (ddl.Username, error) {
	if s.spec.Engine != ddl.EnginePostgres {
		return ddl.Username{}, nil
	}
	st, err := s.proof.Database(ctx, db)
	if err != nil {
		return ddl.Username{}, err
	}
	if st == nil {
		return ddl.Username{}, fmt.Errorf("%s: database %q does not exist", s.spec.Describe(), db)
	}
	return ddl.NewUsername(s.spec.Engine, st.Owner)
}
