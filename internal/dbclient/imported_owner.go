// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// RevokeImportedOwner is the destroy of an owner this resource imported
// (user_created = false) on MySQL/MariaDB: the login is never dropped, but
// what the resource managed on the tenant database is revoked. The owner
// resource holds the login's privileges on the database to exactly the
// declared set (drift is corrected), so everything it holds there since the
// import is what the resource declared: all of it is revoked, on the
// database's name (rows a re-created database inherited included), and
// read back. As for a created owner (dropOwner), a login that is not
// provably the recorded one still has its rows revoked (revoking is always
// safe); one on another server, or gone, is left alone. It returns
// RevokedOnly, AlreadyGone or NotOurs. PostgreSQL: nothing (the imported
// owner keeps the database it owns; the provider does not call it there).
func (s *Server) RevokeImportedOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded Identity) (DropOutcome, Check, error) {
	defer s.invalidateDatabase(db)
	outcome := RevokedOnly
	var c Check
	err := s.withLock(ctx, db, func(ctx context.Context) error {
		var err error
		if c, err = s.checkOwnerLogin(ctx, db, user, recorded); err != nil {
			return err
		}
		switch {
		case !c.Found:
			outcome = AlreadyGone
			return nil
		case c.Verdict == OtherServer:
			outcome = NotOurs
			return nil
		}
		_, err = s.revokeOnNameLocked(ctx, db, user)
		return err
	})
	return outcome, c, err
}
