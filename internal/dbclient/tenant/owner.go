// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Login identities, like database identities (see Identity), name one
// account object rather than a name:
//
//	pg:<system identifier>:<role OID>   PostgreSQL.
//	mariadb-login:<password_last_changed> MariaDB keeps no comment for an
//	                                       account; the time its password was
//	                                       last set (seconds) tells a re-created
//	                                       account apart. tenantdb records it
//	                                       again after each rotation it makes;
//	                                       a password set out of band (the login
//	                                       itself may) makes it Unproven: it is
//	                                       then neither altered nor dropped, but
//	                                       destroy revokes its privileges.
//	mysql-login:<server_uuid>:<mark>      MySQL 8.0.21+: a claim mark kept as a
//	                                       JSON ATTRIBUTE by CREATE USER itself
//	                                       (mark empty before 8.0.21).
//	mysql-login:<server_uuid>:@<unix time> MySQL 8.0.21+, a principal tenantdb
//	                                       did not create (a grantee): no mark,
//	                                       because tenantdb never writes to it;
//	                                       the time its password was last set
//	                                       tells a re-created account apart, as
//	                                       on MariaDB, and a password the login
//	                                       set itself makes it Unproven (never
//	                                       granted to; destroy revokes).
//	                                       Earlier versions recorded it as
//	                                       mysql-login:<server_uuid>: (the server
//	                                       only): read as Same, then recorded
//	                                       again in this form.

// OwnerState is what the server says about a tenant owner login.
type OwnerState struct {
	Identity   proof.Identity
	Privileges []ddl.Privilege // MySQL: what it holds on the database; PostgreSQL: ALL when it owns it
	OwnsDB     bool            // PostgreSQL: it is the database's owner
	// HalfMade (PostgreSQL, MySQL 8.0.21+) are the logins a username
	// rotation from this login made for this database and never finished,
	// because Terraform was killed after their CREATE and before they took
	// the database (MySQL: before the old login was dropped); their marks
	// prove it. They are this resource's to drop.
	HalfMade []proof.HalfMadeLogin
	// DatabaseInvalid: PostgreSQL marked the database invalid
	// (invalid_database.go); only the login was read.
	DatabaseInvalid bool
	// Hint (MySQL 8.0.21+): Identity is the login's ATTRIBUTE, which the
	// ledger does not back (a login an earlier version made): compare it
	// with HintedVerdict.
	Hint bool
	// LockedOut (PostgreSQL): the login may not log in (NOLOGIN), as an
	// offboarding's first statement leaves it; an owner the configuration
	// still declares is let in again by SyncOwnerPrivileges.
	LockedOut bool
	// ConnectionLimit is the login's own connection limit; nil for none
	// (ddl.ConnectionLimitFromServer). Read from the accounts snapshot.
	ConnectionLimit *int64
}

