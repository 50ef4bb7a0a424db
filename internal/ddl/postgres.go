// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"slices"
	"strconv"
)

// postgres renders for PostgreSQL 15+. Statements with Database set run
// inside the tenant database (schema and table privileges, ownership of
// tables); the rest run on the maintenance database.
type postgres struct {
	info ServerInfo
	// salt returns the SCRAM salt; random except in golden tests.
	salt func() []byte
}

func (d postgres) verifier(pw Password) string {
	if d.salt == nil {
		return newScramVerifier(pw)
	}
	return ScramVerifier(pw, d.salt(), ScramIterations)
}

func (d postgres) Info() ServerInfo { return d.info }

// CreateMarkedDatabase is CreateDatabase: PostgreSQL identifies a database
// by its OID, so there is no mark to store.
func (d postgres) CreateMarkedDatabase(db DatabaseName, cs Charset, co Collation, _ ClaimMark) Plan {
	return d.CreateDatabase(db, cs, co)
}

// CreateDatabase copies template0 with the given encoding and locale. An
// encoding without a locale gets LOCALE 'C' (DefaultCollation), the one
// locale compatible with every encoding: template0 carries the cluster's
// locale, and ENCODING 'LATIN1' alone on a C.UTF-8 cluster fails (encoding
// "LATIN1" does not match locale "C.UTF-8"). A locale alone keeps template0's
// encoding; neither keeps both.
func (d postgres) CreateDatabase(db DatabaseName, cs Charset, co Collation) Plan {
	return d.createDatabase(db, cs, co, 0)
}

// createDatabase is CreateDatabase with a chosen OID (0: the server's);
// a claim's nonce database carries its mark there (NonceOID).
func (d postgres) createDatabase(db DatabaseName, cs Charset, co Collation, oid uint32) Plan {
	b := sql("CREATE DATABASE ", pgIdent(db.s), " TEMPLATE template0")
	if !cs.IsZero() {
		b.add(" ENCODING ", pgLiteral(cs.s))
		if co.IsZero() {
			co = DefaultCollation(EnginePostgres)
		}
	}
	if !co.IsZero() {
		b.add(" LOCALE ", pgLiteral(co.s))
	}
	if oid != 0 {
		b.add(" OID ", strconv.FormatUint(uint64(oid), 10))
	}
	return Plan{
		Statements: []Statement{
			b.claims().noTransaction().done(),
			// New databases grant CONNECT and TEMPORARY to PUBLIC: a tenant
			// database is reachable only by those granted it.
			sql("REVOKE ALL ON DATABASE ", pgIdent(db.s), " FROM PUBLIC").done(),
		},
		Undo: d.DropDatabase(db).Statements,
	}
}

func (d postgres) AlterDatabase(db DatabaseName, _ Charset, _ Collation) (Plan, error) {
	return Plan{}, refuse(ImmutableAttribute, fmt.Sprintf("database %q", db.s),
		"PostgreSQL cannot change a database's encoding or locale after it is created.",
		"Keep character_set and collation as they are; changing them is a migration to a new database.")
}

// DropDatabase is never cancelled once sent: PostgreSQL 15.4+ marks the
// database invalid before it removes its files, and a cancel in that
// window leaves it so (no one can connect; only a DROP finishes it). Its
// waits before that (the database's lock, other sessions for 5 s) are
// bounded by lock_timeout and the server itself.
func (d postgres) DropDatabase(db DatabaseName) Plan {
	return Plan{Statements: []Statement{sql("DROP DATABASE IF EXISTS ", pgIdent(db.s)).noTransaction().uncancellable().done()}}
}

// CreateOwner makes a LOGIN role whose password is a SCRAM verifier computed
// here, lets the admin act as it (PostgreSQL 16+ does not give the creator
// membership; 15 needs the grant to hand the database over), and makes it
// the database owner. The owner of a PostgreSQL database has every right on
// it and owns schema public through pg_database_owner, so privs is not
// rendered separately.
func (d postgres) CreateOwner(db DatabaseName, owner Username, pw Password, _ PrivilegeSet) Plan {
	return Plan{
		Statements: []Statement{
			sql("CREATE ROLE ", pgIdent(owner.s), " LOGIN PASSWORD ").secret(pgLiteral(d.verifier(pw))).claims().done(),
			adminJoins(owner),
			sql("ALTER DATABASE ", pgIdent(db.s), " OWNER TO ", pgIdent(owner.s)).done(),
		},
		Undo: d.DropLogin(db, owner).Statements,
	}
}

