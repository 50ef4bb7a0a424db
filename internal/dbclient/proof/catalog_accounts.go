// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"fmt"
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
	marks    map[string]ddl.OwnerMark // PostgreSQL, MySQL 8.0.21+, MariaDB: login → its owner mark, for logins that carry one
	claims   map[string]string        // MariaDB: login → the claim of its proven ledger row (MySQL's is its identity value)
	hints    map[string]bool          // MySQL 8.0.21+: logins whose identity value is an ATTRIBUTE the ledger does not back
	limits   map[string]int64         // login → its stored connection limit (rolconnlimit, max_user_connections), read in the same query
	locked   map[string]bool          // PostgreSQL: logins that may not log in (NOLOGIN), read in the same query

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
		l, err := s.loadLogins(ctx)
		if err != nil {
			return "", false, s.sess.ReadError("read the logins", err)
		}
		a.logins, a.marks, a.hints, a.claims, a.limits, a.locked, a.loginsAt = l.values, l.marks, l.hints, l.claims, l.limits, l.locked, time.Now()
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

// SnapshotConnectionLimit is user's stored connection limit as the
// snapshot read it (ddl.ConnectionLimitFromServer); read after
// snapshotLoginValue, so a refresh costs no query of its own.
func (s *Server) SnapshotConnectionLimit(user ddl.Username) int64 {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.limits[user.Account()]
}

// SnapshotLockedOut reports whether the snapshot read user as a login that
// may not log in (PostgreSQL NOLOGIN, an offboarding's lock-out); read
// after snapshotLoginValue, so a refresh costs no query of its own.
func (s *Server) SnapshotLockedOut(user ddl.Username) bool {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.locked[user.Account()]
}

// SnapshotClaim is the claim of user's proven ledger row (MariaDB; ""
// for none); read after snapshotLoginValue.
func (s *Server) SnapshotClaim(user ddl.Username) string {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.claims[user.Account()]
}

// snapshotMarks returns the logins snapshot's owner marks and identity
// values (PostgreSQL; loaded by snapshotLoginValue, read-only after).
func (s *Server) snapshotMarks() (marks map[string]ddl.OwnerMark, logins map[string]string) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accounts.marks, c.accounts.logins
}

// loginsRead is what loadLogins reads: every login's identity value, and
// the owner marks, hints and ledger claims beside them (accountsSnapshot).
type loginsRead struct {
	values map[string]string
	marks  map[string]ddl.OwnerMark
	hints  map[string]bool
	claims map[string]string
	limits map[string]int64
	locked map[string]bool
}