// Owner reads a login and what it holds on db; nil when the login is gone.
// It is a refresh read: it serves from the snapshots (catalog.go,
// catalog_accounts.go).
func (s *Server) Owner(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (*OwnerState, error) {
	id, hint, found, err := s.proof.LoginIdentityHint(ctx, user, true)
	if err != nil || !found {
		return nil, err
	}
	st := &OwnerState{Identity: id, Hint: hint}
	if n, ok := ddl.ConnectionLimitFromServer(s.info, s.proof.SnapshotConnectionLimit(user)); ok {
		st.ConnectionLimit = &n
	}
	if s.info.Flavor == ddl.FlavorPostgres {
		st.LockedOut = s.proof.SnapshotLockedOut(user)
		d, err := s.proof.Database(ctx, db)
		if err != nil {
			return nil, err
		}
		if d != nil && d.Invalid {
			// No one can connect into it (invalid_database.go): what
			// the login holds there is not read.
			st.DatabaseInvalid = true
			return st, nil
		}
		if d != nil && d.Owner == user.String() {
			st.OwnsDB = true
			st.Privileges = []ddl.Privilege{ddl.AllPrivileges}
			st.HalfMade, err = s.proof.HalfMadeRotations(ctx, d, db, proof.RoleOID(id))
		}
		return st, err
	}
	if st.Privileges, err = s.proof.RefreshPrivileges(ctx, db, user); err != nil {
		return nil, err
	}
	switch {
	case ddl.StoresLoginMark(s.info):
		sid, err := s.proof.ServerID(ctx)
		if err != nil {
			return nil, err
		}
		st.HalfMade, err = s.proof.MySQLHalfMadeRotations(ctx, db, user, proof.MySQLClaimOf(id, sid))
		return st, err
	case s.proof.UsesLedger():
		// MariaDB: the login's claim is its proven ledger row's.
		st.HalfMade, err = s.proof.MySQLHalfMadeRotations(ctx, db, user, s.proof.SnapshotClaim(user))
		return st, err
	}
	return st, nil
}

// checkOwnerConflict refuses a second owner. PostgreSQL: the database is
// owned by someone other than the admin or its keeper. MySQL/MariaDB have no database
// owner: an owner is an account other than the admin that holds privileges
// on it and carries its owner mark (owner_mark_limit.go); a grantee holding
// ALL PRIVILEGES is not one.
func (s *Server) checkOwnerConflict(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	if s.info.Flavor == ddl.FlavorPostgres {
		d, err := s.proof.DatabaseDirect(ctx, db)
		if err != nil {
			return err
		}
		if d == nil {
			return fmt.Errorf("%s: database %q does not exist: create it first (tenantdb_tenant_database)", s.spec.Describe(), db)
		}
		if d.Owner == s.spec.Username || d.Owner == user.String() || ddl.IsKeeperOf(db, d.Owner) {
			return nil // the admin, or db's keeper, holds a retained database for its next owner
		}
		if rotated, err := s.proof.FinishedRotationOwner(ctx, db, d.Owner); err != nil || rotated != nil {
			if err == nil {
				err = ddl.ErrOwnerConflictRotated(s.spec.Name, db, *rotated)
			}
			return err
		}
		return ddl.ErrOwnerConflict(s.spec.Name, db, d.Owner, "PostgreSQL databases have exactly one owner.")
	}
	owners, err := s.markedOwnersOn(ctx, db, user)
	if err != nil || len(owners) == 0 {
		return err
	}
	return ddl.ErrOwnerConflictMySQL(s.spec.Name, db, owners[0])
}

// markedOwnersOn lists the accounts other than the admin and except that
// hold privilege rows on db's name and carry db's owner mark (MySQL/MariaDB):
// the mark, not what they hold, makes an owner (a grantee of ALL
// PRIVILEGES is none; owner_mark_limit.go).
func (s *Server) markedOwnersOn(ctx context.Context, db ddl.DatabaseName, except ddl.Username) ([]ddl.Username, error) {
	others, err := s.proof.AccountsOnName(ctx, db, except)
	if err != nil {
		return nil, err
	}
	var out []ddl.Username
	for _, o := range others {
		u, err := ddl.ParseAccountKey(s.spec.Engine, o)
		if err != nil {
			continue // not a name tenantdb could manage: not an owner of ours
		}
		ownsDB, _, err := s.proof.OwnerMarkOn(ctx, db, u)
		if err != nil {
			return nil, err
		}
		if ownsDB {
			out = append(out, u)
		}
	}
	return out, nil
}

// ClaimOwner creates the owner login (a claim: CREATE USER/ROLE without IF
// NOT EXISTS), grants it privs on db and, on PostgreSQL, makes it the
// database's owner. An existing login is refused (PreExistingOwnerUser) and
// never touched; a failure after the login exists drops the login this call
// made. It returns the new login's identity. A connection limit other
// than none is set on the new login by the same plan (in its transaction
// on PostgreSQL; undone with the create on MySQL/MariaDB).
func (s *Server) ClaimOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password, privs ddl.PrivilegeSet, limit ddl.ConnectionLimit) (proof.Identity, error) {
	if err := ddl.CheckAccountHost(s.info, user.AccountHost()); err != nil {
		return "", err
	}
	defer s.proof.InvalidateDatabase(db)
	var id proof.Identity
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		if err := s.checkOwnerConflict(ctx, db, user); err != nil {
			return err
		}
		mark, err := s.proof.OwnerMark(ctx, db, "")
		if err != nil {
			return err
		}
		claim := ddl.NewClaimMark()
		create := ddl.WithConnectionLimit(s.info, ddl.CreateMarkedOwner(s.dialect(), db, user, pw, privs, claim), user, limit)
		plan, err := s.withAdminDefaultsHandedTo(ctx, db, user, create)
		if err != nil {
			return err
		}
		if plan, err = s.withKeeperHandedTo(ctx, db, user, plan); err != nil {
			return err
		}
		// PostgreSQL: one transaction, so a failure leaves no login.
		plan = ddl.MarkOwnerPlan(s.dialect(), plan, user, mark)
		// MySQL: a login that exists is judged before anything is written
		// (finished when the ledger proves it this resource's half-made
		// work, refused otherwise, no statement sent); then the ledger's
		// row first (write-ahead), so an apply killed at any point after
		// the CREATE USER leaves a claim the next apply can prove its own
		// (ledger_mysql.go).
		if exists, err := s.proof.LoginExistsBeforeClaim(ctx, user); err != nil || exists {
			if err == nil {
				// A definer a destroy kept locked is named as such
				// (definer_kept.go), not as any finished owner.
				err = s.proof.DefinerNameRefusal(ctx, db, user)
			}
			if err == nil {
				err = s.proof.FinishHalfMade(ctx, user, mark, "", pw, plan)
			}
			if err == nil {
				id, err = s.readNewIdentity(session.Settling(ctx), user)
			}
			return err
		}
		if err := s.proof.LedgerOpen(ctx, claim, user, db, "", privs); err != nil {
			return err
		}
		err = session.Fault(faultOwnerClaimLostBefore, user.String())
		if err != nil {
			err = session.NewStatementError(s.spec.Name, plan.Statements[0], err)
		} else {
			err = s.sess.Exec(ctx, plan)
		}
		if f := session.Fault(faultOwnerClaimLostAfter, user.String()); err == nil && f != nil {
			err = session.NewStatementError(s.spec.Name, plan.Statements[0], f)
		}
		if session.IsDefinerNameTaken(err) {
			// MySQL's 4006: a definer kept locked, or objects naming a
			// dropped login (definer_kept.go); an unlocked login goes on
			// as any existing one.
			if refusal := s.proof.DefinerNameRefusal(ctx, db, user); refusal != nil {
				return refusal
			}
		}
		if session.IsUserExists(err) || session.IsDefinerNameTaken(err) {
			// This claim made nothing. An earlier apply of this resource,
			// killed after its CREATE, may have left the login: finish it
			// when its mark proves it ours.
			if err := s.proof.LedgerSet(ctx, claim, ddl.LedgerVoid); err != nil {
				return err
			}
			if err = s.proof.FinishHalfMade(ctx, user, mark, "", pw, plan); err != nil {
				return err
			}
			claim = ddl.ClaimMark{} // finishHalfMade closed the adopted claim's row
		}
		if err != nil && session.Classify(err) == connect.ClassOutcomeUnknown {
			// The connection was lost during the CREATE: settle whose the
			// login is, then finish the plan (or undo it) on a new one.
			ours, serr := s.settleOwnerClaim(ctx, db, user, pw)
			if !ours {
				return serr
			}
			ctx = session.Unlocked(ctx)
			if err = s.sess.Exec(ctx, plan.Tail(1)); err != nil {
				_ = s.sess.Exec(context.WithoutCancel(ctx), ddl.Plan{Statements: plan.Undo})
				return err
			}
		}
		if err != nil {
			return err
		}
		if err := s.proof.LedgerSet(session.Settling(ctx), claim, ddl.LedgerDone); err != nil {
			return err
		}
		id, err = s.readNewIdentity(session.Settling(ctx), user)
		return err
	})
	return id, err
}

