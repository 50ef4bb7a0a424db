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

// faultNonceLostAfter makes the creation of a PostgreSQL nonce database
// end in a lost connection after it ran (the rename's own points are
// faultClaimLostBefore, which fails the whole claim before anything runs,
// and faultClaimLostAfter, after the rename ran).
const faultNonceLostAfter = "nonce-lost-after"

// claimPostgres claims db on PostgreSQL (ddl.PostgresClaim): an existing
// name is refused before any statement; otherwise the nonce database is
// made, then renamed to db. A connection lost at either step is settled by
// reading the server again, so the caller always ends knowing whether db
// is its own. Runs under the tenant lock.
func (s *Server) claimPostgres(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) (*proof.DatabaseState, error) {
	// No SQL before a refusal: a name that exists now is refused by a read.
	if st, err := s.proof.DatabaseDirect(ctx, db); err != nil || st != nil {
		if err == nil {
			err = ddl.ErrDatabasePreExists(s.spec.Name, ddl.EnginePostgres, db)
		}
		return nil, err
	}
	if err := s.dropLeftoverNonces(ctx, db); err != nil {
		return nil, err
	}
	claim := ddl.NewPostgresClaim(db, cs, co, ddl.NewClaimMark())
	lost := func(point string, st ddl.Statement) error {
		if f := session.Fault(point, db.String()); f != nil {
			return session.NewStatementError(s.spec.Name, st, f)
		}
		return nil
	}

	// 1. The nonce database: nobody else can choose its name.
	err := lost(session.FaultClaimLostBefore, claim.Create.Statements[0])
	if err == nil {
		err = s.sess.Exec(ctx, claim.Create)
	}
	if err == nil {
		err = lost(faultNonceLostAfter, claim.Create.Statements[0])
	}
	if err != nil && session.Classify(err) == connect.ClassOutcomeUnknown {
		ctx = session.Settling(session.Unlocked(ctx)) // the locked connection may be the lost one; the server may be restarting
		nonce, rerr := s.proof.DatabaseDirect(ctx, claim.Nonce)
		switch {
		case rerr != nil:
			return nil, err
		case nonce == nil:
			return nil, fmt.Errorf("%s: the connection was lost while creating database %q, and nothing was created: apply again",
				s.spec.Describe(), db)
		}
		// It exists, so it is ours: finish what the lost plan did.
		if err = s.sess.Exec(ctx, claim.Create.Tail(1)); err != nil {
			s.dropNonce(ctx, claim)
		}
	}
	if err != nil {
		// A failure after the CREATE was undone by exec. The statement names
		// the scratch database: say which database it was for.
		return nil, &claimError{db: db, nonce: claim.Nonce, err: err}
	}
	// The nonce database is ours: what follows waits for a restarting
	// server rather than leave it behind.
	ctx = session.Settling(ctx)
	nonce, err := s.proof.DatabaseDirect(ctx, claim.Nonce)
	if err == nil && nonce == nil {
		err = fmt.Errorf("%s: database %q was created but cannot be read back", s.spec.Describe(), claim.Nonce)
	}
	if err != nil {
		s.dropNonce(ctx, claim)
		return nil, err
	}

	// 2. The claim: the nonce database takes the tenant's name.
	err = s.sess.Exec(ctx, claim.Rename)
	if err == nil {
		err = lost(session.FaultClaimLostAfter, claim.Rename.Statements[0])
	}
	if session.IsDatabaseExists(err) {
		s.dropNonce(ctx, claim)
		return nil, ddl.ErrDatabasePreExists(s.spec.Name, ddl.EnginePostgres, db)
	}
	if err != nil && session.Classify(err) == connect.ClassOutcomeUnknown {
		ctx = session.Settling(session.Unlocked(ctx))
		if st, rerr := s.proof.DatabaseDirect(ctx, db); rerr == nil && st != nil && st.Marker == nonce.Marker {
			return st, nil // the rename took effect: db is the nonce database
		}
		if left, rerr := s.proof.DatabaseDirect(ctx, claim.Nonce); rerr == nil && left != nil {
			s.dropNonce(ctx, claim)
			return nil, fmt.Errorf("%s: the connection was lost while claiming database %q, and the claim did not take "+
				"effect: nothing was created; apply again", s.spec.Describe(), db)
		}
		return nil, err // still unknown: report the lost connection
	}
	if err != nil {
		s.dropNonce(ctx, claim)
		return nil, err
	}
	// The claim committed: read it back also when the deadline passed
	// since (readBackContext), so state records it.
	rctx, cancel := session.ReadBackContext(ctx)
	defer cancel()
	st, err := s.proof.DatabaseDirect(rctx, db)
	if err == nil && (st == nil || st.Marker != nonce.Marker) {
		err = fmt.Errorf("%s: database %q was claimed but cannot be read back", s.spec.Describe(), db)
	}
	return st, err
}

