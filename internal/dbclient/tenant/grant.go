// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Tenant grants: privileges on one tenant database for a principal that
// already exists and is never created, dropped or altered otherwise. A grant
// is about two objects, the database and the principal, and records the
// identity of both when it is made or imported (see Identity and
// LoginIdentity); every later change first checks that both are still those
// objects, so a principal dropped and re-created by someone else (or a
// database) is never granted to or revoked from by this grant.

// GrantIdentity names the two objects of a tenant grant.
type GrantIdentity struct {
	Database  proof.Identity
	Principal proof.Identity
	// Granted, in the recorded identities a revoke is given: the
	// privileges state records the grant as holding. It stands in for
	// the ledger's record of what tenantdb granted where there is none
	// (a grant an earlier version made; ledger_grants.go).
	Granted []ddl.Privilege
}

// GrantState is a tenant grant as the server has it.
type GrantState struct {
	DatabaseFound  bool
	PrincipalFound bool
	Identity       GrantIdentity
	Held           ddl.GrantHeld
	// RowsOutliveDatabase: MySQL/MariaDB, the database is gone but the
	// principal's grant rows for its name are still there (DatabaseFound
	// is false; Identity.Database is empty).
	RowsOutliveDatabase bool
	// PrincipalHint: Identity.Principal is a MySQL ATTRIBUTE the ledger
	// does not back (compare it with HintedVerdict).
	PrincipalHint bool
	// Shallow: read by the shallow PostgreSQL refresh (grant_shallow.go):
	// Held has the database-level privileges only.
	Shallow bool
	// DatabaseInvalid: PostgreSQL marked the database invalid (a drop
	// stopped part way, invalid_database.go); nothing else was read and
	// nobody connected into it.
	DatabaseInvalid bool
}

// ReadGrant reads a grant for a refresh or an import: the database (from
// the catalog snapshot), the principal and what it holds on the database.
// A missing database or principal is a value, not an error.
func (s *Server) ReadGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (GrantState, error) {
	var st GrantState
	dbState, dbID, err := s.proof.DatabaseWithIdentity(ctx, db)
	if err != nil {
		return st, err
	}
	if dbState == nil {
		return s.readOrphanGrant(ctx, db, user)
	}
	st.DatabaseFound, st.Identity.Database = true, dbID
	if dbState.Invalid {
		st.DatabaseInvalid = true // no one can connect into it: nothing more to read
		return st, nil
	}
	if s.info.Flavor == ddl.FlavorPostgres && s.spec.ShallowGrantRefresh && ctx.Value(fullReadKey{}) == nil {
		return s.readGrantShallow(ctx, db, user, st)
	}
	if s.info.Flavor == ddl.FlavorPostgres && ctx.Value(fullReadKey{}) != nil {
		// An import of a hardened tenant (no CONNECT for PUBLIC) whose
		// owner's import, in the same plan, has not made the admin a
		// member yet: only the database's ACL can be read (plans only
		// read, so nothing is granted to read more). The apply reads in
		// full after joining the owner (import_join.go).
		may, err := s.adminMayConnect(ctx, db)
		if err != nil {
			return st, err
		}
		if !may {
			return s.readGrantShallow(ctx, db, user, st)
		}
	}
	if s.info.Flavor == ddl.FlavorPostgres {
		// One query inside the tenant database says it all, the
		// principal's OID included.
		g, err := s.proof.PGGrantRead(ctx, db, user, true)
		if session.IsConnectionLimit(err) {
			// The database's CONNECTION LIMIT keeps the admin out, and a
			// refresh only reads: what the catalog snapshots show (the
			// database level) is read, as the shallow refresh does. A
			// destroy resets the limit (admin_session_postgres.go).
			return s.readGrantShallow(ctx, db, user, st)
		}
		if err != nil {
			return st, s.sess.ReadError(fmt.Sprintf("read the grant of %s on %s", user, db), err)
		}
		if g.PrincipalOID == "" {
			return st, nil
		}
		sid, err := s.proof.ServerID(ctx)
		if err != nil {
			return st, err
		}
		st.PrincipalFound, st.Identity.Principal = true, proof.Identity("pg:"+sid+":"+g.PrincipalOID)
		st.Held = g.Read.Held()
		return st, nil
	}
	return s.readFromSnapshots(ctx, st, user, func(ctx context.Context) ([]ddl.Privilege, error) {
		return s.proof.RefreshPrivileges(ctx, db, user)
	})
}

