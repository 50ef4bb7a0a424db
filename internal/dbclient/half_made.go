// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Half-made owner logins (see ddl.OwnerMark): a Terraform killed mid-apply
// leaves what the provider did in that call unrecorded. On PostgreSQL the
// login's mark lets the next apply of the same resource prove it is its own
// and finish the work (an owner create, a username rotation) or, when the
// configuration went back to the old login, undo it. Everything else that
// exists under the name is refused as before (PreExistingOwnerUser).

// ownerMark is the mark a login made now for db carries (PostgreSQL; the
// zero mark elsewhere). fromRole is the OID of the login a rotation takes
// over from ("" for a create).
func (s *Server) ownerMark(ctx context.Context, db ddl.DatabaseName, fromRole string) (ddl.OwnerMark, error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return ddl.OwnerMark{}, nil
	}
	d, err := s.databaseDirect(ctx, db)
	if err != nil || d == nil {
		return ddl.OwnerMark{}, err
	}
	id, err := s.identityOf(ctx, d)
	if err != nil {
		return ddl.OwnerMark{}, err
	}
	return ddl.OwnerMark{Database: db, DBIdentity: string(id), FromRole: fromRole}, nil
}

// roleMark reads the mark on a PostgreSQL login; ok is false when it has
// none (or does not exist).
func (s *Server) roleMark(ctx context.Context, user string) (mark ddl.OwnerMark, ok bool, err error) {
	if s.info.Flavor != ddl.FlavorPostgres {
		return ddl.OwnerMark{}, false, nil
	}
	var comment string
	err = s.query(ctx, func(ctx context.Context, q queryer) error {
		return q.QueryRowContext(ctx, `SELECT COALESCE(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = $1`, user).Scan(&comment)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return ddl.OwnerMark{}, false, nil
	}
	if err != nil {
		return ddl.OwnerMark{}, false, s.readError("read the mark of login "+user, err)
	}
	mark, ok = ddl.ParseOwnerMark(comment)
	return mark, ok, nil
}

// finishHalfMade finishes plan for a login whose CREATE failed because it
// exists: when the login's mark is exactly want (this database, this
// database's identity, the same login taken over from), it is this
// resource's own half-made work: its password is set again and the rest of
// plan runs (every statement after the claim is idempotent). Otherwise it
// is someone else's: PreExistingOwnerUser, nothing changed.
func (s *Server) finishHalfMade(ctx context.Context, user ddl.Username, want ddl.OwnerMark, pw ddl.Password, plan ddl.Plan) error {
	got, ok, err := s.roleMark(ctx, user.String())
	if err != nil {
		return err
	}
	if !ok || want.DBIdentity == "" || got.Database != want.Database || got.DBIdentity != want.DBIdentity {
		return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, want.Database, user)
	}
	if got.FromRole != want.FromRole {
		finished, err := s.rotationFinished(ctx, got, want)
		if err != nil {
			return err
		}
		if !finished {
			return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, want.Database, user)
		}
	}
	finish := s.dialect().SetPassword(user, pw, false)
	finish.Statements = append(finish.Statements, plan.Tail(1).Statements...)
	finish.Undo = plan.Undo
	return s.exec(ctx, finish)
}

// rotationFinished: got is the mark of a login a rotation made, and the
// rotation ran to its end (the login it took over from is dropped) before
// Terraform was killed, so state still names the old login. The next apply
// no longer finds that login and asks for this one afresh (want has no
// predecessor). The mark names this database, and the predecessor is gone,
// so no one else can hold this claim: the login is this resource's own.
func (s *Server) rotationFinished(ctx context.Context, got, want ddl.OwnerMark) (bool, error) {
	if want.FromRole != "" || got.FromRole == "" {
		return false, nil
	}
	var n int
	err := s.query(ctx, func(ctx context.Context, q queryer) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM pg_roles WHERE oid = $1::oid`, got.FromRole).Scan(&n)
	})
	if err != nil {
		return false, s.readError("read role "+got.FromRole, err)
	}
	return n == 0, nil
}

// finishedRotationOwner returns owner, the PostgreSQL database db's owner,
// when its mark proves a rotation of this database's owner made it and
// finished (see rotationFinished); nil otherwise.
func (s *Server) finishedRotationOwner(ctx context.Context, db ddl.DatabaseName, owner string) (*ddl.Username, error) {
	got, ok, err := s.roleMark(ctx, owner)
	if err != nil || !ok {
		return nil, err
	}
	want, err := s.ownerMark(ctx, db, "")
	if err != nil || got.Database != want.Database || got.DBIdentity != want.DBIdentity {
		return nil, err
	}
	finished, err := s.rotationFinished(ctx, got, want)
	if err != nil || !finished {
		return nil, err
	}
	u, err := ddl.NewUsername(s.spec.Engine, owner)
	if err != nil {
		return nil, nil //nolint:nilerr // not a name tenantdb makes: not ours
	}
	return &u, nil
}

// halfMadeRotations lists, from the refresh snapshots, the logins whose
// mark says a rotation from the login with OID from made them for d (by
// name and identity) while d still belongs to that login: the rotation
// was killed before the handover, so they hold nothing. The login that
// owns d is never among them.
func (s *Server) halfMadeRotations(ctx context.Context, d *DatabaseState, db ddl.DatabaseName, from string) ([]HalfMadeLogin, error) {
	dbID, err := s.identityOf(ctx, d)
	if err != nil || from == "" {
		return nil, err
	}
	sid, err := s.serverID(ctx)
	if err != nil {
		return nil, err
	}
	var out []HalfMadeLogin
	marks, logins := s.snapshotMarks()
	for name, m := range marks {
		if m.Database == db && m.DBIdentity == string(dbID) && m.FromRole == from && name != d.Owner {
			out = append(out, HalfMadeLogin{Name: name, Identity: Identity("pg:" + sid + ":" + logins[name])})
		}
	}
	slices.SortFunc(out, func(a, b HalfMadeLogin) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// undoHalfMadeRotation returns db to owner when the database's current
// owner is a login that a rotation of this resource started from owner and
// never finished (its mark names this database and owner's OID): what the
// new login took over goes back, and the new login is dropped. The
// configuration went back to the old login; nothing else qualifies.
func (s *Server) undoHalfMadeRotation(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, ownerID Identity) error {
	if s.info.Flavor != ddl.FlavorPostgres {
		return nil
	}
	d, err := s.databaseDirect(ctx, db)
	if err != nil || d == nil || d.Owner == owner.String() || d.Owner == s.spec.Username {
		return err
	}
	mark, ok, err := s.roleMark(ctx, d.Owner)
	if err != nil || !ok {
		return err
	}
	want, err := s.ownerMark(ctx, db, roleOID(ownerID))
	if err != nil || mark != want {
		return err
	}
	taker, err := ddl.NewUsername(s.spec.Engine, d.Owner)
	if err != nil {
		return nil //nolint:nilerr // not a name tenantdb makes: not ours, nothing to undo
	}
	return s.exec(ctx, ddl.UndoRotation(db, owner, taker))
}

// roleOID is the OID part of a PostgreSQL login identity (pg:<sid>:<oid>).
func roleOID(id Identity) string {
	if !strings.HasPrefix(string(id), "pg:") {
		return ""
	}
	return string(id)[strings.LastIndex(string(id), ":")+1:]
}
