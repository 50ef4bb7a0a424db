// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
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
// is never adopted.
//
// A mark adopts only unfinished work. The mark says "open" from the CREATE
// ROLE on, and "done" once the create (or the rotation's handover) has run
// its last statement: the plan's final statement rewrites it. A create that
// finds a login whose mark is done refuses it (PreExistingOwnerUser),
// whatever database it names: it is a working owner, maybe another
// configuration's, and a mark cannot tell one configuration from another.
// A rotation may finish a done mark only when the mark names, as the login
// it took over from, the login this resource's state records (its OID):
// that is the claim that made it. Marks written before the status existed
// read as done: an owner made by an earlier version is never adopted.
// MySQL 8.0.21+ keeps the mark in the login's ATTRIBUTE
// (owner_mark_mysql.go). MariaDB accounts carry no such mark that this
// provider can rely on (see the docs' "Interrupted applies"); there the
// refusal names the exact recovery.

// OwnerMark is what an owner login's mark says.
type OwnerMark struct {
	Database   DatabaseName
	DBIdentity string // the tenant database's identity (dbclient Identity)
	FromRole   string // a rotation: the OID of the login it takes over from; "" for a create
	Finished   bool   // the create or handover ran to its end (status=done, or a mark without status)
	// Grantees are the OIDs of the principals of declared
	// tenantdb_tenant_grant resources on the database (grants=, comma
	// separated in numeric order; a string so marks stay comparable): an
	// offboarding leaves them what they hold (offboard.go). Only the admin
	// (or a superuser) can write a role's comment, so neither the tenant
	// nor a grantee can add itself.
	Grantees string
}