// dropNonce removes a nonce database that did not become the tenant's
// (best effort: a left-over one is empty, and named ddl.NonceDatabasePrefix...).
func (s *Server) dropNonce(ctx context.Context, claim ddl.PostgresClaim) {
	_ = s.sess.Exec(context.WithoutCancel(session.Unlocked(ctx)), claim.DropNonce)
}

// dropLeftoverNonces drops the nonce databases earlier claims of db left
// when their provider was killed between create and rename (Terraform
// killed mid-apply). This claim holds db's lock, so no claim of db that
// could still rename one is in flight. Only a database the claim can prove
// a leftover is dropped: named for db, carrying the mark its CREATE gave it
// and owned by the admin (ddl.IsLeftoverNonce), and holding nothing
// (nonceHoldsNothing). Anything else named like one is someone else's, or
// a tenant's database from before such names were refused: it is left
// alone, and it never stands in this claim's way (the claim's own nonce
// has a fresh random name), so neither is a refusal.
func (s *Server) dropLeftoverNonces(ctx context.Context, db ddl.DatabaseName) error {
	var found []ddl.NonceCandidate
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		found = found[:0]
		rows, err := q.QueryContext(ctx, `SELECT datname, oid::bigint, datdba = (SELECT oid FROM pg_roles WHERE rolname = current_user)
			FROM pg_database WHERE starts_with(datname, $1)`, ddl.NoncePrefixFor(db))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c ddl.NonceCandidate
			var oid int64
			if err := rows.Scan(&c.Name, &oid, &c.OwnedByAdmin); err != nil {
				return err
			}
			c.OID = uint32(oid)
			found = append(found, c)
		}
		return rows.Err()
	})
	if err != nil {
		return s.sess.ReadError("list nonce databases left by earlier claims of "+db.String(), err)
	}
	for _, c := range found {
		drop, ok := ddl.DropLeftoverNonce(db, c)
		if !ok {
			continue
		}
		if empty, err := s.nonceHoldsNothing(ctx, c.Name); err != nil || !empty {
			continue // not provably empty: left alone
		}
		if err := s.sess.Exec(ctx, drop); err != nil {
			return err
		}
	}
	return nil
}

// nonceHoldsNothing reads, inside a leftover nonce database, whether
// anything was made in it since its template (ddl.NonceHoldsSomethingQuery).
// A leftover is rare, so the cost of a connection into it is paid rarely;
// the connection is closed again before the drop, which it would block.
func (s *Server) nonceHoldsNothing(ctx context.Context, name string) (bool, error) {
	var n int64
	err := s.sess.QueryIn(ctx, name, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, ddl.NonceHoldsSomethingQuery).Scan(&n)
	})
	s.sess.CloseTenantPool(name)
	return err == nil && n == 0, err
}

// claimError is a claim's CREATE DATABASE refused by the server: its
// statement names the scratch database, so the error names the tenant
// database it was for first.
type claimError struct {
	db, nonce ddl.DatabaseName
	err       error
}

func (e *claimError) Error() string {
	return fmt.Sprintf("create database %q (made first under the scratch name %q, then renamed): %v", e.db, e.nonce, e.err)
}
func (e *claimError) Unwrap() error { return e.err }