// readFromSnapshots completes st from the logins snapshot (the principal
// and its identity) and held (what it holds, all of it at one level: a
// MySQL/MariaDB grant row, or a PostgreSQL database ACL). A missing
// principal leaves st as it is.
func (s *Server) readFromSnapshots(ctx context.Context, st GrantState, user ddl.Username,
	held func(context.Context) ([]ddl.Privilege, error)) (GrantState, error) {
	pid, hint, found, err := s.proof.LoginIdentityHint(ctx, user, true)
	if err != nil || !found {
		return st, err
	}
	privs, err := held(ctx)
	if err != nil {
		return st, err
	}
	st.PrincipalFound, st.Identity.Principal, st.PrincipalHint = true, pid, hint
	st.Held = ddl.HeldEverywhere(privs)
	return st, nil
}

// readOrphanGrant reads a grant whose database is gone. MySQL/MariaDB
// keep an account's database-level grant rows after DROP DATABASE, and a
// database created later under that name inherits them: while rows exist
// the grant is still there (RowsOutliveDatabase), so it stays in state and
// its destroy revokes them. PostgreSQL privileges go with the database.
func (s *Server) readOrphanGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (GrantState, error) {
	if s.info.Flavor == ddl.FlavorPostgres {
		return GrantState{}, nil
	}
	st, err := s.readFromSnapshots(ctx, GrantState{}, user, func(ctx context.Context) ([]ddl.Privilege, error) {
		return s.proof.RefreshPrivileges(ctx, db, user)
	})
	if err != nil || len(st.Held.Any) == 0 {
		return GrantState{}, err // no rows left: the grant is gone with its database
	}
	st.RowsOutliveDatabase = true
	return st, nil
}

// CreateGrant grants desired to an existing principal on db (and revokes
// any surplus it already holds there), and returns the identities to
// record. A principal that does not exist is refused with GrantUserMissing
// before any statement runs; a later call succeeds once it exists.
func (s *Server) CreateGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet) (GrantIdentity, error) {
	var ids GrantIdentity
	if err := ddl.CheckAccountHost(s.info, user.AccountHost()); err != nil {
		return ids, err
	}
	err := s.withGrantLock(ctx, db, user, func(ctx context.Context) error {
		d, err := s.proof.DatabaseDirect(ctx, db)
		if err != nil {
			return err
		}
		if d == nil {
			return fmt.Errorf("%s: database %q does not exist: create it first (tenantdb_tenant_database); nothing was changed",
				s.spec.Describe(), db)
		}
		if ids.Database, err = s.proof.IdentityOf(ctx, d); err != nil {
			return err
		}
		pid, found, err := s.proof.LoginIdentity(ctx, user)
		if err != nil {
			return err
		}
		if !found {
			return ddl.ErrGrantUserMissing(s.spec.Name, user)
		}
		ids.Principal = pid
		if err := s.refuseGrantToMySQLOwner(ctx, db, user); err != nil {
			return err
		}
		return s.syncGrantLocked(ctx, db, user, desired, false)
	})
	return ids, err
}

// refuseGrantToMySQLOwner refuses, before any statement, a new grant to
// the tenant owner's own login on MySQL/MariaDB: the login carrying the
// database's owner mark (owner_mark_limit.go), whatever it holds. The grant
// would narrow the owner to the grant's set and the two resources would
// undo each other on every apply. A login with no owner mark at all that
// already holds every database-level privilege there is refused too: an
// owner made before the mark existed (or imported) looks like that, and a
// refusal changes nothing. The login of another database's owner is not
// this one's owner, whatever it holds.
func (s *Server) refuseGrantToMySQLOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	if s.info.Flavor == ddl.FlavorPostgres {
		return nil // syncGrantLocked refuses the database owner
	}
	ownsDB, marked, err := s.proof.OwnerMarkOn(ctx, db, user)
	if err != nil {
		return err
	}
	if ownsDB {
		return ddl.ErrGrantToOwner(s.spec.Name, db, user, "it carries the owner mark of this database (the per-hour "+
			"update limit its tenantdb_tenant_owner set when it created the login).")
	}
	if marked {
		return nil
	}
	held, err := s.proof.Privileges(ctx, db, user)
	if err != nil || len(held) == 0 {
		return err
	}
	if len(ddl.Diff(s.info, ddl.FromActual(s.info, ddl.Catalog(s.info)), held).Grant) == 0 {
		return ddl.ErrGrantToOwner(s.spec.Name, db, user, "it carries no owner mark but already holds every "+
			"database-level privilege on it, which is what a tenant owner made before the mark existed (or imported) "+
			"holds (if it is not the owner, revoke that out of band first).")
	}
	return nil
}

