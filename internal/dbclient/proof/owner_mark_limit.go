// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Which login owns a MySQL/MariaDB tenant database. On a server with the
// ledger (MySQL 8.0.21+, MariaDB) it is the login whose proven ledger row
// (ledger_mysql.go) names the database: the admin-only row says which
// database, and the owner limit mark (ddl.OwnerLimitMark, a per-hour
// update limit set by the owner's CREATE USER) only corroborates it. The
// mark alone names the database by a 28-bit hash, which collides across a
// fleet (t07436 and t26322 share one), so it is proof of *which* database
// only for a login with no ledger row: an owner made by an earlier
// version keeps the proof it had (and the window of a collision). What a
// login holds on the database says nothing about it: a grant of ALL
// PRIVILEGES holds what an owner holds, and an owner may hold less.

// ownerLimit reads the per-hour update limit of user (at its host); found
// is false when there is no such account. Read directly: it decides
// refusals before statements.
func (s *Server) ownerLimit(ctx context.Context, user ddl.Username) (limit uint64, found bool, err error) {
	q := `SELECT max_updates FROM mysql.user WHERE User = ? AND Host = ?`
	if s.info.Flavor == ddl.FlavorMariaDB {
		// Only one JSON field leaves the server: never the hash.
		q = `SELECT COALESCE(JSON_VALUE(Priv, '$.max_updates'), '0') FROM mysql.global_priv WHERE User = ? AND Host = ?`
	}
	var v string
	err = s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		return db.QueryRowContext(ctx, q, user.String(), user.Host()).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, s.sess.ReadError("read the owner mark of login "+user.String(), err)
	}
	limit, _ = strconv.ParseUint(v, 10, 64) // not a number: no mark
	return limit, true, nil
}

// OwnerMarkOn says what user's marks say about db (MySQL/MariaDB):
// ownsDB, it is db's owner; marked, it is some database's. A login with a
// proven ledger row is the owner of that row's database and no other's;
// one without (made by an earlier version, or by hand) is judged by its
// owner limit mark alone, as before the ledger. Read directly: it decides
// refusals before statements.
func (s *Server) OwnerMarkOn(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (ownsDB, marked bool, err error) {
	if s.UsesLedger() {
		tr, found, err := s.loginTraceOf(ctx, user)
		if err != nil || !found {
			return false, false, err
		}
		rows, err := s.ledgerLogin(ctx, user)
		if err != nil {
			return false, false, err
		}
		if r, ok := ProvenOf(rows, tr); ok {
			return r.Database == db.String(), true, nil
		}
		return LimitMarks(tr.Limit, db)
	}
	limit, found, err := s.ownerLimit(ctx, user)
	if err != nil || !found {
		return false, false, err
	}
	return LimitMarks(limit, db)
}

// LimitMarks is what an owner limit mark alone says about db.
func LimitMarks(limit uint64, db ddl.DatabaseName) (ownsDB, marked bool, err error) {
	return limit == ddl.OwnerLimitMark(db), ddl.IsOwnerLimitMark(limit), nil
}
