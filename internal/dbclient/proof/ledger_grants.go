// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What tenantdb granted (ddl/ledger_grants_mysql.go, PROOFS.md): on a
// MySQL-family server with the ledger, every GRANT tenantdb runs is
// recorded first, and every revoke it runs on its own initiative (a
// destroy, a re-created database, an offboarding) takes only what the
// record names. Without a record (a row made by an earlier version, or a
// server without the ledger) the caller's fallback stands in: what state
// records this resource as having granted (nothing for an imported owner).

// grantRecord reads what tenantdb holds granted to user on db's name;
// found is false when no row was ever written (an earlier version's
// grant, a server without the ledger, or a ledger not made yet).
func (s *Server) grantRecord(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (privs []ddl.Privilege, found bool, err error) {
	if !s.UsesLedger() {
		return nil, false, nil
	}
	var list, status string
	err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, ddl.LedgerGrantQuery, user.String(), user.Host(), db.String()).Scan(&list, &status)
	})
	switch {
	case errors.Is(err, sql.ErrNoRows), ledgerMissing(err), ledgerV1(err):
		return nil, false, nil
	case err != nil:
		return nil, false, s.sess.ReadError(fmt.Sprintf("read the ledger's record of what was granted to %s on %s", user, db), err)
	}
	return ddl.LedgerGrantedPrivileges(s.info, list, status), true, nil
}

// recordedOr is the grant record of user on db's name, or fallback where
// none was ever written.
func (s *Server) recordedOr(ctx context.Context, db ddl.DatabaseName, user ddl.Username, fallback []ddl.Privilege) ([]ddl.Privilege, error) {
	rec, found, err := s.grantRecord(ctx, db, user)
	if err != nil || found {
		return rec, err
	}
	return ddl.GrantedPrivileges(s.info, fallback), nil
}

// writeGrantRecord appends the record that tenantdb holds privs granted to
// user on db's name, making the ledger the first time a process needs it.
func (s *Server) writeGrantRecord(ctx context.Context, db ddl.DatabaseName, user ddl.Username, privs []ddl.Privilege) error {
	if !s.UsesLedger() {
		return nil
	}
	return s.ledgerWrite(ctx, ddl.Plan{Statements: []ddl.Statement{ddl.LedgerRecordGrant(user, db, privs)}})
}

// RecordGranting records, before the GRANT it runs, that tenantdb will
// hold granting added to user on db's name as well (fallback: see
// recordedOr).
func (s *Server) RecordGranting(ctx context.Context, db ddl.DatabaseName, user ddl.Username, granting, fallback []ddl.Privilege) error {
	if !s.UsesLedger() || len(granting) == 0 {
		return nil
	}
	rec, err := s.recordedOr(ctx, db, user, fallback)
	if err != nil {
		return err
	}
	return s.writeGrantRecord(ctx, db, user, ddl.UnionPrivileges(rec, ddl.GrantedPrivileges(s.info, granting)))
}

// RecordRevoked records, after the REVOKE it ran, that tenantdb no longer
// holds revoked granted to user on db's name. It never makes the ledger:
// where there is none, nothing was recorded to correct (the fallback
// stands in again next time).
func (s *Server) RecordRevoked(ctx context.Context, db ddl.DatabaseName, user ddl.Username, revoked, fallback []ddl.Privilege) error {
	if !s.UsesLedger() || len(revoked) == 0 {
		return nil
	}
	rec, err := s.recordedOr(ctx, db, user, fallback)
	if err != nil {
		return err
	}
	return s.correctGrantRecord(ctx, db, user, ddl.MinusPrivileges(rec, revoked))
}

// correctGrantRecord appends a record after a revoke, to a ledger that
// exists: one that does not (or an earlier version's, without the host
// column, which only a write that makes rows upgrades) has nothing to
// correct.
func (s *Server) correctGrantRecord(ctx context.Context, db ddl.DatabaseName, user ddl.Username, privs []ddl.Privilege) error {
	err := s.sess.Exec(ctx, ddl.Plan{Statements: []ddl.Statement{ddl.LedgerRecordGrant(user, db, privs)}})
	if ledgerMissing(err) || ledgerV1(err) {
		return nil
	}
	return err
}

// RevokedOwn says what a revoke limited to tenantdb's record did: the
// privileges it revoked, and those user still holds on the name that
// tenantdb never granted (a DBA's, another tool's), left as they are.
type RevokedOwn struct {
	Revoked []ddl.Privilege
	Left    []ddl.Privilege
}

// RevokeRecordedLocked revokes from user on db's name what tenantdb holds
// granted there (fallback: see recordedOr) and nothing else, reads back
// that none of it is left, and records the revoke. The caller holds the
// tenant's lock (MySQL/MariaDB only).
func (s *Server) RevokeRecordedLocked(ctx context.Context, db ddl.DatabaseName, user ddl.Username, fallback []ddl.Privilege) (RevokedOwn, error) {
	var out RevokedOwn
	held, err := s.Privileges(ctx, db, user)
	if err != nil || len(held) == 0 {
		return out, err
	}
	rec, found, err := s.grantRecord(ctx, db, user)
	if err != nil {
		return out, err
	}
	if !found {
		rec = ddl.GrantedPrivileges(s.info, fallback)
	}
	out.Revoked = ddl.IntersectPrivileges(held, rec)
	if len(out.Revoked) > 0 {
		if err := s.sess.Exec(ctx, ddl.RevokePrivileges(s.dialect(), db, user, out.Revoked)); err != nil {
			return out, err
		}
	}
	after, err := s.Privileges(ctx, db, user)
	if err != nil {
		return out, err
	}
	if still := ddl.IntersectPrivileges(after, out.Revoked); len(still) > 0 {
		return out, fmt.Errorf("%s: after revoking, %q still holds %v on %q", s.spec.Describe(), user, still, db)
	}
	out.Left = ddl.MinusPrivileges(after, nil)
	if !found || len(rec) == 0 {
		return out, nil
	}
	// Whatever the record named is gone now: revoked, or revoked by
	// someone else before.
	return out, s.correctGrantRecord(ctx, db, user, nil)
}

// LeftText is the statement that revokes what was left, for a
// diagnostic ("" when nothing was).
func (r RevokedOwn) LeftText(info ddl.ServerInfo, db ddl.DatabaseName, user ddl.Username) string {
	if len(r.Left) == 0 {
		return ""
	}
	return ddl.RevokePrivilegesText(info, db, user, r.Left)
}
