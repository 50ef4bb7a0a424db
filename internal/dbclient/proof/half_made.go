// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Half-made owner logins (see ddl.OwnerMark): a Terraform killed mid-apply
// leaves what the provider did in that call unrecorded. On PostgreSQL the
// login's mark lets the next apply of the same resource prove it is its own
// and finish the work (an owner create, a username rotation) or, when the
// configuration went back to the old login, undo it. Everything else that
// exists under the name is refused as before (PreExistingOwnerUser).

// OwnerMark is the mark a login made now for db carries (PostgreSQL,
// MySQL 8.0.21+; elsewhere only the database's name, for refusals).
// fromRole is the OID (MySQL: the claim mark) of the login a rotation
// takes over from ("" for a create).
func (s *Server) OwnerMark(ctx context.Context, db ddl.DatabaseName, fromRole string) (ddl.OwnerMark, error) {
	if s.UsesLedger() {
		// MySQL and MariaDB name the database by name (the ledger row).
		return ddl.OwnerMark{Database: db, FromRole: fromRole}, nil
	}
	if s.info.Flavor != ddl.FlavorPostgres {
		// No mark on the login, but refusals still name the database.
		return ddl.OwnerMark{Database: db}, nil
	}
	d, err := s.DatabaseDirect(ctx, db)
	if err != nil || d == nil {
		return ddl.OwnerMark{}, err
	}
	id, err := s.IdentityOf(ctx, d)
	if err != nil {
		return ddl.OwnerMark{}, err
	}
	grantees, err := s.granteesToCarry(ctx, db, d.Owner)
	if err != nil {
		return ddl.OwnerMark{}, err
	}
	return ddl.OwnerMark{Database: db, DBIdentity: string(id), FromRole: fromRole, Grantees: grantees}, nil
}

// roleMark reads the mark on a PostgreSQL or MySQL 8.0.21+ login; ok is
// false when it has none (or does not exist).
func (s *Server) roleMark(ctx context.Context, user string) (mark ddl.OwnerMark, ok bool, err error) {
	if s.UsesLedger() {
		// A name tenantdb does not accept is no login tenantdb made: no mark.
		if u, uerr := ddl.NewUsername(s.spec.Engine, user); uerr == nil {
			return s.mysqlLoginMark(ctx, u)
		}
		return ddl.OwnerMark{}, false, nil
	}
	if s.info.Flavor != ddl.FlavorPostgres {
		return ddl.OwnerMark{}, false, nil
	}
	var comment string
	err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT COALESCE(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = $1`, user).Scan(&comment)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return ddl.OwnerMark{}, false, nil
	}
	if err != nil {
		return ddl.OwnerMark{}, false, s.sess.ReadError("read the mark of login "+user, err)
	}
	mark, ok = ddl.ParseOwnerMark(comment)
	return mark, ok, nil
}

// LoginMark is roleMark of a login, at its host on MySQL.
func (s *Server) LoginMark(ctx context.Context, user ddl.Username) (ddl.OwnerMark, bool, error) {
	if s.UsesLedger() {
		return s.mysqlLoginMark(ctx, user)
	}
	return s.roleMark(ctx, user.String())
}

// FinishHalfMade finishes plan for a login whose CREATE failed because it
// exists, when its mark proves it this resource's own half-made work:
//
//   - an open mark of exactly want (this database, this database's
//     identity, the same login taken over from): an apply killed between
//     the CREATE and the plan's last statement;
//   - on a rotation, a mark (open or done) naming as the login it took
//     over from rotatedFrom, the OID of the login this resource's state
//     records: the claim that made it is this resource's rotation.
//
// Its password is set again and the rest of plan runs (every statement
// after the claim is idempotent, the last marks it done). A done mark of
// anyone else's claim is a working owner (ErrFinishedOwnerExists);
// anything else is PreExistingOwnerUser. Either way nothing is changed.
func (s *Server) FinishHalfMade(ctx context.Context, user ddl.Username, want ddl.OwnerMark, rotatedFrom string, pw ddl.Password, plan ddl.Plan) error {
	got, ok, err := s.LoginMark(ctx, user)
	if err != nil {
		return err
	}
	// A PostgreSQL mark names the database's identity too; a MySQL one
	// its name only (DBIdentity "").
	sameDB := ok && (want.DBIdentity != "" || s.UsesLedger()) && got.Database == want.Database &&
		got.DBIdentity == want.DBIdentity
	ours := sameDB && ((!got.Finished && got.FromRole == want.FromRole) || (rotatedFrom != "" && got.FromRole == rotatedFrom))
	switch {
	case ours:
	case ok && got.Finished:
		return ddl.ErrFinishedOwnerExists(s.spec.Name, want.Database, user, got.Database)
	default:
		return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, want.Database, user)
	}
	finish := s.dialect().SetPassword(user, pw, false)
	finish.Statements = append(finish.Statements, plan.Tail(1).Statements...)
	// No undo: the login is live (the interrupted apply may have handed
	// it the database, and the tenant may have made tables with it), so
	// the create's undo (REASSIGN OWNED to the admin, DROP OWNED, DROP
	// ROLE) would take the tenant's work from it. Every statement of the
	// finish is idempotent: a failed finish leaves the login as found,
	// with its open mark, and the next apply finishes it.
	if err := s.sess.Exec(ctx, finish); err != nil {
		return &finishHalfMadeError{user: user, err: err}
	}
	return s.ledgerFinishAdopted(ctx, user)
}

// finishHalfMadeError: finishing an adopted half-made login failed; the
// login was left as found.
type finishHalfMadeError struct {
	user ddl.Username
	err  error
}

func (e *finishHalfMadeError) Error() string {
	return fmt.Sprintf("%v\n\nLogin %q was made by an earlier, interrupted apply of this resource (its mark proves it) and "+
		"finishing it failed: it is left as found, not dropped, since the tenant may already use it. Apply again to finish it.",
		e.err, e.user)
}
func (e *finishHalfMadeError) Unwrap() error { return e.err }

// rotatedFrom is the OID of a login this resource recorded (its identity
// in state) when that identity is of this server: the FromRole the mark
// of a login made by this resource's rotation from it carries.
func (s *Server) rotatedFrom(ctx context.Context, recorded Identity) (string, error) {
	if !s.marksOwners() || recorded == "" {
		return "", nil
	}
	sid, err := s.ServerID(ctx)
	if err != nil {
		return "", err
	}
	if s.info.Flavor != ddl.FlavorPostgres {
		return MySQLClaimOf(recorded, sid), nil // MySQL: the login's claim mark (MariaDB: rotatedFromLogin)
	}
	if !strings.HasPrefix(string(recorded), "pg:"+sid+":") {
		return "", nil
	}
	return RoleOID(recorded), nil
}

// RotatedFromLogin is rotatedFrom for the login user of db, recorded as
// recorded. A MariaDB login's identity is the time its password was set,
// not a claim: there the claim comes from the ledger's newest row that
// records user as db's owner (ledgerClaimOn).
func (s *Server) RotatedFromLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded Identity) (string, error) {
	if s.info.Flavor == ddl.FlavorMariaDB {
		if recorded == "" {
			return "", nil
		}
		return s.ledgerClaimOn(ctx, db, user)
	}
	return s.rotatedFrom(ctx, recorded)
}

// rotationFinished: got is the mark of a login a rotation made, and the
// rotation ran to its end (the login it took over from is dropped). It
// is no one's to adopt by a create (see ErrFinishedOwnerExists); it
// explains an OwnerConflict (ErrOwnerConflictRotated).
func (s *Server) rotationFinished(ctx context.Context, got ddl.OwnerMark) (bool, error) {
	if got.FromRole == "" {
		return false, nil
	}
	var n int
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM pg_roles WHERE oid = $1::oid`, got.FromRole).Scan(&n)
	})
	if err != nil {
		return false, s.sess.ReadError("read role "+got.FromRole, err)
	}
	return n == 0, nil
}