// errLoginNotOurs explains a login whose identity changed.
func (s *Server) errLoginNotOurs(user ddl.Username, c proof.Check) error {
	if !c.Found {
		return fmt.Errorf("%s: login %q no longer exists (dropped outside Terraform): apply again with refresh (the default) "+
			"to create it again", s.spec.Describe(), user)
	}
	if c.Verdict == proof.Unproven {
		return &ddl.Error{Reason: ddl.IdentityMismatch, Object: fmt.Sprintf("login %q on server %q", user, s.spec.Name),
			Why: proof.LoginUnprovenWhy + " Nothing was altered or dropped.",
			Fix: "Nothing is needed for offboarding: destroy still revokes its privileges on the database. To manage this " +
				"login's password and privileges again, remove this resource from state (terraform state rm) and adopt " +
				"the login with terraform import if it really is the tenant's owner; or, if it is not, drop it by hand."}
	}
	return &ddl.Error{Reason: ddl.IdentityMismatch, Object: fmt.Sprintf("login %q on server %q", user, s.spec.Name),
		Why: "A login of that name exists, but it is not the one this resource created or imported (dropped and " +
			"re-created outside Terraform, or the address leads to another server). Nothing was altered or dropped.",
		Fix: "Remove this resource from state (terraform state rm) and adopt the login with terraform import if it " +
			"really is the tenant's owner."}
}

