// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// ClaimDatabase is CreateDatabase that returns the new database's identity
// and its settings as the server reports them. On MariaDB the claim mark is
// part of the CREATE DATABASE statement itself; on MySQL it is the mark
// procedure the next statement creates (ddl.ClaimPlan), under the same lock.
func (s *Server) ClaimDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) (*proof.DatabaseState, proof.Identity, error) {
	defer s.proof.InvalidateDatabase(db)
	mark := ddl.NewClaimMark()
	var st *proof.DatabaseState
	var id proof.Identity
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		if s.info.Flavor == ddl.FlavorPostgres {
			var err error
			if st, err = s.claimPostgres(ctx, db, cs, co); err != nil {
				return err
			}
			s.sess.MarkFresh(db)
			rctx, cancel := session.ReadBackContext(ctx) // the claim committed
			defer cancel()
			id, err = s.proof.IdentityOf(rctx, st)
			return err
		}
		plan := ddl.ClaimPlan(s.dialect(), db, cs, co, mark)
		var err error
		if f := session.Fault(session.FaultClaimLostBefore, db.String()); f != nil {
			err = session.NewStatementError(s.spec.Name, plan.Statements[0], f)
		} else {
			err = s.sess.Exec(ctx, plan)
		}
		if f := session.Fault(session.FaultClaimLostAfter, db.String()); err == nil && f != nil {
			err = session.NewStatementError(s.spec.Name, plan.Statements[0], f)
		}
		if session.IsDatabaseExists(err) {
			return ddl.ErrDatabasePreExists(s.spec.Name, s.spec.Engine, db)
		}
		if err != nil && session.Classify(err) == connect.ClassOutcomeUnknown && ddl.KeepsClaimMark(s.info) {
			// The connection was lost mid-claim. The mark says whose the
			// database is, if there is one: read it on a fresh connection
			// (the locked one is gone), waiting for a restarting server.
			ctx = session.Settling(session.Unlocked(ctx))
			found, rerr := s.proof.DatabaseDirect(ctx, db)
			switch {
			case rerr != nil:
				return err // still unknown: report the lost connection
			case found == nil:
				return fmt.Errorf("%s: the connection was lost while creating database %q, and it does not exist: "+
					"nothing was created; apply again", s.spec.Describe(), db)
			case found.Marker == "":
				// MySQL: also the connection lost between CREATE DATABASE
				// and the mark procedure.
				return ddl.ErrDatabaseClaimUnproven(s.spec.Name, db)
			case !s.proof.CarriesMark(found, mark):
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
		rctx, cancel := session.ReadBackContext(ctx)
		defer cancel()
		ctx = session.Settling(rctx)
		if st, err = s.proof.DatabaseDirect(ctx, db); err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("%s: database %q was created but cannot be read back", s.spec.Describe(), db)
		}
		id, err = s.proof.IdentityOf(ctx, st)
		return err
	})
	return st, id, err
}

// AlterOwnDatabase is AlterDatabase after checking, under the tenant's lock,
// that the database is still the recorded object.
func (s *Server) AlterOwnDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation, recorded proof.Identity) error {
	plan, err := s.dialect().AlterDatabase(db, cs, co)
	if err != nil {
		return err
	}
	defer s.proof.InvalidateDatabase(db)
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		c, err := s.proof.CheckIdentity(ctx, db, recorded)
		if err != nil {
			return err
		}
		if !c.Found {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		if c.Verdict = proof.Compare(recorded, c.Identity); c.Verdict != proof.Same {
			return s.proof.ErrNotRecordedDatabase(db, recorded, c)
		}
		return s.sess.Exec(ctx, plan)
	})
}

// MarkImportedDatabase gives a MariaDB or MySQL database that carries no
// claim mark (recorded at import, or by a version before marks) one, under
// the tenant's lock and only while what was recorded still reads exactly
// the same (MariaDB: its comment; MySQL: no mark, and the same server):
// the first apply after an import, never a plan. It returns the identity to
// record and the comment the mark replaced ("" when there was none).
func (s *Server) MarkImportedDatabase(ctx context.Context, db ddl.DatabaseName, recorded proof.Identity) (proof.Identity, string, error) {
	if !recorded.NeedsMark() {
		return recorded, "", nil
	}
	was, _ := recorded.Comment()
	defer s.proof.InvalidateDatabase(db)
	var id proof.Identity
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		c, err := s.proof.CheckIdentity(ctx, db, recorded)
		if err != nil {
			return err
		}
		if !c.Found {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		if c.Identity != recorded {
			c.Verdict = proof.Compare(recorded, c.Identity)
			return s.proof.ErrNotRecordedDatabase(db, recorded, c)
		}
		if err := s.sess.Exec(ctx, ddl.MarkDatabase(s.info, db, ddl.NewClaimMark())); err != nil {
			return err
		}
		st, err := s.proof.DatabaseDirect(ctx, db)
		if err != nil {
			return err
		}
		if st == nil {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		id, err = s.proof.IdentityOf(ctx, st)
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
func (s *Server) DropOwnDatabase(ctx context.Context, db ddl.DatabaseName, recorded proof.Identity) (DropOutcome, proof.Check, error) {
	defer s.proof.InvalidateDatabase(db)
	outcome := Dropped
	var c proof.Check
	ctx = proof.Dropping(ctx) // an invalid database is dropped like any other: that finishes it
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		var err error
		if c, err = s.proof.CheckIdentity(ctx, db, recorded); err != nil {
			return err
		}
		if !c.Found {
			outcome = AlreadyGone
			return nil
		}
		if c.Verdict = proof.Compare(recorded, c.Identity); c.Verdict != proof.Same {
			outcome = NotOurs
			return nil
		}
		return s.dropLocked(ctx, db)
	})
	return outcome, c, err
}
