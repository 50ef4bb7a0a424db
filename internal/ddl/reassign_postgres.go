// SPDX-License-Identifier: MPL-2.0

package ddl

// REASSIGN OWNED moves what a role owns in the order of pg_shdepend's
// rows, and moves a routine (function, procedure, operator, collation, …)
// only when its receiver may CREATE in the routine's schema: in public once
// the receiver owns the database (public's owner is pg_database_owner since
// PostgreSQL 15), in a schema of the giver's once that schema has moved.
// Where the database's or a schema's row comes after a routine's (a
// superuser re-asserting an owner, an earlier handover, or only where freed
// catalog space put it), a bare REASSIGN OWNED fails with "permission
// denied for schema …", and every retry meets the same order: a tenant's
// routines would stop its own offboarding. So every handover first moves
// those containers by name, then REASSIGN OWNED moves the rest in any
// order.
//
// Some moves also need CREATE on the database: ALTER SCHEMA … OWNER TO
// (and REASSIGN's move of a schema) for the admin, which has it through
// the database's owner, and a publication's move for its receiver. A
// tenant may revoke its own (REVOKE CREATE ON DATABASE … FROM itself: it
// owns the database), and its offboarding would then fail the same way,
// every time. So when neither the owner nor the receiver holds it, the
// receiver (the database's owner by then) is lent CREATE for the
// handover and the grant is revoked in the same transaction: the
// database's ACL ends as the tenant left it.

// OwnedContainers is what a role owns in one database that its other
// objects live in, read just before a handover (dbclient): the database
// itself, and its schemas there (NewCatalogSchemaName: any name).
// CreateWithheld: neither the database's owner nor the receiver holds
// CREATE on it.
type OwnedContainers struct {
	Database       bool
	Schemas        []SchemaName
	CreateWithheld bool
}

// reassignOwned renders the handover of everything from owns in db to to
// (both rendered identifiers): the containers c names first, then REASSIGN
// OWNED. Only what from owned when dbclient read c is named, and the
// admin's ALTER of a schema or database that someone else took over in
// between fails (it must act as that object's owner), unless that someone
// is a role the admin acts as.
func reassignOwned(db DatabaseName, from, to string, c OwnedContainers) []Statement {
	var out []Statement
	if c.Database {
		out = append(out, sql("ALTER DATABASE ", pgIdent(db.s), " OWNER TO ", to).done())
	}
	if c.CreateWithheld {
		out = append(out, sql("GRANT CREATE ON DATABASE ", pgIdent(db.s), " TO ", to).done())
	}
	for _, s := range c.Schemas {
		out = append(out, sql("ALTER SCHEMA ", pgIdent(s.s), " OWNER TO ", to).in(db.s).done())
	}
	out = append(out, sql("REASSIGN OWNED BY ", from, " TO ", to).in(db.s).okIfMissing().done())
	if c.CreateWithheld {
		out = append(out, sql("REVOKE CREATE ON DATABASE ", pgIdent(db.s), " FROM ", to).done())
	}
	return out
}
