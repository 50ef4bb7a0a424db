// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The ledger (ddl/ledger_mysql.go, PROOFS.md) on MySQL 8.0.21+ and
// MariaDB: the owner logins tenantdb made, written by the admin before
// each CREATE USER. A server without it (nothing made since this version;
// the admin reads it with its global SELECT) reads as an empty ledger:
// logins made by earlier versions fall back to what proved them before
// (MySQL: their ATTRIBUTE, as a hint, loginValueOf; MariaDB: the owner
// limit mark, ownerMarkOn).

// UsesLedger reports whether owner claims on this server are recorded in
// the ledger.
func (s *Server) UsesLedger() bool { return ddl.UsesLedger(s.info) }

// ledgerMissing reports a read of a ledger that does not exist yet.
func ledgerMissing(err error) bool {
	c := session.CodeOf(err)
	return c == "mysql:1049" || c == "mysql:1146"
}

// LedgerOpen writes the open row of an owner login's claim, creating the
// ledger the first time this process needs it. It runs before the CREATE
// USER it records; a failure stops the claim before anything is made.
func (s *Server) LedgerOpen(ctx context.Context, claim ddl.ClaimMark, user ddl.Username, db ddl.DatabaseName, from string, privs ddl.PrivilegeSet) error {
	if !s.UsesLedger() {
		return nil
	}
	return s.ledgerWrite(ctx, ddl.Plan{Statements: []ddl.Statement{ddl.LedgerOpenLogin(claim, user, db, from, privs),
		ddl.LedgerRecordGrant(user, db, ddl.GrantedPrivileges(s.info, privs.Expand(s.info)))}})
}

// ledgerWrite runs plan, a write to the ledger, making the ledger the
// first time this process needs it (and again if it was dropped since).
func (s *Server) ledgerWrite(ctx context.Context, plan ddl.Plan) error {
	s.catalog.mu.Lock()
	ready := s.catalog.ledgerReady
	s.catalog.mu.Unlock()
	if !ready {
		if err := s.ensureLedger(ctx); err != nil {
			return err
		}
	}
	err := s.sess.Exec(ctx, plan)
	if ready && ledgerMissing(err) {
		// Dropped since this process made sure of it: make it again.
		if err = s.ensureLedger(ctx); err == nil {
			err = s.sess.Exec(ctx, plan)
		}
	}
	if err != nil {
		return err
	}
	s.catalog.mu.Lock()
	s.catalog.ledgerReady = true
	s.catalog.mu.Unlock()
	return nil
}

// ensureLedger makes the ledger, or brings one an earlier version made up
// to date (its host column, issue 46), in place: idempotent, and run by
// the admin before the first ledger write of a process.
func (s *Server) ensureLedger(ctx context.Context) error {
	if err := s.sess.Exec(ctx, ddl.EnsureLedger()); err != nil {
		return err
	}
	var n int
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, ddl.LedgerHostColumnQuery).Scan(&n)
	})
	if err != nil {
		return s.sess.ReadError("read the ledger's columns", err)
	}
	if n > 0 {
		return nil
	}
	if err := s.sess.Exec(ctx, ddl.UpgradeLedger()); err != nil && session.CodeOf(err) != "mysql:1060" {
		return err // 1060: another process added the column first
	}
	return nil
}

// ledgerV1 reports a read of a ledger an earlier version made, without
// the host column (unknown column, 1054): read again as ledger V1.
func ledgerV1(err error) bool { return session.CodeOf(err) == "mysql:1054" }

// LoginExistsBeforeClaim reads, on a server with the ledger, whether an
// owner claim's login exists already: the claim then writes nothing (no
// ledger row, no CREATE USER) and the login is judged by what proves it
// (finishHalfMade). Elsewhere false: the CREATE USER itself is the check.
// The CREATE USER stays a claim (no IF NOT EXISTS) for a login made in
// between.
func (s *Server) LoginExistsBeforeClaim(ctx context.Context, user ddl.Username) (bool, error) {
	if !s.UsesLedger() {
		return false, nil
	}
	_, found, err := s.LoginIdentity(ctx, user)
	return found, err
}