func (d postgres) SetPassword(user Username, pw Password, _ bool) Plan {
	return Plan{Statements: []Statement{
		sql("ALTER ROLE ", pgIdent(user.s), " PASSWORD ").secret(pgLiteral(d.verifier(pw))).done(),
	}}
}

// DiscardOldPassword: PostgreSQL has no dual passwords.
func (d postgres) DiscardOldPassword(Username) Plan { return Plan{} }

func (d postgres) TransferOwnership(db DatabaseName, from, to Username, fromOwns OwnedContainers) Plan {
	// REASSIGN OWNED moves the database itself (a shared object) and every
	// object of `from` in it; from's schemas go first (reassignOwned). The
	// rotation's create has made `to` the database's owner already.
	fromOwns.Database = false
	return Plan{Statements: reassignOwned(db, pgIdent(from.s), pgIdent(to.s), fromOwns)}
}

// DropLogin reassigns before it drops: DROP OWNED would otherwise destroy
// the tenant's tables with the login. Both work per database, so they run in
// the tenant database; DROP OWNED then only removes privileges and default
// privileges. Missing roles are tolerated so a retried drop converges. An
// owner's destroy runs its own steps (lock-out, HandOwnedToKeeper,
// DropOwnedLogin) with a read between them; this whole form is the undo of
// a create, where the login has had no time to own anything else.
func (d postgres) DropLogin(db DatabaseName, user Username) Plan {
	return Plan{Statements: append(d.handOwnedToAdmin(db, user), d.dropOwnedLogin(db, user)...)}
}

// adminRole renders the admin (ServerInfo.Admin), whom REASSIGN OWNED
// names as the receiver. CURRENT_USER only where no admin is known (unit
// tests of other plans): dbclient always sets it on PostgreSQL.
func (d postgres) adminRole() string {
	if d.info.Admin.IsZero() {
		return "CURRENT_USER"
	}
	return pgIdent(d.info.Admin.s)
}

func (d postgres) handOwnedToAdmin(db DatabaseName, user Username) []Statement {
	return []Statement{
		// REASSIGN and DROP OWNED need the admin in the role. An owner
		// login has it from its create, but a login whose create was the
		// last thing a killed apply did (a half-made rotation) does not.
		sql("GRANT ", pgIdent(user.s), " TO ", d.adminRole()).okIfMissing().done(),
		sql("REASSIGN OWNED BY ", pgIdent(user.s), " TO ", d.adminRole()).in(db.s).okIfMissing().done(),
	}
}

func (d postgres) dropOwnedLogin(db DatabaseName, user Username) []Statement {
	return []Statement{
		sql("DROP OWNED BY ", pgIdent(user.s)).in(db.s).okIfMissing().done(),
		sql("DROP ROLE IF EXISTS ", pgIdent(user.s)).done(),
	}
}

// splitPostgres separates database-level from table-level privileges.
func splitPostgres(ps []Privilege) (database, table []Privilege) {
	for _, p := range ps {
		switch {
		case slices.Contains(postgresDatabasePrivileges, p):
			database = append(database, p)
		case slices.Contains(postgresTablePrivileges, p):
			table = append(table, p)
		}
	}
	return database, table
}

// SyncPrivileges: a grant on PostgreSQL means CONNECT and USAGE on schema
// public, the declared table privileges on every table there now, and the
// same on tables the database owner creates later (default privileges). A
// GRANT OPTION in diff.Revoke (read back from an out-of-band WITH GRANT
// OPTION) is revoked from every object in that scope. Without a schema list
// this is the public-schema scope of a tenant grant (see SyncGrant).
func (d postgres) SyncPrivileges(db DatabaseName, grantee, dbOwner Username, diff PrivilegeDiff) Plan {
	return postgresSync(db, grantee, dbOwner, publicScope, diff)
}

// RevokeAll removes what grantee holds in the public-schema scope.
func (d postgres) RevokeAll(db DatabaseName, grantee, dbOwner Username) Plan {
	return postgresRevokeAll(db, grantee, dbOwner, publicScope)
}
