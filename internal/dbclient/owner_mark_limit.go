// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Which login owns a MySQL/MariaDB tenant database: the one carrying the
// database's owner mark (ddl.OwnerLimitMark, a per-hour update limit set by
// the owner's CREATE USER; see ddl/owner_limit_mark.go for why it cannot
// be forged by the tenant nor acquired by a grantee). What a login holds on
// the database says nothing about it: a grant of ALL PRIVILEGES holds what
// an owner holds, and an owner may hold less.

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
	err = s.query(ctx, func(ctx context.Context, db queryer) error {
		return db.QueryRowContext(ctx, q, user.String(), user.Host()).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, s.readError("read the owner mark of login "+user.String(), err)
	}
	limit, _ = strconv.ParseUint(v, 10, 64) // not a number: no mark
	return limit, true, nil
}

// ownerMarkOn says what user's mark says about db (MySQL/MariaDB):
// ownsDB, it carries db's owner mark; marked, it carries some database's.
func (s *Server) ownerMarkOn(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (ownsDB, marked bool, err error) {
	limit, found, err := s.ownerLimit(ctx, user)
	if err != nil || !found {
		return false, false, err
	}
	return limit == ddl.OwnerLimitMark(db), ddl.IsOwnerLimitMark(limit), nil
}
