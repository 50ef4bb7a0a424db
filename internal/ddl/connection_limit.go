// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strconv"
)

// A tenant owner's connection limit: how many sessions its login may hold
// at once, set on the login itself, where the tenant cannot lift it
// (PostgreSQL: ALTER ROLE needs CREATEROLE; MySQL/MariaDB: ALTER USER of
// a resource limit needs CREATE USER, even bundled with the login's own
// password change). A PostgreSQL database's own CONNECTION LIMIT is not
// offered: its owner, the tenant, may change it.
//
// The user's limit never shares a field with tenantdb's marks: the
// MySQL/MariaDB owner mark is MAX_UPDATES_PER_HOUR (owner_limit_mark.go),
// the limit MAX_USER_CONNECTIONS; PostgreSQL marks a role by its comment
// and an offboarding locks it out with NOLOGIN, never with the limit.
//
// Zero is refused: it means opposite things on the two families
// (PostgreSQL: no connection at all; MySQL/MariaDB: no limit of the
// account's own, the server's max_user_connections). No limit is the
// zero ConnectionLimit (null in the configuration).

// MaxConnectionLimit is the largest limit both families store
// (PostgreSQL's rolconnlimit is a 32-bit signed integer).
const MaxConnectionLimit = 1<<31 - 1

// ConnectionLimit is a validated per-login connection limit; the zero
// value is none (the server's).
type ConnectionLimit struct{ n int64 }

// NewConnectionLimit validates a configured limit (1 to MaxConnectionLimit).
func NewConnectionLimit(n int64) (ConnectionLimit, error) {
	if n < 1 || n > MaxConnectionLimit {
		return ConnectionLimit{}, fmt.Errorf("connection_limit %d is out of range: it must be between 1 and %d. "+
			"Leave it out (null) for no limit of the login's own; 0 is not accepted because it means opposite things "+
			"on the engines (PostgreSQL: no connection at all; MySQL/MariaDB: no limit)", n, MaxConnectionLimit)
	}
	return ConnectionLimit{n: n}, nil
}

// IsNone reports whether l is no limit (the server's).
func (l ConnectionLimit) IsNone() bool { return l.n == 0 }

// Value is the limit; 0 for none.
func (l ConnectionLimit) Value() int64 { return l.n }

// serverValue is what the server stores for l: none is -1 on PostgreSQL
// and 0 on MySQL/MariaDB.
func (l ConnectionLimit) serverValue(info ServerInfo) int64 {
	if l.IsNone() && info.Flavor == FlavorPostgres {
		return -1
	}
	return l.n
}

// ConnectionLimitFromServer reads a login's stored limit (PostgreSQL
// rolconnlimit, MySQL/MariaDB max_user_connections): ok is false for none
// (-1 on PostgreSQL, 0 on MySQL/MariaDB). Any other value is reported as
// it is, 0 on PostgreSQL (no connection) included, so a DBA's change
// shows as drift.
func ConnectionLimitFromServer(info ServerInfo, raw int64) (n int64, ok bool) {
	if info.Flavor == FlavorPostgres {
		return raw, raw != -1
	}
	return raw, raw != 0
}

// SetConnectionLimit renders the statement that sets user's limit (none:
// back to the server's default). MySQL/MariaDB's ALTER USER names one
// account ('user'@'host'): each host's account is a login of its own.
// Other resource limits (the owner mark) are left as they are.
func SetConnectionLimit(info ServerInfo, user Username, l ConnectionLimit) Plan {
	v := strconv.FormatInt(l.serverValue(info), 10)
	if info.Flavor == FlavorPostgres {
		return Plan{Statements: []Statement{sql("ALTER ROLE ", pgIdent(user.s), " CONNECTION LIMIT ", v).done()}}
	}
	return Plan{Statements: []Statement{sql("ALTER USER ", mysqlAccount(user), " WITH MAX_USER_CONNECTIONS ", v).done()}}
}

// WithConnectionLimit appends to a plan that creates user (an owner's
// create, a rotation's handover) the statement setting its limit, so the
// new login has it before anything else may use or replace it: on
// PostgreSQL in the same transaction; on MySQL/MariaDB before the old
// login of a rotation is dropped, undone with the create. None appends
// nothing (a new login has none).
func WithConnectionLimit(info ServerInfo, p Plan, user Username, l ConnectionLimit) Plan {
	if l.IsNone() {
		return p
	}
	q := SetConnectionLimit(info, user, l)
	return Plan{Statements: append(append([]Statement(nil), p.Statements...), q.Statements...), Undo: p.Undo, Transaction: p.Transaction}
}
