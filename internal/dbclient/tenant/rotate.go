// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// RotateOwner is a username change, create-before-drop, in named steps:
//
//  1. checkOldLogin: the old login hands over only while it is still the
//     recorded one;
//  2. prepareRotation: everything that could refuse is read and checked
//     before any statement runs (the admin's rights over the old login, the
//     old login's default privileges of every kind);
//  3. the handover, one plan (create the new login, grant it, set its
//     connection limit; PostgreSQL: take the database and what the old
//     login owns in it, carry its default privileges) whose undo returns everything to the old login
//     and drops the new one: a failure at any step leaves a working tenant;
//  4. readNewIdentity;
//  5. dropOldLogin, only when this resource created it: a failure there is
//     dropErr, not err (both logins exist; the caller keeps the old one as
//     pending and retries).
func (s *Server) RotateOwner(ctx context.Context, db ddl.DatabaseName, old, new ddl.Username, pw ddl.Password,
	privs ddl.PrivilegeSet, limit ddl.ConnectionLimit, recordedOld proof.Identity, dropOld bool) (newID proof.Identity, dropErr, err error) {
	if err := ddl.CheckAccountHost(s.info, new.AccountHost()); err != nil {
		return "", nil, err
	}
	defer s.proof.InvalidateDatabase(db)
	err = s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		oldCheck, err := s.checkOwnerLogin(ctx, db, old, recordedOld)
		if err != nil {
			return err
		}
		takeOver := oldCheck.Found && oldCheck.Verdict == proof.Same
		from := ""
		if takeOver {
			if from, err = s.proof.RotatedFromLogin(ctx, db, old, oldCheck.Identity); err != nil {
				return err
			}
			// The old login hands on only the database it was made to own.
			if err := s.proof.RequireMarkedDatabase(ctx, db, old); err != nil {
				return err
			}
		}
		rotatedFrom, err := s.proof.RotatedFromLogin(ctx, db, old, recordedOld)
		if err != nil {
			return err
		}
		mark, err := s.proof.OwnerMark(ctx, db, from)
		if err != nil {
			return err
		}
		claim := ddl.NewClaimMark()
		handover, err := s.prepareRotation(ctx, db, old, new, pw, privs, takeOver, claim)
		if err != nil {
			return err
		}
		// The new login has the limit before the old one is dropped (a
		// host change is a rotation too: each host's account is a login).
		handover = ddl.WithConnectionLimit(s.info, handover, new, limit)
		// PostgreSQL: the handover is one transaction, so a failure (a
		// lock, a timeout, a kill) leaves the old login owning everything.
		handover = ddl.MarkOwnerPlan(s.dialect(), handover, new, mark)
		// MySQL: a new login that exists is judged before anything is
		// written; then the ledger's row first (write-ahead,
		// ledger_mysql.go).
		exists, err := s.proof.LoginExistsBeforeClaim(ctx, new)
		if err != nil {
			return err
		}
		if exists {
			// A kept definer (one this resource rotated out: see
			// backToPending) is named as such (definer_kept.go).
			if refusal := s.proof.DefinerNameRefusal(ctx, db, new); refusal != nil {
				return refusal
			}
			if err := s.proof.FinishHalfMade(ctx, new, mark, rotatedFrom, pw, handover); err != nil {
				return err
			}
			claim = ddl.ClaimMark{} // finishHalfMade closed the adopted claim's row
		} else if err := s.proof.LedgerOpen(ctx, claim, new, db, from, privs); err != nil {
			return err
		} else if err := s.sess.Exec(ctx, handover); err != nil {
			if session.IsDefinerNameTaken(err) {
				// MySQL's 4006 (definer_kept.go): a kept definer or orphan
				// objects naming the login.
				if refusal := s.proof.DefinerNameRefusal(ctx, db, new); refusal != nil {
					return refusal
				}
			} else if !session.IsUserExists(err) {
				return err
			}
			// This claim made nothing. An earlier apply of this rotation,
			// killed after its CREATE, may have left the new login: finish
			// it when its mark proves it ours.
			if err := s.proof.LedgerSet(ctx, claim, ddl.LedgerVoid); err != nil {
				return err
			}
			if err := s.proof.FinishHalfMade(ctx, new, mark, rotatedFrom, pw, handover); err != nil {
				return err
			}
			claim = ddl.ClaimMark{} // finishHalfMade closed the adopted claim's row
		}
		if err := s.proof.LedgerSet(ctx, claim, ddl.LedgerDone); err != nil {
			return err
		}
		if newID, err = s.readNewIdentity(ctx, new); err != nil {
			return err
		}
		// A login that is gone, or is no longer the recorded one (dropped
		// and re-created by someone else), is not this resource's to drop.
		if dropOld && takeOver {
			dropErr = s.dropOwnerLocked(ctx, db, old, oldCheck)
		}
		return nil
	})
	return newID, dropErr, err
}

