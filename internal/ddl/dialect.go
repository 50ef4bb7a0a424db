// SPDX-License-Identifier: MPL-2.0

package ddl

// Dialect renders statement plans for one server. Inputs are validated types
// only, so rendering cannot be handed raw strings.
type Dialect interface {
	Info() ServerInfo

	// CreateDatabase claims a name: no IF NOT EXISTS, so the server's own
	// uniqueness decides a race. PostgreSQL also revokes PUBLIC's rights.
	CreateDatabase(db DatabaseName, cs Charset, co Collation) Plan
	// CreateMarkedDatabase is CreateDatabase that also records mark with
	// the database where the server can (see StoresClaimMark).
	CreateMarkedDatabase(db DatabaseName, cs Charset, co Collation, mark ClaimMark) Plan
	// AlterDatabase changes character set/collation in place. PostgreSQL
	// cannot: it refuses with ImmutableAttribute.
	AlterDatabase(db DatabaseName, cs Charset, co Collation) (Plan, error)
	// DropDatabase drops a database this provider created.
	DropDatabase(db DatabaseName) Plan

	// CreateOwner creates the owner login and gives it the database.
	CreateOwner(db DatabaseName, owner Username, pw Password, privs PrivilegeSet) Plan
	// SetPassword sets a login's password. retainCurrent keeps the old one
	// valid too where the server has dual passwords (MySQL 8.0.14+).
	SetPassword(user Username, pw Password, retainCurrent bool) Plan
	// DiscardOldPassword ends a retained password (empty where unsupported).
	DiscardOldPassword(user Username) Plan
	// TransferOwnership hands what `from` owns in db to `to` (PostgreSQL),
	// the schemas of fromOwns (read just before) first.
	TransferOwnership(db DatabaseName, from, to Username, fromOwns OwnedContainers) Plan
	// DropLogin drops a login this provider created. On PostgreSQL what it
	// owns in db is first reassigned to the admin, so no table is lost.
	DropLogin(db DatabaseName, user Username) Plan

	// SyncPrivileges applies a desired-state diff for one principal on one
	// database: grants first, then revokes. dbOwner is the database's owner
	// (PostgreSQL default privileges are per creating role).
	SyncPrivileges(db DatabaseName, grantee, dbOwner Username, diff PrivilegeDiff) Plan
	// RevokeAll removes every privilege of grantee on db; a missing grantee
	// or grant is not an error.
	RevokeAll(db DatabaseName, grantee, dbOwner Username) Plan
}

// NewDialect returns the dialect for a connected server.
func NewDialect(info ServerInfo) Dialect {
	if info.Flavor == FlavorPostgres {
		return postgres{info: info}
	}
	return mysql{info: info}
}

// RotateOwner is a username change, create-before-drop: the handover
// creates the new login (with mark where the server keeps one) and grants
// it; when takeOver (the old login is still the recorded one) it also
// transfers what the old login owns in db and carries its default
// privileges (PostgreSQL; the schemas of oldOwns, what old owns in db
// read just before, are handed over first). The handover's undo returns
// everything to the old login and drops the new one, so a failure at any
// step leaves the tenant as it was: the old login owns and connects. Only
// when the handover has fully succeeded does the caller run drop, which
// removes the old login.
func RotateOwner(d Dialect, db DatabaseName, old, new Username, pw Password, privs PrivilegeSet, mark ClaimMark,
	takeOver bool, defaults DefaultACLs, oldOwns OwnedContainers) (handover, drop Plan) {
	handover = CreateMarkedOwner(d, db, new, pw, privs, mark)
	if takeOver && d.Info().Flavor == FlavorPostgres {
		handover.Statements = append(handover.Statements, d.TransferOwnership(db, old, new, oldOwns).Statements...)
		handover.Statements = append(handover.Statements, CarryDefaultPrivileges(db, new.Role(), defaults).Statements...)
		handover.Undo = UndoRotation(db, old, new).Statements
	}
	return handover, d.DropLogin(db, old)
}

// UndoRotation returns what a PostgreSQL rotation handed from old to new
// (the database, old's objects) to old, and drops new with its default
// privileges: the tenant is as it was before the rotation began.
func UndoRotation(db DatabaseName, old, new Username) Plan {
	return Plan{Statements: []Statement{
		// The database first (the create gave it to new): old may CREATE
		// in public again before REASSIGN moves new's routines there
		// (reassignOwned). A no-op when old still owns it.
		sql("ALTER DATABASE ", pgIdent(db.s), " OWNER TO ", pgIdent(old.s)).okIfMissing().done(),
		sql("REASSIGN OWNED BY ", pgIdent(new.s), " TO ", pgIdent(old.s)).in(db.s).okIfMissing().done(),
		sql("DROP OWNED BY ", pgIdent(new.s)).in(db.s).okIfMissing().done(),
		sql("DROP ROLE IF EXISTS ", pgIdent(new.s)).done(),
	}}
}
