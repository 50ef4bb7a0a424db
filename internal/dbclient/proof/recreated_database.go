// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// A database re-created under the same name (MySQL/MariaDB). The server
// keeps an account's database-level grant rows for a name after DROP
// DATABASE, and a database created later under that name inherits them: a
// superuser's new database is readable by the old owner and grantees. The
// rule is "revoking is always safe; dropping needs proof": when the
// database at the name is not the recorded one, the rows this provider
// made for the login are revoked, and nothing is granted on, altered in or
// dropped from the new database. PostgreSQL privileges live in the
// database itself and go with it, so there is nothing to do there.

// recreatedDatabase reports whether the database named db is not the one
// recorded (MySQL/MariaDB only): found says whether a database of that
// name exists; recreated, that it is gone or positively another one on
// the same server (Replaced: another claim's mark). An Unproven database
// (its mark gone or no longer counted, a MariaDB comment rewritten) is not
// re-created: a missing proof is never a replacement. An empty recorded
// identity proves nothing and reports false, and so does another server
// (nothing of ours is there to revoke).
func (s *Server) recreatedDatabase(ctx context.Context, db ddl.DatabaseName, recorded Identity) (found, recreated bool, err error) {
	if s.info.Flavor == ddl.FlavorPostgres || recorded == "" {
		return false, false, nil
	}
	c, err := s.CheckIdentity(ctx, db, recorded)
	if err != nil {
		return false, false, err
	}
	return c.Found, !c.Found || c.Verdict == Replaced, nil
}

// RevokeOnRecreatedDatabase revokes what tenantdb granted user on db's
// name (ledger_grants.go; granted stands in where the ledger has no
// record) when the database there is not recordedDB (recreatedDatabase)
// and user is still recordedLogin: the rows are then the ones this
// provider made for it. It says what it revoked and what user still holds
// there that tenantdb never granted. The owner's apply calls it; the
// grant's own calls are in grant.go.
func (s *Server) RevokeOnRecreatedDatabase(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recordedDB, recordedLogin Identity, granted []ddl.Privilege) (RevokedOwn, error) {
	var own RevokedOwn
	err := s.WithLock(ctx, db, func(ctx context.Context) error {
		_, recreated, err := s.recreatedDatabase(ctx, db, recordedDB)
		if err != nil || !recreated {
			return err
		}
		if c, err := s.CheckLogin(ctx, user, recordedLogin); err != nil || !c.Found || c.Verdict != Same {
			return err // not the login this provider made rows for
		}
		own, err = s.RevokeRecordedLocked(ctx, db, user, granted)
		return err
	})
	return own, err
}

// A refusal on a re-created database names the other accounts' rows on
// the name and revokes none of them (tenantdb touches only rows it
// granted): mysql.db keeps no grantor, so a DBA's backup account, another
// tenant's owner, a superuser's row and the rows of tenantdb resources
// that depend on the refusing one look the same. The refusing resource
// revokes its own account's rows only (RevokeOnRecreatedDatabase, and the
// grant's revokeFromRecreatedLocked); the others are for the user to
// judge. (The ledger narrows "own" further to the rows it recorded.)

// OthersOnRecreated lists, sorted, the accounts other than the admin and
// own that hold privilege rows on db's name when the database there is
// positively another one than recordedDB (found, Replaced). It revokes
// nothing.
func (s *Server) OthersOnRecreated(ctx context.Context, db ddl.DatabaseName, recordedDB Identity, own ddl.Username) ([]string, error) {
	if s.info.Flavor == ddl.FlavorPostgres || recordedDB == "" {
		return nil, nil
	}
	c, err := s.CheckIdentity(ctx, db, recordedDB)
	if err != nil || !c.Found || c.Verdict != Replaced {
		return nil, err
	}
	return s.AccountsOnName(ctx, db, own)
}
