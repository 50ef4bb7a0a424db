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

// LoginIdentity reads a login's identity from the server; found is false
// when it does not exist.
func (s *Server) LoginIdentity(ctx context.Context, user ddl.Username) (Identity, bool, error) {
	return s.loginIdentity(ctx, user, false)
}

// loginIdentity reads a login's identity, from the accounts snapshot when
// fromSnapshot (refreshes only; checks before writes read directly).
func (s *Server) loginIdentity(ctx context.Context, user ddl.Username, fromSnapshot bool) (Identity, bool, error) {
	id, _, found, err := s.LoginIdentityHint(ctx, user, fromSnapshot)
	return id, found, err
}

// LoginIdentityHint is loginIdentity that also says whether the identity
// is only a hint (a MySQL ATTRIBUTE the ledger does not back): a hint
// that differs from the recorded identity is Unproven, never Replaced.
func (s *Server) LoginIdentityHint(ctx context.Context, user ddl.Username, fromSnapshot bool) (Identity, bool, bool, error) {
	sid, err := s.ServerID(ctx)
	if err != nil {
		return "", false, false, err
	}
	var v string
	var found, hint bool
	if fromSnapshot {
		v, found, err = s.snapshotLoginValue(ctx, user)
		hint = s.snapshotHint(user)
	} else {
		v, hint, found, err = s.loginValue(ctx, user)
	}
	if err != nil || !found {
		return "", false, false, err
	}
	switch s.info.Flavor {
	case ddl.FlavorPostgres:
		return Identity("pg:" + sid + ":" + v), false, true, nil
	case ddl.FlavorMariaDB:
		return Identity("mariadb-login:" + v), false, true, nil
	}
	return Identity("mysql-login:" + sid + ":" + v), hint, true, nil
}

// mysqlLoginValue is a MySQL 8.0.21+ login's identity value, from mysql.user
// u: its tenantdb ATTRIBUTE mark, or, without one, "@" and the time its
// password was last set. Names compare as bytes (the two tables' collations
// differ, and account names are case-sensitive).
const mysqlLoginValue = `COALESCE((SELECT JSON_UNQUOTE(JSON_EXTRACT(a.ATTRIBUTE, '$.tenantdb'))
    FROM information_schema.USER_ATTRIBUTES a
    WHERE CAST(a.USER AS BINARY) = CAST(u.User AS BINARY) AND CAST(a.HOST AS BINARY) = CAST(u.Host AS BINARY)),
  CONCAT('@', COALESCE(UNIX_TIMESTAMP(u.password_last_changed), 0)))`

// loginValue reads the one value a login's identity is made of; hint is
// true when it is a MySQL ATTRIBUTE's claim the ledger does not back
// (loginValueOf).
func (s *Server) loginValue(ctx context.Context, user ddl.Username) (v string, hint, found bool, err error) {
	var tr LoginTrace
	err = s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		switch s.info.Flavor {
		case ddl.FlavorPostgres:
			return db.QueryRowContext(ctx, `SELECT oid::text FROM pg_roles WHERE rolname = $1`, user.String()).Scan(&v)
		case ddl.FlavorMariaDB:
			// Only one JSON field leaves the server: never the hash.
			return db.QueryRowContext(ctx, `SELECT COALESCE(JSON_VALUE(Priv, '$.password_last_changed'), '') FROM mysql.global_priv WHERE User = ? AND Host = ?`,
				user.String(), user.Host()).Scan(&v)
		}
		if !ddl.StoresLoginMark(s.info) {
			return db.QueryRowContext(ctx, `SELECT '' FROM mysql.user WHERE User = ? AND Host = ?`, user.String(), user.Host()).Scan(&v)
		}
		return db.QueryRowContext(ctx, `SELECT `+mysqlLoginValue+`, `+mysqlLoginAttribute+`, u.max_updates FROM mysql.user u WHERE u.User = ? AND u.Host = ?`,
			user.String(), user.Host()).Scan(&v, &tr.Attr, &tr.Limit)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, false, nil
	}
	if err != nil {
		return "", false, false, s.sess.ReadError("read login "+user.String(), err)
	}
	if ddl.StoresLoginMark(s.info) {
		// MySQL: the proven ledger claim is the identity (MariaDB keeps
		// the time its password was set; the ledger proves the owner).
		rows, err := s.ledgerLogin(ctx, user)
		if err != nil {
			return "", false, false, err
		}
		v, hint = LoginValueOf(rows, v, tr)
	}
	return v, hint, true, nil
}