// LedgerSet moves claim's row to status.
func (s *Server) LedgerSet(ctx context.Context, claim ddl.ClaimMark, status string) error {
	if !s.UsesLedger() || claim.IsZero() {
		return nil
	}
	return s.sess.Exec(ctx, ddl.Plan{Statements: []ddl.Statement{ddl.LedgerSetStatus(claim, status)}})
}

// ledgerDropped records that tenantdb dropped user.
func (s *Server) ledgerDropped(ctx context.Context, user ddl.Username) error {
	if !s.UsesLedger() {
		return nil
	}
	dropped := ddl.Plan{Statements: []ddl.Statement{ddl.LedgerLoginDropped(user), ddl.LedgerGrantsDropped(user)}}
	err := s.sess.Exec(ctx, dropped)
	if ledgerMissing(err) {
		return nil // made by an earlier version: nothing recorded
	}
	if ledgerV1(err) {
		// A ledger an earlier version made: upgrade it (its rows are '%').
		if err = s.ensureLedger(ctx); err == nil {
			err = s.sess.Exec(ctx, dropped)
		}
	}
	return err
}

// ledgerLogin reads user's live ledger rows (at its host), newest first,
// directly.
func (s *Server) ledgerLogin(ctx context.Context, user ddl.Username) ([]ddl.LedgerRow, error) {
	if !s.UsesLedger() {
		return nil, nil
	}
	rows, err := s.ledgerLoginRows(ctx, ddl.LedgerLoginQuery, user)
	if ledgerV1(err) {
		rows, err = s.ledgerLoginRows(ctx, ddl.LedgerLoginQueryV1, user)
	}
	switch {
	case ledgerMissing(err):
		return nil, nil
	case err != nil:
		return nil, s.sess.ReadError("read the ledger rows of login "+user.Quoted(), err)
	}
	return rows, nil
}

func (s *Server) ledgerLoginRows(ctx context.Context, query string, user ddl.Username) ([]ddl.LedgerRow, error) {
	var rows []ddl.LedgerRow
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		rows = nil
		rs, err := q.QueryContext(ctx, query, user.String(), user.Host())
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var object, host string
			var r ddl.LedgerRow
			if err := rs.Scan(&object, &host, &r.Claim, &r.Database, &r.From, &r.Status); err != nil {
				return err
			}
			rows = append(rows, r)
		}
		return rs.Err()
	})
	return rows, err
}

// loadLedgerLogins reads every login's live ledger rows, newest first (the
// accounts snapshot: one query per server), keyed by ddl.AccountKey.
func (s *Server) loadLedgerLogins(ctx context.Context) (map[string][]ddl.LedgerRow, error) {
	out := map[string][]ddl.LedgerRow{}
	if !s.UsesLedger() {
		return out, nil
	}
	read := func(query string) error {
		return s.queryEach(ctx, query, func() { clear(out) }, func(rows *sql.Rows) error {
			var object, host string
			var r ddl.LedgerRow
			if err := rows.Scan(&object, &host, &r.Claim, &r.Database, &r.From, &r.Status); err != nil {
				return err
			}
			k := ddl.AccountKey(object, host)
			out[k] = append(out[k], r)
			return nil
		})
	}
	err := read(ddl.LedgerLoginsQuery)
	if ledgerV1(err) {
		err = read(ddl.LedgerLoginsQueryV1)
	}
	if ledgerMissing(err) {
		return map[string][]ddl.LedgerRow{}, nil
	}
	return out, err
}

// LoginTrace is what a MySQL login carries beside the ledger: its
// ATTRIBUTE (which the login may rewrite) and its per-hour update limit
// (the owner limit mark, which only an account with CREATE USER can set).
type LoginTrace struct {
	Attr  string
	Limit uint64
	// noAttribute: the server keeps no ATTRIBUTE on an account (MariaDB),
	// so an open row is corroborated by the owner limit mark of the row's
	// database instead (provenRow).
	NoAttribute bool
}

// ProvenOf is the newest of a login's live rows (newest first) that
// proves the login (provenRow): an open row whose CREATE USER never ran (a
// kill right after it) stays behind an older proven one.
func ProvenOf(rows []ddl.LedgerRow, tr LoginTrace) (ddl.LedgerRow, bool) {
	for _, r := range rows {
		if ProvenRow(r, tr) {
			return r, true
		}
	}
	return ddl.LedgerRow{}, false
}