// FinishedRotationOwner returns owner, the PostgreSQL database db's owner,
// when its mark proves a rotation of this database's owner made it and
// finished (see rotationFinished); nil otherwise.
func (s *Server) FinishedRotationOwner(ctx context.Context, db ddl.DatabaseName, owner string) (*ddl.Username, error) {
	got, ok, err := s.roleMark(ctx, owner)
	if err != nil || !ok {
		return nil, err
	}
	want, err := s.OwnerMark(ctx, db, "")
	if err != nil || got.Database != want.Database || got.DBIdentity != want.DBIdentity {
		return nil, err
	}
	finished, err := s.rotationFinished(ctx, got)
	if err != nil || !finished {
		return nil, err
	}
	u, err := ddl.NewUsername(s.spec.Engine, owner)
	if err != nil {
		return nil, nil //nolint:nilerr // not a name tenantdb makes: not ours
	}
	return &u, nil
}

// HalfMadeRotations lists, from the refresh snapshots, the logins whose
// mark says a rotation from the login with OID from made them for d (by
// name and identity) while d still belongs to that login: the rotation
// was killed before the handover, so they hold nothing. The login that
// owns d is never among them.
func (s *Server) HalfMadeRotations(ctx context.Context, d *DatabaseState, db ddl.DatabaseName, from string) ([]HalfMadeLogin, error) {
	dbID, err := s.IdentityOf(ctx, d)
	if err != nil || from == "" {
		return nil, err
	}
	return s.loginsMarkedFrom(ctx, db, string(dbID), from, d.Owner)
}

