// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// PostgreSQL default privileges (pg_default_acl) belong to the role that
// creates objects: a grantee's access to tables made later is an entry FOR
// ROLE <database owner>. When the owner of a tenant database changes (an
// owner is created and takes the database from the admin, a username
// rotation, an owner dropped and the database handed back to the admin),
// the entries of the previous owner are handed over to the next one, so
// every grantee keeps access to objects created after the change. Every
// kind of entry the catalog can hold is carried: tables, sequences,
// functions, types and schemas, database-wide and per schema, for any role
// name the catalog can hold.

// SchemaName is a validated PostgreSQL schema name read from the catalog.
type SchemaName struct{ s string }

var schemaNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]{0,62}$`)

// NewSchemaName validates a schema name (a plain identifier, at most 63
// bytes); "" is the zero value (every schema).
func NewSchemaName(s string) (SchemaName, error) {
	if s == "" {
		return SchemaName{}, nil
	}
	if !schemaNamePattern.MatchString(s) {
		return SchemaName{}, invalid("schema name", s, "must match "+schemaNamePattern.String())
	}
	return SchemaName{s}, nil
}

func (n SchemaName) String() string { return n.s }

// RoleName is a PostgreSQL role name read from the catalog: any name the
// server can hold (1 to 63 bytes of UTF-8 without NUL), always rendered
// quoted. Unlike Username it carries no pattern: a tenant may grant its
// default privileges to any role, and a handover must carry them all.
type RoleName struct{ s string }

// NewRoleName accepts a role name read from the catalog.
func NewRoleName(s string) (RoleName, error) {
	if s == "" || len(s) > postgresMaxIdentifierBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return RoleName{}, invalid("role name", s, "is not a name PostgreSQL can hold")
	}
	return RoleName{s}, nil
}

// CatalogOwner is a PostgreSQL database owner read from the catalog, as
// the Username a grant renders FOR ROLE (always quoted): any name the
// server can hold. The owner username pattern is for logins tenantdb
// creates; the owner of a database may be the admin, whose name (e.g.
// "adm@srv", or longer than 32 characters) need not match it.
func CatalogOwner(name string) (Username, error) {
	r, err := NewRoleName(name)
	return Username{s: r.s}, err
}

// Role is a Username as a RoleName.
func (u Username) Role() RoleName { return RoleName{u.s} }

func (r RoleName) String() string { return r.s }

// IsZero reports the zero value, which stands for PUBLIC as a grantee.
func (r RoleName) IsZero() bool { return r.s == "" }

// defaultACLKind is one object kind of pg_default_acl.defaclobjtype.
type defaultACLKind struct {
	objects    string      // the ON clause of ALTER DEFAULT PRIVILEGES
	privileges []Privilege // what the kind can hold
	public     Privilege   // what PUBLIC holds by default ("" for none)
}

var defaultACLKinds = map[byte]defaultACLKind{
	'r': {objects: "TABLES", privileges: append(slices.Clone(postgresTablePrivileges), "MAINTAIN")},
	'S': {objects: "SEQUENCES", privileges: []Privilege{"SELECT", "UPDATE", "USAGE"}},
	'f': {objects: "FUNCTIONS", privileges: []Privilege{"EXECUTE"}, public: "EXECUTE"},
	'T': {objects: "TYPES", privileges: []Privilege{"USAGE"}, public: "USAGE"},
	'n': {objects: "SCHEMAS", privileges: []Privilege{"USAGE", "CREATE"}},
	'L': {objects: "LARGE OBJECTS", privileges: []Privilege{"SELECT", "UPDATE"}}, // PostgreSQL 18+
}

// DefaultACLRow is one row of pg_default_acl exploded with aclexplode, for
// the role whose entries are handed over.
type DefaultACLRow struct {
	Schema    string // "" for a database-wide entry
	ObjType   byte
	Grantee   string // "" for PUBLIC
	Self      bool   // the grantee is the role itself (its own rights)
	Privilege string
	// SelfRevoked: a right the role's built-in default gives it on its own
	// objects that its database-wide entry lacks (the role ran ALTER
	// DEFAULT PRIVILEGES ... REVOKE ... FROM itself). Schema is "".
	SelfRevoked bool
}

// DefaultACL is one handed-over default privilege: what Grantee gets on
// objects of ObjType that the role creates in Schema (zero: every schema).
type DefaultACL struct {
	Schema     SchemaName
	ObjType    byte
	Grantee    RoleName // zero value: PUBLIC
	Privileges []Privilege
}

// DefaultACLs are a role's default privileges in one database.
type DefaultACLs struct {
	Grants []DefaultACL
	// PublicRevoked lists the kinds whose built-in PUBLIC default (EXECUTE
	// on functions, USAGE on types) the role revoked database-wide.
	PublicRevoked []byte
	// SelfRevoked are the rights the role took from itself on what it
	// creates later (database-wide, one entry per kind, Grantee zero): a
	// tenant restricting its own login; the next owner gets the same
	// restriction.
	SelfRevoked []DefaultACL
}

// Empty reports whether there is nothing to hand over.
func (a DefaultACLs) Empty() bool {
	return len(a.Grants) == 0 && len(a.PublicRevoked) == 0 && len(a.SelfRevoked) == 0
}

// MadeByGrants keeps only what a tenantdb_tenant_grant makes: default
// privileges on tables, per schema, to a grantee for which isGrantee is
// true (one holding CONNECT on the database, which a grant gives). The
// admin's own entries for other roles, database-wide or on other kinds,
// and what it revoked from PUBLIC or itself are the admin's and stay.
func (a DefaultACLs) MadeByGrants(isGrantee func(RoleName) bool) DefaultACLs {
	var out DefaultACLs
	for _, g := range a.Grants {
		if g.ObjType == 'r' && g.Schema.s != "" && !g.Grantee.IsZero() && isGrantee(g.Grantee) {
			out.Grants = append(out.Grants, g)
		}
	}
	return out
}

// GrantedTo keeps the entries to the roles for which keep is true (an
// offboarding hands the admin only what declared grants hold); PUBLIC's
// entries go, what the role revoked from PUBLIC stays revoked.
func (a DefaultACLs) GrantedTo(keep func(RoleName) bool) DefaultACLs {
	a.Grants = slices.DeleteFunc(slices.Clone(a.Grants), func(g DefaultACL) bool { return g.Grantee.IsZero() || !keep(g.Grantee) })
	return a
}

// WithoutSelf drops the role's restrictions on itself: handed to the
// admin (an owner dropped), they would restrict the admin's own rights.
func (a DefaultACLs) WithoutSelf() DefaultACLs {
	a.SelfRevoked = nil
	return a
}

// NewDefaultACLs validates catalog rows (ordered by schema, kind, grantee)
// into what a handover carries. Everything that could refuse is checked
// here, before any statement runs: an unknown kind or privilege, a name
// the server cannot hold. A role's rights on its own objects (Self rows)
// are not carried: every owner has them.
func NewDefaultACLs(rows []DefaultACLRow) (DefaultACLs, error) {
	var out DefaultACLs
	type entry struct {
		schema string
		kind   byte
	}
	publicKept := map[entry]bool{}
	entries := map[entry]bool{}
	selfRevoked := map[byte][]Privilege{}
	for _, r := range rows {
		kind, ok := defaultACLKinds[r.ObjType]
		if !ok {
			return DefaultACLs{}, fmt.Errorf("default privileges on object kind %q are not known to tenantdb", string(r.ObjType))
		}
		e := entry{r.Schema, r.ObjType}
		entries[e] = true
		p := NormalizePrivilege(r.Privilege)
		if !slices.Contains(kind.privileges, p) {
			return DefaultACLs{}, fmt.Errorf("default privilege %q on %s is not known to tenantdb", printable(r.Privilege), strings.ToLower(kind.objects))
		}
		if r.SelfRevoked && r.Schema == "" {
			selfRevoked[r.ObjType] = append(selfRevoked[r.ObjType], p)
			continue
		}
		if r.Self {
			continue
		}
		if r.Grantee == "" && p == kind.public && r.Schema == "" {
			publicKept[e] = true // the built-in default, nothing to carry
			continue
		}
		var schema SchemaName
		var grantee RoleName
		var err error
		if r.Schema != "" {
			if schema, err = NewCatalogSchemaName(r.Schema); err != nil {
				return DefaultACLs{}, err
			}
		}
		if r.Grantee != "" {
			if grantee, err = NewRoleName(r.Grantee); err != nil {
				return DefaultACLs{}, err
			}
		}
		n := len(out.Grants)
		if n > 0 && out.Grants[n-1].Schema == schema && out.Grants[n-1].ObjType == r.ObjType && out.Grants[n-1].Grantee == grantee {
			out.Grants[n-1].Privileges = append(out.Grants[n-1].Privileges, p)
			continue
		}
		out.Grants = append(out.Grants, DefaultACL{Schema: schema, ObjType: r.ObjType, Grantee: grantee, Privileges: []Privilege{p}})
	}
	// A database-wide entry replaces the built-in defaults: one for
	// functions or types without PUBLIC means PUBLIC was revoked.
	for e := range entries {
		if kind := defaultACLKinds[e.kind]; e.schema == "" && kind.public != "" && !publicKept[e] {
			out.PublicRevoked = append(out.PublicRevoked, e.kind)
		}
	}
	slices.Sort(out.PublicRevoked)
	for _, k := range slices.Sorted(maps.Keys(selfRevoked)) {
		out.SelfRevoked = append(out.SelfRevoked, DefaultACL{ObjType: k, Privileges: selfRevoked[k]})
	}
	return out, nil
}

// CarryDefaultPrivileges renders, inside db, the default privileges in acls
// as given by role `to`: the same grantees get the same rights on what
// `to` creates, and PUBLIC loses what `from` had revoked from it.
func CarryDefaultPrivileges(db DatabaseName, to RoleName, acls DefaultACLs) Plan {
	return renderDefaults(db, to, acls, true)
}

// ClearDefaultPrivileges renders, inside db, the statements that take the
// entries in acls away from role `from` again (its pg_default_acl rows for
// them disappear): after handing the admin's entries to a new owner, the
// admin keeps none, so revoking a grant later leaves nothing behind.
func ClearDefaultPrivileges(db DatabaseName, from RoleName, acls DefaultACLs) Plan {
	return renderDefaults(db, from, acls, false)
}

// renderDefaults gives (give) or takes back (!give) acls as role's.
func renderDefaults(db DatabaseName, role RoleName, acls DefaultACLs, give bool) Plan {
	grant, revoke := " GRANT ", " REVOKE "
	to, from := " TO ", " FROM "
	if !give {
		grant, revoke, to, from = revoke, grant, from, to
	}
	var p Plan
	add := func(schema SchemaName, verb, privs, objects, prep, grantee string) {
		b := alterDefaults(role, schema)
		b.add(verb, privs, " ON ", objects, prep, grantee)
		if !give {
			b.okIfMissing()
		}
		p.Statements = append(p.Statements, b.in(db.s).done())
	}
	for _, e := range acls.Grants {
		grantee := "PUBLIC"
		if !e.Grantee.IsZero() {
			grantee = pgIdent(e.Grantee.s)
		}
		add(e.Schema, grant, joinPrivileges(sortedUnique(e.Privileges)), defaultACLKinds[e.ObjType].objects, to, grantee)
	}
	for _, k := range acls.PublicRevoked {
		kind := defaultACLKinds[k]
		add(SchemaName{}, revoke, string(kind.public), kind.objects, from, "PUBLIC")
	}
	for _, e := range acls.SelfRevoked {
		add(SchemaName{}, revoke, joinPrivileges(sortedUnique(e.Privileges)), defaultACLKinds[e.ObjType].objects, from, pgIdent(role.s))
	}
	return p
}

func alterDefaults(role RoleName, schema SchemaName) *stmt {
	b := sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", pgIdent(role.s))
	if schema.s != "" {
		b.add(" IN SCHEMA ", pgIdent(schema.s))
	}
	return b
}