// UpdateGrant moves a grant to desired after checking, under the locks,
// that the database and the principal are still the recorded objects: on a
// mismatch nothing is granted or revoked (IdentityMismatch).
func (s *Server) UpdateGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet, recorded GrantIdentity) error {
	return s.withGrantLock(ctx, db, user, func(ctx context.Context) error {
		c, err := s.proof.CheckIdentity(ctx, db, recorded.Database)
		if err != nil {
			return err
		}
		if !c.Found {
			return ddl.ErrDatabaseGone(s.spec.Name, db)
		}
		if c.Verdict == proof.Replaced && s.info.Flavor != ddl.FlavorPostgres {
			return s.revokeFromRecreatedLocked(ctx, db, user, recorded)
		}
		if c.Verdict != proof.Same {
			return ddl.ErrIdentityMismatch(s.spec.Name, db, proof.MismatchWhy(c.Verdict))
		}
		pc, err := s.proof.CheckLogin(ctx, user, recorded.Principal)
		if err != nil {
			return err
		}
		if !pc.Found {
			return ddl.ErrGrantUserMissing(s.spec.Name, user)
		}
		if pc.Verdict != proof.Same {
			return ddl.ErrGrantIdentityMismatch(s.spec.Name, fmt.Sprintf("principal %q", user), PrincipalMismatchWhy(pc.Verdict))
		}
		return s.syncGrantLocked(ctx, db, user, desired, true)
	})
}

// revokeFromRecreatedLocked is UpdateGrant on a database re-created under
// the grant's name (MySQL/MariaDB): the rows the grant made for the name,
// which the new database inherited, are revoked when the principal is still
// the recorded one, and nothing is granted on a database the grant never
// saw (IdentityMismatch, saying what was revoked).
func (s *Server) revokeFromRecreatedLocked(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded GrantIdentity) error {
	pc, err := s.proof.CheckLogin(ctx, user, recorded.Principal)
	if err != nil {
		return err
	}
	if !pc.Found {
		return ddl.ErrGrantUserMissing(s.spec.Name, user) // its rows went with it
	}
	if pc.Verdict != proof.Same {
		return ddl.ErrGrantIdentityMismatch(s.spec.Name, fmt.Sprintf("principal %q", user), PrincipalMismatchWhy(pc.Verdict))
	}
	own, err := s.proof.RevokeRecordedLocked(ctx, db, user, recorded.Granted)
	if err != nil {
		return err
	}
	return ddl.ErrRecreatedDatabaseRevoked(s.spec.Name, s.info, db, user, "grant", own.Revoked, own.Left)
}

// GrantRevoke says what RevokeGrant did.
type GrantRevoke struct {
	Outcome DropOutcome // Dropped: revoked; AlreadyGone: nothing left to revoke; NotOurs: nothing revoked
	Why     string      // NotOurs: which object is not the recorded one, and why
	// Own (MySQL family): what was revoked, and what the principal still
	// holds there that tenantdb never granted (left as it is).
	Own proof.RevokedOwn
}