// CheckLogin compares a login with its recorded identity.
func (s *Server) CheckLogin(ctx context.Context, user ddl.Username, recorded Identity) (Check, error) {
	id, hint, found, err := s.LoginIdentityHint(ctx, user, false)
	if err != nil || !found {
		return Check{}, err
	}
	return Check{Found: true, Identity: id, Verdict: HintedVerdict(CompareLogins(recorded, id), hint)}, nil
}

// HintedVerdict is a login verdict read from a hint (an ATTRIBUTE the
// login may rewrite): it never proves another login (Replaced becomes
// Unproven: kept, never altered or dropped, revoked on destroy).
func HintedVerdict(v Verdict, hint bool) Verdict {
	if hint && v == Replaced {
		return Unproven
	}
	return v
}

// LoginUnprovenWhy explains an Unproven login (MariaDB): its identity is
// the time its password was last set, and the login itself may set it.
const LoginUnprovenWhy = "Its password was set since this resource last set it: by the login itself (any MariaDB " +
	"login may change its own password), by an administrator, or because it was dropped and re-created outside " +
	"Terraform. MariaDB keeps nothing else on an account that tells these apart, so nothing proves it is the login " +
	"this resource created."

// CompareLogins is Compare for login identities. A MariaDB login's
// identity is the time its password was last set, which the login itself
// may change: a difference is Unproven, never proof of another login.
func CompareLogins(recorded, got Identity) Verdict {
	if recorded == got {
		return Same
	}
	rk, _, _ := strings.Cut(string(recorded), ":")
	gk, _, _ := strings.Cut(string(got), ":")
	if rk == "mysql-login" && gk == rk {
		r := strings.SplitN(string(recorded), ":", 3)
		g := strings.SplitN(string(got), ":", 3)
		if len(r) != 3 || len(g) != 3 || r[1] != g[1] {
			return OtherServer
		}
		switch _, gTime := strings.CutPrefix(g[2], "@"); {
		case gTime && strings.HasPrefix(r[2], "@"):
			return Unproven // an unmarked principal's password was set since (maybe by itself)
		case gTime && r[2] == "":
			return Same // recorded by an earlier version, which kept the server only
		}
		return Replaced
	}
	if rk == "mariadb-login" && gk == rk {
		return Unproven
	}
	return Compare(recorded, got)
}

// HalfMadeLogin is one login an interrupted rotation left.
type HalfMadeLogin struct {
	Name     string
	Identity Identity
}

// AccountsOnName lists the accounts (ddl.AccountKey: 'u'@'10.%' is
// "u@10.%") other than the admin's user (at any host) and except that hold
// a privilege row on db's name (MySQL/MariaDB), sorted.
func (s *Server) AccountsOnName(ctx context.Context, db ddl.DatabaseName, except ddl.Username) ([]string, error) {
	var others []string
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		others = nil
		rows, err := q.QueryContext(ctx, `SELECT User, Host FROM mysql.db WHERE Db = ? AND User <> ? ORDER BY User, Host`,
			ddl.MySQLGrantPattern(s.info, db), s.spec.Username)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var u, h string
			if err := rows.Scan(&u, &h); err != nil {
				return err
			}
			if k := ddl.AccountKey(u, h); except.IsZero() || k != except.Account() {
				others = append(others, k)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.sess.ReadError("list the accounts holding privileges on "+db.String(), err)
	}
	return others, nil
}