// SetOwnerPassword changes the owner's password after checking it is still
// the recorded login, and returns the identity to record next (MariaDB's
// changes with the password).
func (s *Server) SetOwnerPassword(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password, retainCurrent bool, recorded proof.Identity) (proof.Identity, error) {
	var id proof.Identity
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		_, err := s.requireOwnLogin(ctx, db, user, recorded)
		if err != nil {
			return err
		}
		if err := s.requireAdministers(ctx, user); err != nil {
			return err
		}
		if err := s.sess.Exec(ctx, s.dialect().SetPassword(user, pw, retainCurrent)); err != nil {
			if s.info.Flavor == ddl.FlavorMariaDB && session.CodeOf(err) == "mysql:1396" {
				return s.sess.AlterUserPolicyError(ctx, user.String(), err)
			}
			return err
		}
		// The configuration declares a login the tenant logs in with: one
		// imported after a destroy kept it as a definer is unlocked.
		if err := s.proof.UnlockIfLocked(ctx, user); err != nil {
			return err
		}
		rctx, cancel := session.ReadBackContext(ctx) // the password changed: record it
		defer cancel()
		id, _, err = s.proof.LoginIdentity(rctx, user)
		return err
	})
	return id, err
}

// DiscardOldOwnerPassword ends a retained password (MySQL 8.0.14+; nothing elsewhere).
func (s *Server) DiscardOldOwnerPassword(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	p := s.dialect().DiscardOldPassword(user)
	if p.Empty() {
		return nil
	}
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error { return s.sess.Exec(ctx, p) })
}

// checkOwnerLogin is CheckLogin for the owner login of db. A MariaDB login
// whose password was set since it was recorded (Unproven: the login itself
// may do that, and so may a killed rotation of this resource) is the
// recorded one when it carries db's owner mark (OwnerLimitMark): only the
// owner's CREATE USER sets it, the login cannot set its own limits, and a
// login dropped and re-created by hand has none.
func (s *Server) checkOwnerLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity) (proof.Check, error) {
	c, err := s.proof.CheckLogin(ctx, user, recorded)
	if err != nil || !c.Found || c.Verdict != proof.Unproven {
		return c, err
	}
	proven, err := s.OwnerMarkProves(ctx, db, user)
	if proven {
		c.Verdict = proof.Same
	}
	return c, err
}