// RevokeGrant removes everything the principal holds on db, and nothing
// elsewhere, if both are still the recorded objects. A principal that has
// disappeared is not an error (nothing can be left: MySQL/MariaDB drop an
// account's grants with it, and PostgreSQL drops no role that holds any).
// On MySQL/MariaDB the grant row outlives DROP DATABASE, so it is revoked
// even when the database is gone: a later database of that name would
// otherwise inherit it.
func (s *Server) RevokeGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded GrantIdentity) (GrantRevoke, error) {
	out := GrantRevoke{Outcome: Dropped}
	err := s.withGrantLock(ctx, db, user, func(ctx context.Context) error {
		pc, err := s.proof.CheckLogin(ctx, user, recorded.Principal)
		if err != nil {
			return err
		}
		if !pc.Found {
			out.Outcome = AlreadyGone
			return nil
		}
		if pc.Verdict != proof.Same && pc.Verdict != proof.Unproven { // Unproven: a MariaDB login that set its own password
			out = GrantRevoke{Outcome: NotOurs, Why: fmt.Sprintf("Principal %q: %s", user, PrincipalMismatchWhy(pc.Verdict))}
			return nil
		}
		c, err := s.proof.CheckIdentity(ctx, db, recorded.Database)
		if err != nil {
			return err
		}
		switch {
		case !c.Found && s.info.Flavor == ddl.FlavorPostgres:
			out.Outcome = AlreadyGone // its privileges went with the database
			return nil
		case c.Found && (c.Verdict == proof.Replaced || c.Verdict == proof.Unproven) && s.info.Flavor != ddl.FlavorPostgres:
			// The new database inherited this grant's rows for the name
			// (or, Unproven, its comment was edited in place): they are
			// ours to revoke (below), whatever the database is.
		case c.Found && c.Verdict != proof.Same:
			out = GrantRevoke{Outcome: NotOurs, Why: fmt.Sprintf("Database %q: %s", db, proof.MismatchWhy(c.Verdict))}
			return nil
		}
		if s.info.Flavor != ddl.FlavorPostgres {
			// Only what tenantdb granted (ledger_grants.go): a DBA's
			// privileges on the same row stay, named.
			out.Own, err = s.proof.RevokeRecordedLocked(ctx, db, user, recorded.Granted)
			return err
		}
		g, err := s.proof.PGGrantRead(ctx, db, user, true)
		if err != nil {
			return s.sess.ReadError(fmt.Sprintf("read the grant of %s on %s", user, db), err)
		}
		if g.GranteeIsOwner {
			out = GrantRevoke{Outcome: NotOurs, Why: fmt.Sprintf("Principal %q now owns database %q, and revoking from the "+
				"owner would strip its own rights.", user, db)}
			return nil
		}
		owner, err := g.OwnerName(s.proof, db)
		if err != nil {
			return err
		}
		if err := s.sess.Exec(ctx, ddl.RevokeGrant(s.dialect(), db, user, owner, g.Scope)); err != nil {
			return err
		}
		after, err := s.proof.PGGrantRead(ctx, db, user, true)
		if err != nil {
			return s.sess.ReadError(fmt.Sprintf("read the grant of %s on %s back", user, db), err)
		}
		if left := after.Read.Held().Any; len(left) > 0 || len(after.Read.Database) > 0 || after.Read.UsableSchemas > 0 {
			return fmt.Errorf("%s: after revoking, %q still holds %v (database rights %v, USAGE on %d schema(s)) on %q",
				s.spec.Describe(), user, left, after.Read.Database, after.Read.UsableSchemas, db)
		}
		return s.proof.MarkGrantee(ctx, db, g.PrincipalOID, false)
	})
	return out, err
}