// loginsMarkedFrom lists, from the logins snapshot, the logins other than
// except whose mark names db (with identity dbID; "" on MySQL) and, as the
// login it took over from, from: what a rotation from that login made.
func (s *Server) loginsMarkedFrom(ctx context.Context, db ddl.DatabaseName, dbID, from, except string) ([]HalfMadeLogin, error) {
	sid, err := s.ServerID(ctx)
	if err != nil {
		return nil, err
	}
	kind := "mysql-login:" + sid + ":"
	switch s.info.Flavor {
	case ddl.FlavorPostgres:
		kind = "pg:" + sid + ":"
	case ddl.FlavorMariaDB:
		kind = "mariadb-login:" // as loginIdentityHint
	}
	var out []HalfMadeLogin
	marks, logins := s.snapshotMarks()
	for name, m := range marks {
		if m.Database == db && m.DBIdentity == dbID && m.FromRole == from && name != except {
			out = append(out, HalfMadeLogin{Name: name, Identity: Identity(kind + logins[name])})
		}
	}
	slices.SortFunc(out, func(a, b HalfMadeLogin) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// UndoHalfMadeRotation returns db to owner when the database's current
// owner is a login that a rotation of this resource started from owner and
// never finished (its mark names this database and owner's OID): what the
// new login took over goes back, and the new login is dropped. The
// configuration went back to the old login; nothing else qualifies.
func (s *Server) UndoHalfMadeRotation(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, ownerID Identity) error {
	if s.info.Flavor != ddl.FlavorPostgres {
		return nil
	}
	d, err := s.DatabaseDirect(ctx, db)
	if err != nil || d == nil || d.Owner == owner.String() || d.Owner == s.spec.Username {
		return err
	}
	mark, ok, err := s.roleMark(ctx, d.Owner)
	if err != nil || !ok {
		return err
	}
	want, err := s.OwnerMark(ctx, db, RoleOID(ownerID))
	if err != nil || !mark.SameClaim(want) {
		return err
	}
	taker, err := ddl.NewUsername(s.spec.Engine, d.Owner)
	if err != nil {
		return nil //nolint:nilerr // not a name tenantdb makes: not ours, nothing to undo
	}
	return s.sess.Exec(ctx, ddl.UndoRotation(db, owner, taker))
}

// RoleOID is the OID part of a PostgreSQL login identity (pg:<sid>:<oid>).
func RoleOID(id Identity) string {
	if !strings.HasPrefix(string(id), "pg:") {
		return ""
	}
	return string(id)[strings.LastIndex(string(id), ":")+1:]
}

// RotationSuccessor finds, in a refresh, the login that a username rotation
// of this resource made and finished while its recorded login (recorded)
// is gone: Terraform was killed after the rotation dropped the old login
// and before it saved state. It is the owner of db, and its mark names db
// (by name and identity) and, as the login it took over from, the
// recorded login's OID: the claim that made it is this resource's. nil when
// there is none. Reads the refresh snapshots only (MariaDB: and the
// ledger's claim of the gone login user, rotatedFromLogin).
func (s *Server) RotationSuccessor(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded Identity) (*ddl.Username, error) {
	from, err := s.RotatedFromLogin(ctx, db, user, recorded)
	if err != nil || from == "" {
		return nil, err
	}
	d, err := s.Database(ctx, db)
	if err != nil || d == nil {
		return nil, err
	}
	if s.info.Flavor != ddl.FlavorPostgres {
		return s.mysqlRotationSuccessor(db, from), nil
	}
	dbID, err := s.IdentityOf(ctx, d)
	if err != nil {
		return nil, err
	}
	marks, _ := s.snapshotMarks()
	m, ok := marks[d.Owner]
	if !ok || m.FromRole != from || m.Database != db || m.DBIdentity != string(dbID) {
		return nil, nil
	}
	u, err := ddl.NewUsername(s.spec.Engine, d.Owner)
	if err != nil {
		return nil, nil //nolint:nilerr // not a name tenantdb makes: not ours
	}
	return &u, nil
}

// RequireMarkedDatabase refuses (IdentityMismatch) to hand db to user, or
// to hand it on from user, when user's mark records another database of
// that name: the one it was made to own was dropped and re-created (by a
// superuser, or the address leads to another server). The mark is the
// record: the admin writes it, the tenant cannot. A login without a mark
// for db (imported, or made before marks existed) has no record to check:
// the documented window.
func (s *Server) RequireMarkedDatabase(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	if s.info.Flavor != ddl.FlavorPostgres {
		return nil
	}
	mark, ok, err := s.LoginMark(ctx, user)
	if err != nil || !ok || mark.Database != db {
		return err
	}
	d, err := s.DatabaseDirect(ctx, db)
	if err != nil || d == nil {
		return err
	}
	id, err := s.IdentityOf(ctx, d)
	if err != nil || string(id) == mark.DBIdentity {
		return err
	}
	return ddl.ErrIdentityMismatch(s.spec.Name, db, fmt.Sprintf("Login %q was made to own database %q with identity %s "+
		"(its mark records it); the database of that name now has identity %s: %s Ownership was not handed over.",
		user, db, mark.DBIdentity, id, MismatchWhy(Compare(Identity(mark.DBIdentity), id))))
}