// OwnerMarkProves reports whether user (MariaDB) carries db's owner mark:
// see checkOwnerLogin.
func (s *Server) OwnerMarkProves(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (bool, error) {
	if s.info.Flavor != ddl.FlavorMariaDB {
		return false, nil
	}
	owns, _, err := s.proof.OwnerMarkOn(ctx, db, user)
	return owns, err
}

// requireOwnLogin reads user and refuses unless it is the recorded login
// (checkOwnerLogin): gone, re-created by someone else, or on another
// server is not this resource's to alter.
func (s *Server) requireOwnLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity) (proof.Check, error) {
	c, err := s.checkOwnerLogin(ctx, db, user, recorded)
	if err != nil {
		return c, err
	}
	if !c.Found || c.Verdict != proof.Same {
		return c, s.errLoginNotOurs(user, c)
	}
	return c, nil
}

// SyncOwnerPrivileges is SyncPrivileges for the owner, after checking it is
// still the recorded login. PostgreSQL owners hold everything by owning the
// database: there it re-asserts ownership when it was lost.
//
// letIn (a login this resource created): one an offboarding locked out
// (NOLOGIN) before it was interrupted logs in again. An imported owner's
// NOLOGIN is never changed.
func (s *Server) SyncOwnerPrivileges(ctx context.Context, db ddl.DatabaseName, user ddl.Username, privs ddl.PrivilegeSet, recorded proof.Identity, letIn bool) error {
	defer s.proof.InvalidateDatabase(db)
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		c, err := s.requireOwnLogin(ctx, db, user, recorded)
		if err != nil {
			return err
		}
		if s.info.Flavor == ddl.FlavorPostgres {
			// A rotation away from this login, killed halfway, while the
			// configuration went back to it: undo what the rotation took.
			if err := s.proof.UndoHalfMadeRotation(ctx, db, user, c.Identity); err != nil {
				return err
			}
			if err := s.checkOwnerConflict(ctx, db, user); err != nil {
				return err
			}
			if err := s.proof.RequireMarkedDatabase(ctx, db, user); err != nil {
				return err
			}
			if err := s.requireAdministers(ctx, user); err != nil {
				return err
			}
			plan, err := s.withKeeperHandedTo(ctx, db, user, ddl.MakeDatabaseOwner(db, user))
			if err != nil {
				return err
			}
			// An offboarding interrupted past its lock-out, its owner
			// declared again: the login logs in again.
			if locked, err := s.lockedOut(ctx, user); err != nil {
				return err
			} else if locked && letIn {
				plan = ddl.LetLoginIn(user).Append(plan)
			}
			return s.sess.Exec(ctx, ddl.InOneTransaction(s.dialect(), plan))
		}
		return s.syncPrivileges(ctx, db, user, privs, letIn)
	})
}

// OwnerDrop says what an owner's drop did.
type OwnerDrop struct {
	Outcome DropOutcome
	Check   proof.Check      // what was found: why (NotOurs, RevokedOnly)
	Own     proof.RevokedOwn // RevokedOnly (MySQL family): what was revoked, and what was left
}

// DropOwner drops a login this resource created, if it is still the
// recorded one. On PostgreSQL what it owns in db (the database itself, its
// tables) is first reassigned to the admin, so no table is lost with it.
// A MySQL login that defines views, routines, triggers or events is kept,
// revoked and locked, with a *DefinerKept error (definer_kept.go).
// granted is what state says tenantdb granted the login on db: the
// stand-in for the ledger's record where it has none (ledger_grants.go).
func (s *Server) DropOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity, granted []ddl.Privilege) (OwnerDrop, error) {
	return s.dropOwner(ctx, db, user, recorded, granted, true, false)
}

// DropOldLogin is DropOwner for a rotated-out login retried by a later
// apply: a MySQL login that defines objects is kept and locked, not
// revoked, so the tenant's definer-rights objects keep working until they
// are re-created as the new owner.
func (s *Server) DropOldLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity, granted []ddl.Privilege) (OwnerDrop, error) {
	return s.dropOwner(ctx, db, user, recorded, granted, false, false)
}

