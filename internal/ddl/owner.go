// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// StoresLoginMark reports whether CREATE USER records a claim mark with the
// login: MySQL 8.0.21+ keeps a JSON ATTRIBUTE (information_schema
// USER_ATTRIBUTES). MariaDB and PostgreSQL identify a login otherwise (see
// dbclient's login identity).
func StoresLoginMark(info ServerInfo) bool {
	return info.Flavor == FlavorMySQL && info.Version.AtLeast(8, 0, 21)
}

// CreateMarkedOwner is CreateOwner that also records mark with the login
// where the server can (StoresLoginMark), in the CREATE USER itself.
func CreateMarkedOwner(d Dialect, db DatabaseName, owner Username, pw Password, privs PrivilegeSet, mark ClaimMark) Plan {
	p := d.CreateOwner(db, owner, pw, privs)
	if mark.IsZero() || !StoresLoginMark(d.Info()) || len(p.Statements) == 0 {
		return p
	}
	first := p.Statements[0]
	suffix := mysqlAttributeClause(`{"tenantdb": "` + mark.s + `"}`)
	first.sql += suffix
	first.redacted += suffix
	p.Statements = append([]Statement{first}, p.Statements[1:]...)
	return p
}

// ErrOwnerConflict: the database already has another owner.
func ErrOwnerConflict(server string, db DatabaseName, other, why string) *Error {
	return refuse(OwnerConflict, fmt.Sprintf("database %q on server %q", db, server),
		fmt.Sprintf("The database already has an owner other than the admin: %q. %s Nothing was created or changed.", printable(other), why),
		ownerConflictFix)
}

const ownerConflictFix = "A tenant database has one owner. Manage that owner with its own tenantdb_tenant_owner (import it), or hand " +
	"the database back to the admin before creating this one."

// ErrOwnerConflictMySQL is ErrOwnerConflict on MySQL/MariaDB, where the
// other owner may be the new login of a username rotation whose apply was
// killed after it dropped the old login (Terraform saves state only when
// an operation returns; accounts carry no mark that proves whose it is):
// the fix also gives the one statement that removes it. An account holds
// no tables there, so dropping it loses nothing of the tenant's.
func ErrOwnerConflictMySQL(server string, db DatabaseName, other Username) *Error {
	e := ErrOwnerConflict(server, db, other.s,
		"That account holds privileges on it and carries its owner mark (the per-hour update limit a "+
			"tenantdb_tenant_owner's CREATE USER sets), so it is that database's owner login.")
	e.Fix += fmt.Sprintf("\n\nIf an interrupted apply of this resource made it (a username rotation to %q), either set username = %q "+
		"and apply, or remove it and apply again (MySQL/MariaDB accounts own no tables):\n\n  DROP USER %s;", other.s, other.s, mysqlAccount(other))
	return e
}

// ErrOwnerConflictRotated is ErrOwnerConflict on PostgreSQL when the other
// owner's mark proves it was made for this database by a username rotation
// of a tenantdb_tenant_owner that finished (its old login is gone) in an
// apply that was killed before saving state. Going back to the old name
// means a new rotation, from that login: the fix says how, with no SQL.
func ErrOwnerConflictRotated(server string, db DatabaseName, other Username) *Error {
	e := ErrOwnerConflict(server, db, other.s,
		"Its mark says a username rotation of a tenantdb_tenant_owner made it for this database and finished (the login "+
			"it took over from is gone), in an apply that was interrupted before Terraform saved its state.")
	e.Fix = fmt.Sprintf("If that was this resource and it is still in state, apply again with refresh (the default): the "+
		"refresh finds %q from its mark and the plan rotates to the configured name. If it is no longer in state, adopt "+
		"it (it then stays on the server when this resource is destroyed) with username = %q and:\n\n  import {\n    to = "+
		"tenantdb_tenant_owner.<this resource>\n    id = jsonencode({ server = tenantdb_db_server.<server>.ref, database = "+
		"%q, username = %q })\n  }\n\nOtherwise: %s", other.s, other.s, db.s, other.s, ownerConflictFix)
	return e
}

// MakeDatabaseOwner hands a PostgreSQL database to its owner login (again,
// when it was handed elsewhere out of band, or to an imported owner). As in
// CreateOwner, the admin first becomes a member of the owner role, which
// PostgreSQL requires to give it a database.
func MakeDatabaseOwner(db DatabaseName, owner Username) Plan {
	return Plan{Statements: []Statement{
		adminJoins(owner),
		sql("ALTER DATABASE ", pgIdent(db.s), " OWNER TO ", pgIdent(owner.s)).done(),
	}}
}

