// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"regexp"
	"strings"
)

// Half-made owner logins. Terraform saves state only when an operation
// returns, so a Terraform killed mid-apply loses what the provider did in
// that call. On PostgreSQL every owner login tenantdb creates carries a mark
// from the moment it exists: a role comment, set in the same transaction as
// CREATE ROLE, naming the tenant database (by name and identity) the login
// was made to own and, for a username rotation, the role it takes over
// from. The next apply of the same resource reads it to prove the login is
// its own half-made work, and finishes it (or, going back to the old
// login, undoes it). A login without the mark, or with another database's,
// is never adopted. MySQL/MariaDB accounts carry no such mark that this
// provider can rely on (see the docs' "Interrupted applies"); there the
// refusal names the exact recovery.

// OwnerMark is what an owner login's mark says.
type OwnerMark struct {
	Database   DatabaseName
	DBIdentity string // the tenant database's identity (dbclient Identity)
	FromRole   string // a rotation: the OID of the login it takes over from; "" for a create
}

var ownerMarkPattern = regexp.MustCompile(`^tenantdb owner of ([A-Za-z0-9_]{1,64}) db=([A-Za-z0-9:._-]{1,200})(?: from=([0-9]{1,10}))?$`)

// Text is the comment stored on the role.
func (m OwnerMark) Text() string {
	s := "tenantdb owner of " + m.Database.s + " db=" + m.DBIdentity
	if m.FromRole != "" {
		s += " from=" + m.FromRole
	}
	return s
}

// ParseOwnerMark reads a role comment; ok is false for anything that is not
// exactly a mark (no comment, someone else's comment).
func ParseOwnerMark(comment string) (OwnerMark, bool) {
	g := ownerMarkPattern.FindStringSubmatch(comment)
	if g == nil {
		return OwnerMark{}, false
	}
	db, err := NewDatabaseName(EnginePostgres, g[1])
	if err != nil {
		return OwnerMark{}, false
	}
	return OwnerMark{Database: db, DBIdentity: g[2], FromRole: g[3]}, true
}

// MarkOwnerLogin makes a PostgreSQL owner plan's CREATE ROLE carry mark:
// the COMMENT runs in the same simple-protocol query, so PostgreSQL commits
// both or neither and no unmarked login of ours can exist. Other engines,
// or a mark without a database identity, leave the plan as it is.
func MarkOwnerLogin(d Dialect, p Plan, owner Username, mark OwnerMark) Plan {
	if d.Info().Flavor != FlavorPostgres || mark.DBIdentity == "" || len(p.Statements) == 0 ||
		!ownerMarkPattern.MatchString(mark.Text()) || !strings.HasPrefix(p.Statements[0].redacted, "CREATE ROLE ") {
		return p
	}
	first := p.Statements[0]
	suffix := "; COMMENT ON ROLE " + pgIdent(owner.s) + " IS " + pgLiteral(mark.Text())
	first.sql += suffix
	first.redacted += suffix
	p.Statements = append([]Statement{first}, p.Statements[1:]...)
	return p
}