func (s *Server) loadLogins(ctx context.Context) (loginsRead, error) {
	var q string
	switch {
	case s.info.Flavor == ddl.FlavorPostgres:
		// The comment of a role is its owner mark when it has one (see
		// ddl.OwnerMark): the refresh finds half-made rotations with it.
		q = `SELECT rolname, oid::text, COALESCE(shobj_description(oid, 'pg_authid'), ''), rolconnlimit, NOT rolcanlogin FROM pg_roles`
	case s.info.Flavor == ddl.FlavorMariaDB:
		// The per-hour update limit corroborates the ledger's rows
		// (ledger_mysql.go); only these JSON fields leave the server.
		q = `SELECT User, Host, COALESCE(JSON_VALUE(Priv, '$.password_last_changed'), ''), '', ` +
			`COALESCE(JSON_VALUE(Priv, '$.max_updates'), '0'), COALESCE(JSON_VALUE(Priv, '$.max_user_connections'), '0') FROM mysql.global_priv`
	case ddl.StoresLoginMark(s.info):
		// The ledger holds the owner marks; the login's ATTRIBUTE is a
		// hint beside it (ledger_mysql.go).
		q = `SELECT u.User, u.Host, ` + mysqlLoginValue + `, ` + mysqlLoginAttribute + `, u.max_updates, u.max_user_connections FROM mysql.user u`
	default:
		q = `SELECT User, Host, '', max_user_connections FROM mysql.user`
	}
	ledger, err := s.loadLedgerLogins(ctx)
	if err != nil {
		return loginsRead{}, err
	}
	r := loginsRead{values: map[string]string{}, marks: map[string]ddl.OwnerMark{}, hints: map[string]bool{}, claims: map[string]string{},
		limits: map[string]int64{}, locked: map[string]bool{}}
	err = s.queryEach(ctx, q, func() {
		clear(r.values)
		clear(r.marks)
		clear(r.hints)
		clear(r.claims)
		clear(r.limits)
		clear(r.locked)
	}, func(rows *sql.Rows) error {
		// Every host's accounts, keyed by ddl.AccountKey: 'u'@'10.%' is
		// another login than 'u'@'%' (issue 46).
		var name, host, v, comment string
		var limit uint64
		var connLimit int64
		dest := []any{&name, &v}
		if s.info.Flavor != ddl.FlavorPostgres {
			dest = []any{&name, &host, &v}
		}
		marked := s.info.Flavor == ddl.FlavorPostgres || s.UsesLedger()
		if marked {
			dest = append(dest, &comment)
		}
		if s.UsesLedger() {
			dest = append(dest, &limit)
		}
		var locked bool
		dest = append(dest, &connLimit)
		if s.info.Flavor == ddl.FlavorPostgres {
			dest = append(dest, &locked)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		name = ddl.AccountKey(name, host)
		r.limits[name] = connLimit
		if locked {
			r.locked[name] = true
		}
		if s.UsesLedger() {
			rows, tr := ledger[name], LoginTrace{Attr: comment, Limit: limit, NoAttribute: s.info.Flavor == ddl.FlavorMariaDB}
			r.values[name] = v
			if ddl.StoresLoginMark(s.info) {
				// MySQL: the proven claim is the identity value.
				r.values[name], r.hints[name] = LoginValueOf(rows, v, tr)
			}
			if row, ok := ProvenOf(rows, tr); ok {
				r.claims[name] = row.Claim
				if m, ok := row.OwnerMark(s.spec.Engine); ok {
					r.marks[name] = m
				}
			}
			return nil
		}
		r.values[name] = v
		if m, ok := parseLoginMark(s.info, comment); marked && ok {
			r.marks[name] = m
		}
		return nil
	})
	return r, err
}

// SnapshotGrantRow serves one mysql.db row's values from the snapshot;
// nil when the row does not exist.
func (s *Server) SnapshotGrantRow(ctx context.Context, names []string, user ddl.Username, pattern string) ([]string, error) {
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

// SnapshotDatabaseACL serves the principal's database privileges from the
// accounts snapshot, loading every database's ACL in one query.
func (s *Server) SnapshotDatabaseACL(ctx context.Context, db ddl.DatabaseName, user ddl.Username) ([]ddl.Privilege, error) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	a := &c.accounts
	if a.acls == nil || time.Since(a.aclsAt) > catalogTTL {
		acls := map[[2]string][]string{}
		err := s.queryEach(ctx, `SELECT d.datname, pg_get_userbyid(a.grantee), a.privilege_type
FROM pg_database d, aclexplode(d.datacl) a WHERE a.grantee <> 0`, func() { clear(acls) }, func(rows *sql.Rows) error {
			var dbName, role, priv string
			if err := rows.Scan(&dbName, &role, &priv); err != nil {
				return err
			}
			k := [2]string{dbName, role}
			acls[k] = append(acls[k], priv)
			return nil
		})
		if err != nil {
			return nil, s.sess.ReadError(fmt.Sprintf("read the database privileges of %s", user), err)
		}
		a.acls, a.aclsAt = acls, time.Now()
	}
	var out []ddl.Privilege
	for _, p := range a.acls[[2]string{db.String(), user.String()}] {
		out = append(out, ddl.NormalizePrivilege(p))
	}
	return out, nil
}
