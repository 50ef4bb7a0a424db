// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Half-made owner logins on MySQL 8.0.21+ (ddl/owner_mark_mysql.go): the
// mark is the login's ATTRIBUTE, which names the database by name and, for
// a rotation, the claim mark of the login it took over from (that login's
// identity value). The rules are PostgreSQL's (half_made.go); what differs
// is where the mark is read and what "the login taken over from" is.

// mysqlLoginAttribute is the ATTRIBUTE of mysql.user u's account ("" when
// none): the owner mark's source. Names compare as bytes, as in
// mysqlLoginValue.
const mysqlLoginAttribute = `COALESCE((SELECT a.ATTRIBUTE FROM information_schema.USER_ATTRIBUTES a
    WHERE CAST(a.USER AS BINARY) = CAST(u.User AS BINARY) AND CAST(a.HOST AS BINARY) = CAST(u.Host AS BINARY)), '')`

// marksOwners reports whether the server's owner logins carry a mark
// (ddl.OwnerMark): PostgreSQL, and MySQL 8.0.21+ and MariaDB in the
// ledger.
func (s *Server) marksOwners() bool {
	return s.info.Flavor == ddl.FlavorPostgres || s.UsesLedger()
}

// parseLoginMark reads an owner mark as the server keeps it: a PostgreSQL
// role comment, a MySQL login's ATTRIBUTE.
func parseLoginMark(info ddl.ServerInfo, text string) (ddl.OwnerMark, bool) {
	if info.Flavor == ddl.FlavorPostgres {
		return ddl.ParseOwnerMark(text)
	}
	return ddl.ParseMySQLOwnerMark(text)
}

// mysqlLoginMark reads the owner mark of a MySQL login, directly (a check
// before a write): its proven ledger row (ledger_mysql.go). ok is false
// when it has none (a login an earlier version made, whatever its
// ATTRIBUTE says, or one that does not exist).
func (s *Server) mysqlLoginMark(ctx context.Context, user ddl.Username) (ddl.OwnerMark, bool, error) {
	row, ok, err := s.mysqlProvenRow(ctx, user)
	if err != nil || !ok {
		return ddl.OwnerMark{}, false, err
	}
	mark, ok := row.OwnerMark(s.spec.Engine)
	return mark, ok, nil
}

// mysqlProvenRow reads, directly, the ledger row that proves a MySQL login
// (provenOf: the ledger is the mark; the ATTRIBUTE or the owner limit mark
// corroborates it). ok is false when none does, or the login does not exist.
func (s *Server) mysqlProvenRow(ctx context.Context, user ddl.Username) (ddl.LedgerRow, bool, error) {
	tr, found, err := s.loginTraceOf(ctx, user)
	if err != nil || !found {
		return ddl.LedgerRow{}, false, err
	}
	rows, err := s.ledgerLogin(ctx, user)
	if err != nil {
		return ddl.LedgerRow{}, false, err
	}
	row, ok := ProvenOf(rows, tr)
	return row, ok, nil
}

// loginTraceOf reads, directly, what a login carries beside the ledger
// (loginTrace): MySQL its ATTRIBUTE and per-hour update limit, MariaDB
// its limit alone. found is false when the login does not exist.
func (s *Server) loginTraceOf(ctx context.Context, user ddl.Username) (LoginTrace, bool, error) {
	if s.info.Flavor == ddl.FlavorMariaDB {
		limit, found, err := s.ownerLimit(ctx, user)
		return LoginTrace{Limit: limit, NoAttribute: true}, found, err
	}
	var tr LoginTrace
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT `+mysqlLoginAttribute+`, u.max_updates FROM mysql.user u WHERE u.User = ? AND u.Host = ?`,
			user.String(), user.Host()).Scan(&tr.Attr, &tr.Limit)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return LoginTrace{}, false, nil
	}
	if err != nil {
		return LoginTrace{}, false, s.sess.ReadError("read the mark of login "+user.Quoted(), err)
	}
	return tr, true, nil
}

// ledgerClaimOn is, on MariaDB, the claim of the newest done (or, once
// tenantdb dropped it, dropped) ledger row that records user as db's
// owner: what a rotation from that login names as the login it took over
// from (a MariaDB login's identity is not a claim, as MySQL's is). ""
// when there is none (a login an earlier version made, or made by hand).
// One direct read: checks before a rotation, and a refresh whose recorded
// login is gone.
func (s *Server) ledgerClaimOn(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (string, error) {
	if s.info.Flavor != ddl.FlavorMariaDB {
		return "", nil
	}
	var claim string
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, ddl.LedgerLastClaimOnQuery, user.String(), user.Host(), db.String()).Scan(&claim)
	})
	switch {
	case errors.Is(err, sql.ErrNoRows) || ledgerMissing(err):
		return "", nil
	case err != nil:
		return "", s.sess.ReadError("read the ledger rows of login "+user.Quoted(), err)
	}
	if _, ok := ddl.ParseClaimMark(claim); !ok {
		return "", nil
	}
	return claim, nil
}

// MySQLClaimOf is the claim mark of a MySQL login identity
// (mysql-login:<server_uuid>:tenantdb:<hex>) of server sid: the FromRole
// a rotation from that login writes. "" for any other identity (another
// server's, an unmarked principal's).
func MySQLClaimOf(id Identity, sid string) string {
	v, ok := strings.CutPrefix(string(id), "mysql-login:"+sid+":")
	if !ok {
		return ""
	}
	if _, ok := ddl.ParseClaimMark(v); !ok {
		return ""
	}
	return v
}

// MySQLHalfMadeRotations lists, from the refresh snapshots, the logins
// whose mark says a rotation of db's owner from the login with claim
// mark from made them (open, or done while that login still exists: the
// rotation was killed before it dropped the old one). owner, the login
// being refreshed, is never among them.
func (s *Server) MySQLHalfMadeRotations(ctx context.Context, db ddl.DatabaseName, owner ddl.Username, from string) ([]HalfMadeLogin, error) {
	if from == "" {
		return nil, nil
	}
	return s.loginsMarkedFrom(ctx, db, "", from, owner.Account())
}

// mysqlRotationSuccessor is RotationSuccessor on MySQL: the login whose
// done mark names db and, as the login it took over from, the recorded
// login's claim mark (from). A MySQL database has no owner to start from,
// so the snapshot's marks are searched; more than one such login (never
// made by one resource) is none.
func (s *Server) mysqlRotationSuccessor(db ddl.DatabaseName, from string) *ddl.Username {
	var found []string
	marks, _ := s.snapshotMarks()
	for name, m := range marks {
		if m.Database == db && m.FromRole == from && m.Finished {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return nil
	}
	u, err := ddl.ParseAccountKey(s.spec.Engine, found[0])
	if err != nil {
		return nil // not a name tenantdb makes: not ours
	}
	return &u
}
