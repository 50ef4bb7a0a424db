// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The accounts snapshot does for refreshes of owners and grants what the
// database snapshot does for databases: one query lists every login with
// the value its identity is made of, and (MySQL/MariaDB) one query reads
// every database-level grant row, so a refresh of N owners and grants
// costs two queries instead of 2N. Only refresh reads (Owner, ReadGrant)
// use it; every check before an alter or a drop reads the server directly.
// Any statement this process runs drops the whole snapshot: a write is
// never hidden, and a no-op plan or apply (no statements) keeps it.
type accountsSnapshot struct {
	loginsAt time.Time
	logins   map[string]string        // login (ddl.AccountKey: name, or name@host on MySQL/MariaDB) → LoginIdentity's raw value
	marks    map[string]ddl.OwnerMark // PostgreSQL, MySQL 8.0.21+: login → its owner mark, for logins that carry one
	hints    map[string]bool          // MySQL 8.0.21+: logins whose identity value is an ATTRIBUTE the ledger does not back

	grantsAt time.Time
	grants   map[[2]string][]string // MySQL: (account key, Db pattern) → mysql.db values, columns as mysqlDBColumns

	aclsAt time.Time
	acls   map[[2]string][]string // PostgreSQL, shallow grant refresh: (database, role) → its database privileges
}

// invalidateAccounts drops the accounts snapshot (after any statement).
func (s *Server) invalidateAccounts() {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts = accountsSnapshot{}
}

// snapshotLoginValue serves LoginIdentity's raw value from the snapshot,
// loading it when missing or expired.
func (s *Server) snapshotLoginValue(ctx context.Context, user ddl.Username) (string, bool, error) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &c.accounts
	if a.logins == nil || time.Since(a.loginsAt) > catalogTTL {
		logins, marks, hints, err := s.loadLogins(ctx)
		if err != nil {
			return "", false, s.readError("read the logins", err)
		}
		a.logins, a.marks, a.hints, a.loginsAt = logins, marks, hints, time.Now()
	}
	v, found := a.logins[user.Account()]
	return v, found, nil
}

// snapshotHint reports whether the snapshot's identity value of user is
// only a hint (loginValueOf); read after snapshotLoginValue.
func (s *Server) snapshotHint(user ddl.Username) bool {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.hints[user.Account()]
}

// snapshotMarks returns the logins snapshot's owner marks and identity
// values (PostgreSQL; loaded by snapshotLoginValue, read-only after).
func (s *Server) snapshotMarks() (marks map[string]ddl.OwnerMark, logins map[string]string) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.marks, c.accounts.logins
}

func (s *Server) loadLogins(ctx context.Context) (map[string]string, map[string]ddl.OwnerMark, map[string]bool, error) {
	var q string
	switch {
	case s.info.Flavor == ddl.FlavorPostgres:
		// The comment of a role is its owner mark when it has one (see
		// ddl.OwnerMark): the refresh finds half-made rotations with it.
		q = `SELECT rolname, oid::text, COALESCE(shobj_description(oid, 'pg_authid'), '') FROM pg_roles`
	case s.info.Flavor == ddl.FlavorMariaDB:
		q = `SELECT User, Host, COALESCE(JSON_VALUE(Priv, '$.password_last_changed'), '') FROM mysql.global_priv`
	case ddl.StoresLoginMark(s.info):
		// The ledger holds the owner marks; the login's ATTRIBUTE is a
		// hint beside it (ledger_mysql.go).
		q = `SELECT u.User, u.Host, ` + mysqlLoginValue + `, ` + mysqlLoginAttribute + `, u.max_updates FROM mysql.user u`
	default:
		q = `SELECT User, Host, '' FROM mysql.user`
	}
	ledger, err := s.loadLedgerLogins(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	out, marks, hints := map[string]string{}, map[string]ddl.OwnerMark{}, map[string]bool{}
	err = s.queryEach(ctx, q, func() { clear(out); clear(marks); clear(hints) }, func(rows *sql.Rows) error {
		// Every host's accounts, keyed by ddl.AccountKey: 'u'@'10.%' is
		// another login than 'u'@'%' (issue 46).
		var name, host, v, comment string
		var limit uint64
		dest := []any{&name, &v}
		if s.info.Flavor != ddl.FlavorPostgres {
			dest = []any{&name, &host, &v}
		}
		marked := s.info.Flavor == ddl.FlavorPostgres || ddl.StoresLoginMark(s.info)
		if marked {
			dest = append(dest, &comment)
		}
		if s.usesLedger() {
			dest = append(dest, &limit)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		name = ddl.AccountKey(name, host)
		if s.usesLedger() {
			rows, tr := ledger[name], loginTrace{attr: comment, limit: limit}
			out[name], hints[name] = loginValueOf(rows, v, tr)
			if m, ok := s.ledgerMark(rows, tr); ok {
				marks[name] = m
			}
			return nil
		}
		out[name] = v
		if m, ok := parseLoginMark(s.info, comment); marked && ok {
			marks[name] = m
		}
		return nil
	})
	return out, marks, hints, err
}

// snapshotGrantRow serves one mysql.db row's values from the snapshot;
// nil when the row does not exist.
func (s *Server) snapshotGrantRow(ctx context.Context, names []string, user ddl.Username, pattern string) ([]string, error) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &c.accounts
	if a.grants == nil || time.Since(a.grantsAt) > catalogTTL {
		grants, err := s.loadGrantRows(ctx, names)
		if err != nil {
			return nil, err
		}
		a.grants, a.grantsAt = grants, time.Now()
	}
	return a.grants[[2]string{user.Account(), pattern}], nil
}

func (s *Server) loadGrantRows(ctx context.Context, names []string) (map[[2]string][]string, error) {
	// Column names come from ddl's fixed catalog, never from input.
	q := "SELECT User, Host, Db, " + strings.Join(names, ", ") + " FROM mysql.db"
	out := map[[2]string][]string{}
	err := s.queryEach(ctx, q, func() { clear(out) }, func(rows *sql.Rows) error {
		var user, host, pattern string
		vals := make([]string, len(names))
		ptrs := []any{&user, &host, &pattern}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		out[[2]string{ddl.AccountKey(user, host), pattern}] = vals
		return nil
	})
	return out, err
}