// ImportedOwnerHandBack is, for a diagnostic, what hands a PostgreSQL
// tenant database that an imported owner keeps after its destroy to the
// admin running it (tenantdb never takes it: the login was not its own).
func ImportedOwnerHandBack(db DatabaseName, owner Username) string {
	return "ALTER DATABASE " + pgIdent(db.s) + " OWNER TO CURRENT_USER;\n  -- then, connected to database " + pgIdent(db.s) +
		":\n  REASSIGN OWNED BY " + pgIdent(owner.s) + " TO CURRENT_USER;"
}

// JoinOwnerRole makes the admin a member of a PostgreSQL owner role, as
// CreateOwner and MakeDatabaseOwner do first: an imported owner's database
// is then the admin's to manage (connect to it once PUBLIC has no CONNECT,
// grant on its tables, ALTER DEFAULT PRIVILEGES FOR ROLE the owner).
// PostgreSQL 15 allows it to a CREATEROLE admin; 16+ only when the admin
// administers the role (ErrRoleNotAdministered names the statement).
func JoinOwnerRole(owner Username) Plan {
	return Plan{Statements: []Statement{adminJoins(owner)}}
}

// adminJoins is the one rendering of the admin's membership in an owner role.
func adminJoins(owner Username) Statement {
	return sql("GRANT ", pgIdent(owner.s), " TO CURRENT_USER").done()
}

// ErrPostgresOwnerPrivileges: a PostgreSQL owner's privileges are its
// ownership; a narrower set would mean nothing.
func ErrPostgresOwnerPrivileges(declared []string) *Error {
	return refuse(PrivilegeNotAllowed, fmt.Sprintf("owner privileges %q", printable(strings.Join(declared, ", "))),
		"On PostgreSQL the owner login owns the tenant database, which implies every privilege on it; a narrower "+
			"set cannot be expressed for an owner.",
		`Set privileges = ["ALL PRIVILEGES"] (or leave it out), and use tenantdb_tenant_grant for logins that need less.`)
}

// RetainsCurrentPassword reports whether SetPassword can keep the current
// password valid beside the new one (MySQL 8.0.14+ dual passwords).
func RetainsCurrentPassword(info ServerInfo) bool {
	return info.Flavor == FlavorMySQL && info.Version.AtLeast(8, 0, 14)
}

// AdministersRolesItCreates reports whether the server limits a CREATEROLE
// admin to roles it administers (PostgreSQL 16+: roles it created, or was
// granted WITH ADMIN OPTION). Before 16, CREATEROLE reaches every
// non-superuser role.
func AdministersRolesItCreates(info ServerInfo) bool {
	return info.Flavor == FlavorPostgres && info.Version.AtLeast(16, 0, 0)
}

// ErrRoleNotAdministered: on PostgreSQL 16+ the admin may alter, grant or
// hand over only roles it administers; an imported owner made by someone
// else is not one of them until a superuser says so.
func ErrRoleNotAdministered(server string, admin AdminAccount, role Username, version Version) *Error {
	return refuse(MissingAdminRights, fmt.Sprintf("login %q on server %q", role.s, server),
		fmt.Sprintf("PostgreSQL %s lets a CREATEROLE admin change only the roles it administers (those it created, "+
			"or was granted WITH ADMIN OPTION). The admin login %q does not administer %q, a login created "+
			"outside this provider (imported), so it cannot set its password or hand it the database. Nothing was changed.",
			version, admin.User, role.s),
		"Run as a superuser:\n  GRANT "+pgIdent(role.s)+" TO "+pgIdent(admin.User)+" WITH ADMIN OPTION;\nthen apply again. "+
			"(Roles the admin creates itself need nothing: PostgreSQL 16+ gives it ADMIN OPTION on them.)")
}

// ErrRotationToPendingLogin: a username rotation back to a login this
// resource rotated out earlier and has not managed to drop yet
// (previous_username). A rotation always creates its new login, so the
// old one must be gone first; its drop was retried and failed again (why).
func ErrRotationToPendingLogin(server string, db DatabaseName, user, current Username, why string) *Error {
	return refuse(PreExistingOwnerUser, fmt.Sprintf("login %q on server %q", user.s, server),
		fmt.Sprintf("Login %q is this resource's own earlier owner login of database %q: a username rotation moved "+
			"the database to %q and left %q waiting to be dropped (previous_username). Going back to it is a new "+
			"rotation, which creates the login afresh, so the old one must be gone first; its drop was retried just "+
			"now and failed again:\n\n%s\n\nNothing was changed: %q still owns the database.", user.s, db, current.s, user.s, why, current.s),
		fmt.Sprintf("Fix what keeps %q from being dropped (above; on PostgreSQL usually objects it owns or privileges it "+
			"holds in another database: REASSIGN OWNED BY %s TO <someone>; DROP OWNED BY %s; in that database; on MySQL "+
			"the objects it is the DEFINER of: re-create them connected as %q, or drop them), then apply again; or keep "+
			"username = %q until an apply has dropped it (every apply retries the drop).",
			user.s, pgIdent(user.s), pgIdent(user.s), current.s, current.s))
}
