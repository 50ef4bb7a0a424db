// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Offboarding a PostgreSQL owner (its destroy, the database retained)
// leaves the database and everything in it held by the admin, by the
// principals of declared tenantdb_tenant_grant resources and by no one
// else. What the tenant granted onward (to a login, a role or PUBLIC, on
// the database, its schemas, tables, views, sequences, functions, types
// and large objects) is revoked, with CASCADE so a WITH GRANT OPTION chain
// goes too; a declared grantee keeps its rights but loses any grant option
// (tenantdb never grants one). PUBLIC is left as a create leaves it: no
// CONNECT or TEMPORARY on the database, USAGE on schema public, and the
// built-in EXECUTE on functions and USAGE on types (PostgreSQL's default
// for every new function and type, which cannot be told apart from a
// tenant's explicit grant and reaches no one who cannot connect).
//
// The declared grantees are read from the owner login's mark (OwnerMark
// grants=): only the admin (or a superuser, or a CREATEROLE role that
// administers the owner) can write a role's comment, so neither the
// tenant nor a grantee can add itself.

// OnwardKind is what an onward grant is on.
type OnwardKind string

const (
	OnwardDatabase    OnwardKind = "database"
	OnwardSchema      OnwardKind = "schema"
	OnwardTables      OnwardKind = "tables"    // tables, views, foreign tables and their columns, per schema
	OnwardSequences   OnwardKind = "sequences" // per schema
	OnwardRoutines    OnwardKind = "routines"  // functions and procedures, per schema
	OnwardType        OnwardKind = "type"
	OnwardDomain      OnwardKind = "domain"
	OnwardLargeObject OnwardKind = "largeobject"
)

// OnwardRow is one grantee's entry on one object (or, for the per-schema
// kinds, on any object of that kind in one schema), read from the catalog
// of the tenant database.
type OnwardRow struct {
	Kind       OnwardKind
	Schema     string // the schema (OnwardSchema: the schema itself); "" for the database and large objects
	Object     string // a type's or domain's name, a large object's OID; "" otherwise
	Grantee    string // "" for PUBLIC
	Privileges []string
	Grantable  bool // any of it WITH GRANT OPTION
	Declared   bool // the grantee is a declared grant's principal
}

// OffboardRevokes renders, for db, the revokes that leave only what is
// declared (see above). Rows are validated first: a name the server
// cannot hold refuses before anything runs. Statements are in a stable
// order and each appears once.
func OffboardRevokes(db DatabaseName, rows []OnwardRow) (Plan, error) {
	var p Plan
	seen := map[string]bool{}
	for _, r := range rows {
		target, err := r.target(db)
		if err != nil {
			return Plan{}, err
		}
		grantee := "PUBLIC"
		if r.Grantee != "" {
			g, err := NewRoleName(r.Grantee)
			if err != nil {
				return Plan{}, err
			}
			grantee = pgIdent(g.s)
		}
		var text string
		switch {
		case r.Declared:
			if !r.Grantable {
				continue
			}
			text = "REVOKE GRANT OPTION FOR ALL ON " + target + " FROM " + grantee + " CASCADE"
		case r.Grantee == "":
			privs, ok := r.publicSurplus()
			if !ok {
				continue
			}
			text = "REVOKE " + privs + " ON " + target + " FROM PUBLIC CASCADE"
		default:
			text = "REVOKE ALL ON " + target + " FROM " + grantee + " CASCADE"
		}
		if seen[text] {
			continue
		}
		seen[text] = true
		b := sql(text).okIfMissing()
		if r.Kind != OnwardDatabase {
			b.in(db.s)
		}
		p.Statements = append(p.Statements, b.done())
	}
	return p, nil
}

// publicSurplus is what PUBLIC holds beyond what a create leaves it
// (rendered for REVOKE), and whether there is any.
func (r OnwardRow) publicSurplus() (string, bool) {
	switch r.Kind {
	case OnwardRoutines, OnwardType, OnwardDomain:
		return "", false // PostgreSQL's built-in default; see the package comment above
	case OnwardSchema:
		if r.Schema == "public" {
			if slices.Contains(r.Privileges, "CREATE") {
				return "CREATE", true // USAGE on public is every database's default
			}
			return "", false
		}
	}
	return "ALL", true
}

// target renders the object (or the per-schema set of objects) of r.
func (r OnwardRow) target(db DatabaseName) (string, error) {
	schema := func() (string, error) {
		s, err := NewCatalogSchemaName(r.Schema)
		return pgIdent(s.s), err
	}
	switch r.Kind {
	case OnwardDatabase:
		return "DATABASE " + pgIdent(db.s), nil
	case OnwardSchema:
		s, err := schema()
		return "SCHEMA " + s, err
	case OnwardTables, OnwardSequences, OnwardRoutines:
		s, err := schema()
		return "ALL " + strings.ToUpper(string(r.Kind)) + " IN SCHEMA " + s, err
	case OnwardType, OnwardDomain:
		s, err := schema()
		if err != nil {
			return "", err
		}
		n, err := NewCatalogSchemaName(r.Object) // same rules: any name the server can hold, always quoted
		if err != nil {
			return "", err
		}
		return strings.ToUpper(string(r.Kind)) + " " + s + "." + pgIdent(n.s), nil
	case OnwardLargeObject:
		oid, err := strconv.ParseUint(r.Object, 10, 32)
		if err != nil {
			return "", invalid("large object", r.Object, "is not an OID")
		}
		return "LARGE OBJECT " + strconv.FormatUint(oid, 10), nil
	}
	return "", fmt.Errorf("onward grant on %q: object kind not known to tenantdb", printable(string(r.Kind)))
}

// DropOwnedLogin renders the second half: DROP OWNED (privileges granted to
// the role and its default privileges; the caller has shown it owns
// nothing left in db) and DROP ROLE. On MySQL/MariaDB it is DropLogin.
func DropOwnedLogin(d Dialect, db DatabaseName, user Username) Plan {
	pg, ok := d.(postgres)
	if !ok {
		return d.DropLogin(db, user)
	}
	return Plan{Statements: pg.dropOwnedLogin(db, user)}
}

// RevokeFromLogin renders, inside another database (other), the revokes
// that take away what user holds there through someone else's grant: the
// rows come from that database's catalog with Grantee user. Objects there
// are never dropped.
func RevokeFromLogin(other DatabaseName, rows []OnwardRow) (Plan, error) {
	for i := range rows {
		rows[i].Declared = false
	}
	return OffboardRevokes(other, rows)
}

// NewCatalogDatabaseName accepts a PostgreSQL database name read from the
// catalog (another tenant's database where a login holds privileges): any
// name the server can hold, always rendered quoted.
func NewCatalogDatabaseName(s string) (DatabaseName, error) {
	if _, err := NewRoleName(s); err != nil { // the same rules: 1 to 63 bytes of UTF-8 without NUL
		return DatabaseName{}, invalid("database name", s, "is not a name PostgreSQL can hold")
	}
	return DatabaseName{s}, nil
}

// ForeignHolding is another database where a login being dropped holds
// what tenantdb does not take away itself.
type ForeignHolding struct {
	Database    DatabaseName
	OwnsObjects bool // objects there
	Defaults    bool // default privileges there (its own, or naming it)
	// Neither: privileges only, in a database the admin may not connect to.
}