// syncGrantLocked reads what user holds on db, grants the missing
// privileges, revokes the surplus, and reads back to prove the server took
// it (PostgreSQL grants nothing, with only a warning, on an object the
// admin may not grant on). The caller holds both locks and has checked
// that the principal exists.
func (s *Server) syncGrantLocked(ctx context.Context, db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet, existing bool) error {
	read := func() (ddl.GrantHeld, *proof.PGGrant, error) {
		if s.info.Flavor != ddl.FlavorPostgres {
			privs, err := s.proof.Privileges(ctx, db, user)
			return ddl.HeldEverywhere(privs), nil, err
		}
		g, err := s.proof.PGGrantRead(ctx, db, user, true)
		if err != nil {
			return ddl.GrantHeld{}, nil, s.sess.ReadError(fmt.Sprintf("read the grant of %s on %s", user, db), err)
		}
		return g.Read.Held(), &g, nil
	}
	held, g, err := read()
	if err != nil {
		return err
	}
	var owner ddl.Username
	var scope ddl.PostgresGrantScope
	if g != nil {
		if g.PrincipalOID == "" {
			return ddl.ErrGrantUserMissing(s.spec.Name, user)
		}
		if g.GranteeIsOwner {
			return ddl.ErrGrantToOwner(s.spec.Name, db, user, "it owns the database, which implies every privilege on it.")
		}
		if !g.AdminActsAsOwner {
			return ddl.ErrAdminNotOwnerMember(s.spec.Name, db, g.Owner, s.spec.Username)
		}
		if owner, err = g.OwnerName(s.proof, db); err != nil {
			return err
		}
		scope = g.Scope
	}
	// The principal is a declared grantee: the owner's offboarding leaves
	// it what it holds (grantee_mark.go). Recorded before the change, so a
	// grant that exists is never missing from the list.
	if g != nil {
		if err := s.proof.MarkGrantee(ctx, db, g.PrincipalOID, true); err != nil {
			return err
		}
	}
	diff := held.Diff(s.info, desired)
	if diff.Empty() {
		return nil
	}
	// MySQL family: what it grants is recorded first (ledger_grants.go).
	// An existing grant with no record yet (an earlier version's) holds
	// what tenantdb granted it; a new one, nothing yet (what a DBA had
	// given the principal stays the DBA's).
	var fallback []ddl.Privilege
	if g == nil && existing {
		fallback = held.Any
	}
	// Only what it did not hold yet is tenantdb's grant (GRANT ALL
	// re-grants what a DBA gave it too: that stays the DBA's).
	if err := s.proof.RecordGranting(ctx, db, user, ddl.MinusPrivileges(desired.Expand(s.info), held.Any), fallback); err != nil {
		return err
	}
	// PostgreSQL: the privilege change is one transaction, all or nothing.
	if err := s.sess.Exec(ctx, ddl.InOneTransaction(s.dialect(), ddl.SyncGrant(s.dialect(), db, user, owner, scope, diff))); err != nil {
		if codesPrincipalMissing[session.CodeOf(err)] {
			if _, found, lerr := s.proof.LoginIdentity(ctx, user); lerr == nil && !found {
				return ddl.ErrGrantUserMissing(s.spec.Name, user)
			}
		}
		return err
	}
	if err := s.proof.RecordRevoked(ctx, db, user, diff.Revoke, fallback); err != nil {
		return err
	}
	after, _, err := read()
	if err != nil {
		return err
	}
	if got, want := after.Reported(s.info, desired), desired.Expand(s.info); !slices.Equal(got, want) {
		return fmt.Errorf("%s: the server did not take the grant: %q holds %v on %q after the change, want %v",
			s.spec.Describe(), user, got, db, want)
	}
	return nil
}

// codesPrincipalMissing: a grant statement failed because its principal is
// gone (dropped after the existence check): MariaDB with
// NO_AUTO_CREATE_USER 1133, MySQL 8 1410 (GRANT may not create it),
// PostgreSQL 42704.
var codesPrincipalMissing = map[string]bool{"mysql:1133": true, "mysql:1410": true, "pg:42704": true}

// PrincipalMismatchWhy explains a principal whose identity changed.
func PrincipalMismatchWhy(v proof.Verdict) string {
	if v == proof.OtherServer {
		return "The server at this address is not the server the grant was made or imported on (its server identity differs)."
	}
	return "A principal of that name exists, but it is not the one this grant was made or imported for: it was dropped " +
		"and re-created outside Terraform (on MariaDB, whose accounts carry no identity, a password reset by its " +
		"administrator looks the same), or the address now leads to another server."
}

// withGrantLock holds the tenant's lock and, inside it, the principal's:
// grants to one principal on several databases are serialised, so they never
// update one catalog row at once ("tuple concurrently updated" is retried
// as transient anyway). The order is always database, then principal.
func (s *Server) withGrantLock(ctx context.Context, db ddl.DatabaseName, user ddl.Username, fn func(context.Context) error) error {
	return s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		conn, ok := ctx.Value(session.LockedConnKey{}).(*sql.Conn)
		if !ok {
			return errors.New("internal error: principal lock taken outside a tenant lock")
		}
		release, err := s.sess.LockOn(ctx, conn, "tenantdb-principal:"+user.String())
		if err != nil {
			return err
		}
		defer release()
		return fn(ctx)
	})
}