// Compiled on first use (its counted repetitions make it the largest of
// the package's patterns; a provider start that reads no owner needs none).
var ownerMarkPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^tenantdb owner of ([A-Za-z0-9_]{1,64}) db=([A-Za-z0-9:._-]{1,200})(?: from=([0-9]{1,10}))?(?: grants=([0-9]{1,10}(?:,[0-9]{1,10})*))?(?: status=(open|done))?$`)
})

// Text is the comment stored on the role.
func (m OwnerMark) Text() string {
	s := "tenantdb owner of " + m.Database.s + " db=" + m.DBIdentity
	if m.FromRole != "" {
		s += " from=" + m.FromRole
	}
	if m.Grantees != "" {
		s += " grants=" + m.Grantees
	}
	if m.Finished {
		return s + " status=done"
	}
	return s + " status=open"
}

// SameClaim reports whether two marks name the same claim (database, its
// identity, the login taken over from), finished or not.
func (m OwnerMark) SameClaim(o OwnerMark) bool {
	return m.Database == o.Database && m.DBIdentity == o.DBIdentity && m.FromRole == o.FromRole
}

// ParseOwnerMark reads a role comment; ok is false for anything that is not
// exactly a mark (no comment, someone else's comment).
func ParseOwnerMark(comment string) (OwnerMark, bool) {
	g := ownerMarkPattern().FindStringSubmatch(comment)
	if g == nil {
		return OwnerMark{}, false
	}
	db, err := NewDatabaseName(EnginePostgres, g[1])
	if err != nil {
		return OwnerMark{}, false
	}
	return OwnerMark{Database: db, DBIdentity: g[2], FromRole: g[3], Grantees: g[4], Finished: g[5] != "open"}, true
}

// GranteeOIDs lists the declared grantees' OIDs.
func (m OwnerMark) GranteeOIDs() []string {
	if m.Grantees == "" {
		return nil
	}
	return strings.Split(m.Grantees, ",")
}

// WithGrantee is m with the principal OID added to (add) or removed from
// its declared grantees, and whether that changed anything.
func (m OwnerMark) WithGrantee(oid string, add bool) (OwnerMark, bool) {
	list := m.GranteeOIDs()
	if slices.Contains(list, oid) == add {
		return m, false
	}
	list = slices.DeleteFunc(list, func(g string) bool { return g == oid })
	if add {
		list = append(list, oid)
		// OIDs in numeric order: shorter first, then by digits.
		slices.SortFunc(list, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	}
	m.Grantees = strings.Join(list, ",")
	return m, true
}

// RecordGrantees renders the comment that stores m (finished) on owner:
// a grant's create or destroy updating the declared grantees.
func RecordGrantees(owner Username, m OwnerMark) Plan {
	m.Finished = true
	return Plan{Statements: []Statement{commentOnRole(owner, m).done()}}
}

// FinishOwnerMark appends to a PostgreSQL owner plan (a create, or a
// rotation's handover) the statement that marks the login done: it runs
// last, so a done mark means every statement before it ran. Other
// engines, or a mark without a database identity, leave the plan as it is.
func FinishOwnerMark(d Dialect, p Plan, owner Username, mark OwnerMark) Plan {
	mark.Finished = true
	if d.Info().Flavor != FlavorPostgres || mark.DBIdentity == "" || !ownerMarkPattern().MatchString(mark.Text()) {
		return p
	}
	p.Statements = append(slices.Clone(p.Statements), commentOnRole(owner, mark).done())
	return p
}

func commentOnRole(owner Username, mark OwnerMark) *stmt {
	return sql("COMMENT ON ROLE ", pgIdent(owner.s), " IS ", pgLiteral(mark.Text()))
}

// MarkOwnerLogin makes a PostgreSQL owner plan's CREATE ROLE carry mark:
// the COMMENT is the plan's next statement, and the plan runs as one
// transaction (InOneTransaction, which the caller applies to the plan it
// finally runs), so PostgreSQL commits both or neither and no unmarked
// login of ours can exist. Other engines, or a mark without a database
// identity, leave the plan as it is.
func MarkOwnerLogin(d Dialect, p Plan, owner Username, mark OwnerMark) Plan {
	if d.Info().Flavor != FlavorPostgres || mark.DBIdentity == "" || len(p.Statements) == 0 ||
		!ownerMarkPattern().MatchString(mark.Text()) || !strings.HasPrefix(p.Statements[0].redacted, "CREATE ROLE ") {
		return p
	}
	p.Statements = slices.Insert(slices.Clone(p.Statements), 1, commentOnRole(owner, mark).done())
	return p
}

// MarkOwnerPlan marks a PostgreSQL owner plan (a create, or a rotation's
// handover, whose first statement is the CREATE ROLE) and makes it one
// transaction where it can (InOneTransaction): the done mark is then its
// last statement and the only one, since no session sees the login before
// the mark commits with it. Where it cannot, the CREATE ROLE carries the
// open mark (MarkOwnerLogin) and the done mark ends the plan
// (FinishOwnerMark), as for a plan run statement by statement. Other
// engines, or a mark without a database identity, leave the plan as it is;
// MySQL 8.0.21+ marks the login in its ATTRIBUTE (owner_mark_mysql.go).
func MarkOwnerPlan(d Dialect, p Plan, owner Username, mark OwnerMark) Plan {
	if d.Info().Flavor == FlavorMySQL {
		if !StoresLoginMark(d.Info()) {
			return p
		}
		return markMySQLOwnerPlan(p, owner, mark)
	}
	if tx := InOneTransaction(d, FinishOwnerMark(d, p, owner, mark)); tx.Transaction {
		return tx
	}
	return FinishOwnerMark(d, MarkOwnerLogin(d, p, owner, mark), owner, mark)
}

// ErrFinishedOwnerExists: a create (or a rotation to a new name) found a
// login whose mark says a tenantdb_tenant_owner finished making it, as
// the owner of database of. It is a working owner: another
// configuration's (or another resource's), or this resource's own whose
// apply was interrupted after the create finished. A mark cannot tell
// configurations apart, so it is never taken over; the one recovery is the
// import block (no DROP: the login owns a tenant database).
func ErrFinishedOwnerExists(server string, db DatabaseName, user Username, of DatabaseName) *Error {
	return refuse(PreExistingOwnerUser, fmt.Sprintf("login %q on server %q", user, server),
		fmt.Sprintf("The login already exists, and its mark says a tenantdb_tenant_owner finished creating it as the "+
			"owner of database %q: it is a working owner, managed by another configuration or resource, or made by an "+
			"apply of this resource that was interrupted after the create finished (Terraform saves state only when an "+
			"operation returns, and nothing on the server tells one configuration from another). tenantdb takes over "+
			"no working owner: its password was not reset and nothing was changed.", of),
		fmt.Sprintf("Choose another username; or, if this resource is the only one that manages it, adopt it with:\n\n"+
			"  import {\n    to = tenantdb_tenant_owner.<this resource>\n    id = jsonencode({ server = "+
			"tenantdb_db_server.<server>.ref, database = %q, username = %q })\n  }\n\nand apply: the login's password "+
			"is then set from password_wo, and as an imported owner (user_created = false) it stays on the server when "+
			"this resource is destroyed.", db, user))
}
