// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// ClaimDatabase is CreateDatabase that returns the new database's identity
// and its settings as the server reports them. On MariaDB the claim mark is
// part of the CREATE DATABASE statement itself; on MySQL it is the mark
// procedure the next statement creates (ddl.ClaimPlan), under the same lock.
func (s *Server) ClaimDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) (*DatabaseState, Identity, error) {
	defer s.proof.invalidateDatabase(db)
	mark := ddl.NewClaimMark()
	var st *DatabaseState
	var id Identity
	err := s.proof.withLock(ctx, db, func(ctx context.Context) error {
		if s.info.Flavor == ddl.FlavorPostgres {
			var err error
			if st, err = s.claimPostgres(ctx, db, cs, co); err != nil {
				return err
			}
			s.sess.markFresh(db)
			rctx, cancel := readBackContext(ctx) // the claim committed
			defer cancel()
			id, err = s.proof.identityOf(rctx, st)
			return err
		}
		plan := ddl.ClaimPlan(s.dialect(), db, cs, co, mark)
		var err error
		if f := fault(faultClaimLostBefore, db.String()); f != nil {
			err = newStatementError(s.spec.Name, plan.Statements[0], f)
		} else {
			err = s.sess.exec(ctx, plan)
		}
		if f := fault(faultClaimLostAfter, db.String()); err == nil && f != nil {
			err = newStatementError(s.spec.Name, plan.Statements[0], f)
		}
		if isDatabaseExists(err) {
			return ddl.ErrDatabasePreExists(s.spec.Name, s.spec.Engine, db)
		}
		if err != nil && classify(err) == classOutcomeUnknown && ddl.KeepsClaimMark(s.info) {
			// The connection was lost mid-claim. The mark says whose the
			// database is, if there is one: read it on a fresh connection
			// (the locked one is gone), waiting for a restarting server.
			ctx = settling(unlocked(ctx))
			found, rerr := s.proof.databaseDirect(ctx, db)
			switch {
			case rerr != nil:
				return err // still unknown: report the lost connection
			case found == nil:
				return fmt.Errorf("%s: the connection was lost while creating database %q, and it does not exist: "+
					"nothing was created; apply again", s.spec.describe(), db)
			case found.Marker == "":
				// MySQL: also the connection lost between CREATE DATABASE
				// and the mark procedure.
				return ddl.ErrDatabaseClaimUnproven(s.spec.Name, db)
			case !s.proof.carriesMark(found, mark):
				return ddl.ErrDatabasePreExists(s.spec.Name, s.spec.Engine, db)
			}
			err = nil // ours: the claim took effect before the connection was lost
		}
		if err != nil {
			return err
		}
		// The database is ours: wait for a restarting server to read it,
		// and read it also when the operation's deadline passed after the
		// claim committed (readBackContext), so state records it.
		rctx, cancel := readBackContext(ctx)
		defer cancel()
		ctx = settling(rctx)
		if st, err = s.proof.databaseDirect(ctx, db); err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("%s: database %q was created but cannot be read back", s.spec.describe(), db)
		}
		id, err = s.proof.identityOf(ctx, st)
		return err
	})
	return st, id, err
}

// AlterOwnDatabase is AlterDatabase after checking, under the tenant's lock,
// that the database is still the recorded object.
func (s *Server) AlterOwnDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation, recorded Identity) error {
	plan, err := s.dialect().AlterDatabase(db, cs, co)
	if err != nil {
		return err
	}
	defer s.proof.invalidateDatabase(db)
	return s.proof.withLock(ctx, db, func(ctx context.Context) error {
		c, err := s.proof.CheckIdentity(ctx, db, recorded)
		if err != nil {
			return err
		}
		if !c.Found {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		if c.Verdict = Compare(recorded, c.Identity); c.Verdict != Same {
			return s.proof.errNotRecordedDatabase(db, recorded, c)
		}
		return s.sess.exec(ctx, plan)
	})
}

// MarkImportedDatabase gives a MariaDB or MySQL database that carries no
// claim mark (recorded at import, or by a version before marks) one, under
// the tenant's lock and only while what was recorded still reads exactly
// the same (MariaDB: its comment; MySQL: no mark, and the same server):
// the first apply after an import, never a plan. It returns the identity to
// record and the comment the mark replaced ("" when there was none).
func (s *Server) MarkImportedDatabase(ctx context.Context, db ddl.DatabaseName, recorded Identity) (Identity, string, error) {
	if !recorded.NeedsMark() {
		return recorded, "", nil
	}
	was, _ := recorded.Comment()
	defer s.proof.invalidateDatabase(db)
	var id Identity
	err := s.proof.withLock(ctx, db, func(ctx context.Context) error {
		c, err := s.proof.CheckIdentity(ctx, db, recorded)
		if err != nil {
			return err
		}
		if !c.Found {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		if c.Identity != recorded {
			c.Verdict = Compare(recorded, c.Identity)
			return s.proof.errNotRecordedDatabase(db, recorded, c)
		}
		if err := s.sess.exec(ctx, ddl.MarkDatabase(s.info, db, ddl.NewClaimMark())); err != nil {
			return err
		}
		st, err := s.proof.databaseDirect(ctx, db)
		if err != nil {
			return err
		}
		if st == nil {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		id, err = s.proof.identityOf(ctx, st)
		return err
	})
	return id, was, err
}

// DropOutcome says what DropOwnDatabase did.
type DropOutcome int

const (
	Dropped     DropOutcome = iota
	AlreadyGone             // nothing to drop
	NotOurs                 // another object holds the name: nothing dropped
	// RevokedOnly: the object is not provably the recorded one, so it was
	// not dropped, but what this provider granted on the database was
	// revoked from it (revoking is always safe).
	RevokedOnly
)

// DropOwnDatabase drops db only if it is still the recorded object; the
// check and the drop run under the tenant's lock, right before DROP. On
// PostgreSQL it refuses DatabaseInUse while sessions it did not open are
// connected. The Check says what was found when the outcome is NotOurs.
func (s *Server) DropOwnDatabase(ctx context.Context, db ddl.DatabaseName, recorded Identity) (DropOutcome, Check, error) {
	defer s.proof.invalidateDatabase(db)
	outcome := Dropped
	var c Check
	ctx = dropping(ctx) // an invalid database is dropped like any other: that finishes it
	err := s.proof.withLock(ctx, db, func(ctx context.Context) error {
		var err error
		if c, err = s.proof.CheckIdentity(ctx, db, recorded); err != nil {
			return err
		}
		if !c.Found {
			outcome = AlreadyGone
			return nil
		}
		if c.Verdict = Compare(recorded, c.Identity); c.Verdict != Same {
			outcome = NotOurs
			return nil
		}
		return s.dropLocked(ctx, db)
	})
	return outcome, c, err
}