// prepareRotation reads and checks, before any statement, what the
// handover needs, and renders it.
func (s *Server) prepareRotation(ctx context.Context, db ddl.DatabaseName, old, new ddl.Username, pw ddl.Password,
	privs ddl.PrivilegeSet, takeOver bool, claim ddl.ClaimMark) (ddl.Plan, error) {
	var defaults ddl.DefaultACLs
	var oldOwns ddl.OwnedContainers
	if takeOver && s.info.Flavor == ddl.FlavorPostgres {
		// REASSIGN OWNED needs the old owner's privileges.
		if err := s.requireAdministers(ctx, old); err != nil {
			return ddl.Plan{}, err
		}
		var err error
		if defaults, err = s.proof.DefaultACLs(ctx, db, old.String()); err != nil {
			return ddl.Plan{}, err
		}
		if oldOwns, err = s.ownedSchemas(ctx, db, old.String(), new.String()); err != nil {
			return ddl.Plan{}, err
		}
	}
	handover, _ := ddl.RotateOwner(s.dialect(), db, old, new, pw, privs, claim, takeOver, defaults, oldOwns)
	return handover, nil
}

// readNewIdentity reads the identity of a login just created, also when
// the operation's deadline passed after the create committed
// (readBackContext).
func (s *Server) readNewIdentity(ctx context.Context, user ddl.Username) (proof.Identity, error) {
	ctx, cancel := session.ReadBackContext(ctx)
	defer cancel()
	id, found, err := s.proof.LoginIdentity(ctx, user)
	if err == nil && !found {
		err = fmt.Errorf("%s: login %q was created but cannot be read back", s.spec.Describe(), user)
	}
	return id, err
}

// withAdminDefaultsHandedTo appends to an owner's create plan the handover
// of the admin's default privileges in db (PostgreSQL): a tenant grant made
// before the owner existed gave its default privileges FOR ROLE the admin,
// the database's owner then; they follow the database to its new owner,
// and the admin keeps none of them. Only those move: per-schema table
// entries of roles holding CONNECT on db (what a grant makes); what the
// admin set for anyone else stays the admin's. Read and rendered before
// any statement runs.
func (s *Server) withAdminDefaultsHandedTo(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, plan ddl.Plan) (ddl.Plan, error) {
	if s.info.Flavor != ddl.FlavorPostgres || s.sess.IsFresh(db) {
		return plan, nil
	}
	admin, err := ddl.NewRoleName(s.spec.Username)
	if err != nil {
		return ddl.Plan{}, err
	}
	acls, err := s.proof.DefaultACLs(ctx, db, s.spec.Username)
	if err != nil || acls.Empty() {
		return plan, err
	}
	grantees, err := s.proof.ConnectGrantees(ctx, db)
	if err != nil {
		return ddl.Plan{}, err
	}
	if acls = acls.MadeByGrants(func(r ddl.RoleName) bool { return grantees[r.String()] }); acls.Empty() {
		return plan, nil
	}
	return plan.Append(ddl.CarryDefaultPrivileges(db, owner.Role(), acls)).Append(ddl.ClearDefaultPrivileges(db, admin, acls)), nil
}

// withDefaultsHandedOn appends to an owner's handover plan its default
// privileges in db given by the receiver (db's keeper, or a rotation's new
// login), who owns the database once the owner is gone (PostgreSQL, and
// only while the owner owns db): grants
// keep reaching tables created later. Only the entries for declared
// grantees (OIDs; nil: every entry) are handed over: what the tenant gave
// anyone else ends with its login (DROP OWNED removes it).
func (s *Server) withDefaultsHandedOn(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, to ddl.RoleName, declared map[string]bool, drop ddl.Plan) (ddl.Plan, error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return drop, nil
	}
	d, err := s.proof.DatabaseDirect(ctx, db)
	if err != nil || d == nil || d.Owner != owner.String() {
		return drop, err
	}
	acls, err := s.proof.DefaultACLs(ctx, db, owner.String())
	if err != nil {
		return ddl.Plan{}, err
	}
	acls = acls.WithoutSelf()
	if declared != nil {
		names, err := s.roleNames(ctx, declared)
		if err != nil {
			return ddl.Plan{}, err
		}
		acls = acls.GrantedTo(func(r ddl.RoleName) bool { return names[r.String()] })
	}
	return drop.Append(ddl.CarryDefaultPrivileges(db, to, acls)), nil
}

// roleNames maps role OIDs to the names of the roles that exist.
func (s *Server) roleNames(ctx context.Context, oids map[string]bool) (map[string]bool, error) {
	out := map[string]bool{}
	if len(oids) == 0 {
		return out, nil
	}
	list := make([]string, 0, len(oids))
	for o := range oids {
		list = append(list, o)
	}
	names, err := s.proof.QueryStrings(ctx, "", `SELECT rolname::text FROM pg_catalog.pg_roles WHERE oid::text = ANY($1)`, list)
	if err != nil {
		return nil, s.sess.ReadError("read the declared grantees", err)
	}
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}