// ProvenRow reports whether a ledger row proves the login with trace tr.
// An open row: only when the ATTRIBUTE carries its claim, which no one but
// tenantdb's CREATE USER could have written there before the login existed
// (the row is written before the CREATE USER, which may never have run).
// A done row: when the ATTRIBUTE carries its claim, or the login carries
// the owner limit mark of the row's database (admin-only: so the login
// rewriting its ATTRIBUTE changes nothing, issue 43 item 2, while a login
// a DBA dropped and made again by hand, which has neither, is not taken
// for the one the row records).
//
// MariaDB keeps no ATTRIBUTE: there an open row is proven, like a done
// one, by the owner limit mark of the row's database. The limit says "an
// account with CREATE USER made this login for a database of that hash"
// (the login cannot set its own limits, a grant never sets one); the
// admin-only row of this claim says which database. What remains is the
// window README's "MariaDB identities" gives: a login an admin re-made by
// hand with the same limit reads as the recorded one.
func ProvenRow(r ddl.LedgerRow, tr LoginTrace) bool {
	if !tr.NoAttribute && ddl.MySQLAttributeClaim(tr.Attr) == r.Claim {
		return r.Status == ddl.LedgerDone || r.Status == ddl.LedgerOpen
	}
	if r.Status != ddl.LedgerDone && !(tr.NoAttribute && r.Status == ddl.LedgerOpen) {
		return false
	}
	db, err := ddl.NewDatabaseName(ddl.EngineMySQL, r.Database)
	return err == nil && tr.Limit == ddl.OwnerLimitMark(db)
}

// LoginValueOf is a MySQL 8.0.21+ login's identity value: the claim of
// its proven ledger row (provenOf); without one, what the catalog read
// gives (the ATTRIBUTE's claim of a login an earlier version made, a hint;
// or "@" and the time its password was set). hint is true when the value
// is an ATTRIBUTE's claim the ledger does not back.
func LoginValueOf(rows []ddl.LedgerRow, catalogValue string, tr LoginTrace) (v string, hint bool) {
	if r, ok := ProvenOf(rows, tr); ok {
		return r.Claim, false
	}
	_, isClaim := ddl.ParseClaimMark(catalogValue)
	return catalogValue, isClaim
}

// ExecLoginDrop runs a login's drop and records it in the ledger.
func (s *Server) ExecLoginDrop(ctx context.Context, user ddl.Username, drop ddl.Plan) error {
	if err := s.sess.Exec(ctx, drop); err != nil {
		return err
	}
	return s.ledgerDropped(ctx, user)
}

// ledgerFinishAdopted marks done the open row of a half-made login that
// finishHalfMade adopted.
func (s *Server) ledgerFinishAdopted(ctx context.Context, user ddl.Username) error {
	if !s.UsesLedger() {
		return nil
	}
	row, ok, err := s.mysqlProvenRow(ctx, user)
	if err != nil || !ok || row.Status != ddl.LedgerOpen {
		return err
	}
	claim, ok := ddl.ParseClaimMark(row.Claim)
	if !ok {
		return nil
	}
	return s.LedgerSet(ctx, claim, ddl.LedgerDone)
}

// RecordEarlierLogin writes the ledger row of an owner login an earlier
// version made (it has none): under the tenant's lock, and only while the
// login's ATTRIBUTE still names the claim recorded in state (128 random
// bits only tenantdb's CREATE USER and the login itself ever saw). A login
// that is gone, already has a row, or no longer reads as recorded is left
// as it is: the refresh says what it is.
func (s *Server) RecordEarlierLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, privs ddl.PrivilegeSet, recorded Identity) error {
	if !s.UsesLedger() {
		return nil
	}
	return s.WithLock(ctx, db, func(ctx context.Context) error {
		id, hint, found, err := s.LoginIdentityHint(ctx, user, false)
		if err != nil || !found || !hint || id != recorded {
			return err
		}
		sid, err := s.ServerID(ctx)
		if err != nil {
			return err
		}
		claim, ok := ddl.ParseClaimMark(MySQLClaimOf(recorded, sid))
		if !ok {
			return nil
		}
		if err := s.LedgerOpen(ctx, claim, user, db, "", privs); err != nil {
			return err
		}
		return s.LedgerSet(ctx, claim, ddl.LedgerDone)
	})
}