// RevokeImportedOwner is the destroy of an owner this resource imported
// (user_created = false) on MySQL/MariaDB: the login is never dropped, and
// only what tenantdb granted it on the tenant database (the ledger's
// record: what an apply of this resource granted since the import) is
// revoked; what it held when it was imported was not tenantdb's to give,
// and is named, never touched (tenantdb touches only rows it granted). As
// for a created owner, a login not provably the recorded one is treated
// the same (revoking what tenantdb granted is always safe); one on another
// server, or gone, is left alone. The provider does not call it on
// PostgreSQL (the imported owner keeps owning the database).
func (s *Server) RevokeImportedOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity) (OwnerDrop, error) {
	return s.dropOwner(ctx, db, user, recorded, nil, true, true)
}

// dropOwner drops user, or with keepLogin (an imported owner, MySQL/MariaDB)
// only revokes what tenantdb granted it on db.
func (s *Server) dropOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity, granted []ddl.Privilege, offboarding, keepLogin bool) (OwnerDrop, error) {
	defer s.proof.InvalidateDatabase(db)
	out := OwnerDrop{Outcome: Dropped}
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		var err error
		if out.Check, err = s.checkOwnerLogin(ctx, db, user, recorded); err != nil {
			return err
		}
		c := out.Check
		switch {
		case !c.Found:
			out.Outcome = AlreadyGone
			return nil
		case (keepLogin || c.Verdict != proof.Same) && c.Verdict != proof.OtherServer && s.info.Flavor != ddl.FlavorPostgres:
			// Not provably this resource's login (on MariaDB, any login may
			// change its own password), or imported, so it is not dropped;
			// but what tenantdb granted it on the database is revoked:
			// offboarding never depends on what the tenant may change.
			out.Outcome = RevokedOnly
			out.Own, err = s.proof.RevokeRecordedLocked(ctx, db, user, granted)
			return err
		case c.Verdict != proof.Same:
			out.Outcome = NotOurs
			return nil
		}
		if err := session.Fault(session.FaultDropOldOwner, user.String()); err != nil {
			return err
		}
		if s.info.Flavor == ddl.FlavorPostgres {
			return s.dropPostgresLogin(ctx, db, user, offboarding)
		}
		// MySQL keeps a login that defines objects: locked, and revoked
		// when offboarding.
		return s.proof.KeepDefiner(ctx, db, user, offboarding, granted, s.proof.ExecLoginDrop(ctx, user, s.dialect().DropLogin(db, user)))
	})
	return out, err
}

func (s *Server) dropOwnerLocked(ctx context.Context, db ddl.DatabaseName, user ddl.Username, c proof.Check) error {
	if !c.Found {
		return nil
	}
	if c.Verdict != proof.Same {
		return s.errLoginNotOurs(user, c)
	}
	if err := session.Fault(session.FaultDropOldOwner, user.String()); err != nil {
		return err
	}
	if s.info.Flavor == ddl.FlavorPostgres {
		return s.dropPostgresLogin(ctx, db, user, false)
	}
	// A rotation's old login MySQL keeps as a definer is only locked.
	return s.proof.KeepDefiner(ctx, db, user, false, nil, s.proof.ExecLoginDrop(ctx, user, s.dialect().DropLogin(db, user)))
}

// requireAdministers refuses (MissingAdminRights, naming the fix) when
// PostgreSQL 16+ would deny the admin an ALTER ROLE, GRANT role or REASSIGN
// on user because the admin does not administer it: a read before any
// statement, so a refusal changes nothing. A missing role passes (the
// caller's own checks report it), and so does every role on other servers.
func (s *Server) requireAdministers(ctx context.Context, user ddl.Username) error {
	if !ddl.AdministersRolesItCreates(s.info) {
		return nil
	}
	var administers bool
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		return db.QueryRowContext(ctx, `SELECT pg_has_role(current_user, oid, 'MEMBER WITH ADMIN OPTION') FROM pg_roles WHERE rolname = $1`,
			user.String()).Scan(&administers)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return s.sess.ReadError("read whether the admin administers login "+user.String(), err)
	}
	if !administers {
		return ddl.ErrRoleNotAdministered(s.spec.Name, ddl.AdminAccount{User: s.spec.Username}, user, s.info.Version)
	}
	return nil
}
