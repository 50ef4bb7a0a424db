// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// Refusals the client raises after reading the server; their wording lives
// here with the others so every diagnostic reads the same way.

// ErrDatabasePreExists: the claim on a database name was lost.
func ErrDatabasePreExists(server string, e Engine, db DatabaseName) *Error {
	drop := "DROP DATABASE " + mysqlIdent(db.s) + ";"
	if e == EnginePostgres {
		drop = "DROP DATABASE " + pgIdent(db.s) + ";"
	}
	return refuse(DatabasePreExists, fmt.Sprintf("database %q on server %q", db, server),
		"The database already exists and this resource did not create it (or an apply of this resource was "+
			"interrupted after creating it: Terraform saves state only when an operation returns, and nothing on the "+
			"server proves which apply made a database); tenantdb never adopts a database silently.",
		fmt.Sprintf("Choose another name; or adopt it (it will then never be dropped by this resource) with:\n\n"+
			"  import {\n    to = tenantdb_tenant_database.<this resource>\n    id = jsonencode({ server = "+
			"tenantdb_db_server.<server>.ref, name = %q })\n  }\n\nor, only if an interrupted apply left it and it "+
			"holds nothing, remove it and apply again:\n\n  %s", db, drop))
}

// ErrDatabaseClaimUnproven: the connection was lost during this apply's
// CREATE DATABASE and the database that now exists carries no claim mark
// (MariaDB killed mid-statement can keep the directory and lose the
// comment): most likely this resource's own, but nothing proves it.
func ErrDatabaseClaimUnproven(server string, db DatabaseName) *Error {
	return refuse(DatabasePreExists, fmt.Sprintf("database %q on server %q", db, server),
		"The connection was lost while this apply created the database, and the database that now exists has no "+
			"claim mark (a server that crashed during CREATE DATABASE can keep the database and lose its comment): "+
			"it is most likely this resource's own, but nothing proves it, so tenantdb does not adopt it.",
		"If the database is empty, drop it and apply again (tenantdb then creates it with its mark); or adopt it "+
			"with terraform import (it will then never be dropped by this resource).")
}

// ErrPreExistingOwnerUser: the claim on a login name was lost. The fix
// gives the exact recoveries: the import block (adopt it), or, for a login
// an interrupted apply of this resource left where the engine keeps no
// mark to prove it (MySQL/MariaDB), the one statement that removes it.
func ErrPreExistingOwnerUser(server string, e Engine, db DatabaseName, user Username) *Error {
	drop := "DROP USER " + mysqlAccount(user) + ";"
	if e == EnginePostgres {
		drop = "DROP ROLE " + pgIdent(user.s) + ";"
	}
	return refuse(PreExistingOwnerUser, fmt.Sprintf("login %q on server %q", user, server),
		"The login already exists and this resource did not create it (or, on MariaDB and MySQL before 8.0.21, an "+
			"apply of this resource was interrupted after creating it: Terraform saves state only when an operation "+
			"returns, and those accounts carry no mark that proves whose it is; a MySQL 8.0.21+ login is taken over "+
			"only when its mark says an interrupted create of this database left it); tenantdb never resets a foreign "+
			"account's password.",
		fmt.Sprintf("Choose another username; or, if it really is the owner of database %q, adopt it (it will then never "+
			"be dropped by this resource) with:\n\n  import {\n    to = tenantdb_tenant_owner.<this resource>\n    id = "+
			"jsonencode({ server = tenantdb_db_server.<server>.ref, database = %q, username = %q })\n  }\n\nor, if an "+
			"interrupted apply left it and nothing uses it, remove it and apply again:\n\n  %s", db, db, user, drop))
}

// ErrKeptDefinerExists: an owner's create (or a rotation) named a login
// that exists locked and defines objects: what a destroy or a rotation of
// a tenantdb_tenant_owner keeps when MySQL refuses its DROP USER (4006).
// MySQL answers its CREATE USER with 4006 too. The recoveries: the import
// block (the apply after it sets the password and unlocks it), or freeing
// the name (the objects re-created by another login, then DROP USER).
func ErrKeptDefinerExists(server string, db DatabaseName, user Username, objects string) *Error {
	return refuse(PreExistingOwnerUser, fmt.Sprintf("login %q on server %q", user, server),
		fmt.Sprintf("The login already exists, locked (ACCOUNT LOCK): MySQL refuses to drop it (and to create it again: "+
			"error 4006) because it is the DEFINER of:\n%s\n\nso a tenantdb_tenant_owner's destroy or username rotation "+
			"kept it, locked, instead of dropping it. tenantdb never resets an existing account's password by a create: "+
			"nothing was changed.", objects),
		fmt.Sprintf("To manage it again as the owner of database %q, adopt it:\n\n  import {\n    to = "+
			"tenantdb_tenant_owner.<this resource>\n    id = jsonencode({ server = tenantdb_db_server.<server>.ref, "+
			"database = %q, username = %q })\n  }\n\nThe apply after the import sets its password from password_wo, "+
			"unlocks it (ACCOUNT UNLOCK) and grants the declared privileges; as an imported owner it is never dropped. "+
			"Or free the name: re-create those objects as another login (CREATE OR REPLACE VIEW with the same "+
			"definition; DROP and CREATE again each routine, trigger and event), or drop them, then drop the login as "+
			"the admin and apply again:\n\n  %s", db, db, user, DropUserStatement(user)))
}

// ErrOrphanDefinerName: an owner's create (or a rotation) named a login
// that does not exist but is the DEFINER of objects that outlived its DROP
// USER (by an account holding SET_ANY_DEFINER): MySQL refuses to create an
// account under that name (4006), which would inherit those objects.
func ErrOrphanDefinerName(server string, user Username, objects string) *Error {
	return refuse(PreExistingOwnerUser, fmt.Sprintf("login %q on server %q", user, server),
		fmt.Sprintf("No login of that name exists, but it is still named as the DEFINER of:\n%s\n\n(objects that "+
			"outlived the login's DROP USER). MySQL refuses to create an account under that name (error 4006): it "+
			"would run those objects with its rights. Nothing was changed.", objects),
		"Choose another username; or have a DBA drop those objects or re-create them under another definer, then "+
			"apply again.")
}

// ErrDatabaseInUse: a drop would cut sessions tenantdb did not open.
func ErrDatabaseInUse(server string, db DatabaseName, sessions []string) *Error {
	lines := make([]string, len(sessions))
	for i, s := range sessions {
		lines[i] = "  - " + s
	}
	return refuse(DatabaseInUse, fmt.Sprintf("database %q on server %q", db, server),
		fmt.Sprintf("Dropping it would cut %d session(s) tenantdb did not open:\n%s", len(sessions), strings.Join(lines, "\n")),
		"End those sessions (stop the applications, or pg_terminate_backend as an administrator), then apply again. tenantdb terminates nothing.")
}

// ErrIdentityMismatch: the database at the configured address is not the
// one this resource created or imported. why says what differs.
func ErrIdentityMismatch(server string, db DatabaseName, why string) *Error {
	return refuse(IdentityMismatch, fmt.Sprintf("database %q on server %q", db, server),
		why+" Nothing was altered or dropped.",
		"If the server really moved (a failover or a DNS change keeps the identity, so this is something else), check "+
			"host, port and TLS settings. To manage the database that is there now, remove this resource from state "+
			"(terraform state rm) and adopt it with terraform import; it will then never be dropped by this resource.")
}

// DatabaseInvalidWhy says what an invalid PostgreSQL database is and the
// statement that finishes it (the refusal's and the refresh warning's
// words).
func DatabaseInvalidWhy(db DatabaseName) string {
	return fmt.Sprintf("PostgreSQL marks this database invalid (pg_database.datconnlimit = -2): a DROP DATABASE of it "+
		"was stopped part way (cancelled, or the server crashed, while it removed the files). Its data is gone: no one "+
		"can connect to it, and the only statement PostgreSQL still accepts for it is the one that finishes the "+
		"drop:\n\n  DROP DATABASE %s;\n\nDestroying the tenant_database resource that created it (deletion_policy = "+
		"\"delete\") runs it; otherwise run it as an administrator, then apply again (the next apply creates the "+
		"database anew, empty).", pgIdent(db.s))
}

// ErrDatabaseInvalid refuses any change but its drop to an invalid
// PostgreSQL database (DatabaseInvalidWhy). Nothing was run.
func ErrDatabaseInvalid(server string, db DatabaseName) *Error {
	return refuse(DatabaseInvalid, fmt.Sprintf("database %q on server %q", db, server),
		DatabaseInvalidWhy(db), "Nothing was changed: tenantdb runs nothing on or in an invalid database but its drop.")
}

// ErrDatabaseGone: an in-place change found no database to change (dropped
// out of band, and this plan was made without a refresh). Not a refusal
// reason: the fix is an ordinary apply.
func ErrDatabaseGone(server string, db DatabaseName) error {
	return fmt.Errorf("database %q on server %q no longer exists (it was dropped outside Terraform), so there is "+
		"nothing to alter. Run terraform apply again with refresh (the default): the refresh notices it is gone "+
		"and the apply creates it again", db, server)
}

// ErrGrantUserMissing: a tenant grant names a principal that does not
// exist. Grants bring no principal into existence.
func ErrGrantUserMissing(server string, user Username) *Error {
	return refuse(GrantUserMissing, fmt.Sprintf("principal %q on server %q", user, server),
		"No such principal exists (MySQL/MariaDB: the account "+mysqlAccount(user)+"; PostgreSQL: a role of that name). "+
			"tenantdb_tenant_grant grants to existing principals only and never creates one. Nothing was changed.",
		"Create the principal outside this resource (by hand, or with the resource that manages it), then apply "+
			"again: the same configuration succeeds once it exists.")
}

// ErrDatabaseIdentityUnproven: a MariaDB database's comment no longer
// carries what this resource recorded (was), so nothing proves it is the
// same database; it may be, after an ordinary edit (now). It offers the
// statement that restores the comment, never a DROP: the database may hold
// the tenant's data.
func ErrDatabaseIdentityUnproven(server string, db DatabaseName, was, now string) *Error {
	return refuse(IdentityMismatch, fmt.Sprintf("database %q on server %q", db, server),
		fmt.Sprintf("Its comment is now %s, not the one this resource recorded as its identity (%s): it may be the same "+
			"database with its comment edited in place (a DBA, or the tenant's own login, may do that), or another "+
			"database (dropped and re-created outside Terraform, or the address now leads to another server). "+
			"Nothing was altered or dropped; it stays in state with database_created as it was.", quoteComment(now), quoteComment(was)),
		"If a DBA confirms it is the same database, give it its mark back (the mark only identifies; it is not a "+
			"secret), then apply again:\n\n  "+RestoreCommentStatement(db, was)+"\n\nIf it is another database, remove "+
			"this resource from state (terraform state rm); adopt that database with terraform import only if it "+
			"really is the tenant's.")
}

// ErrMySQLDatabaseUnproven: a MySQL database no longer carries the mark
// recorded as its identity (marker "<nonce>:<created>", "" when none was
// recorded): its tenant may have dropped the procedure, or it is another
// database. The recoveries: the statement that restores the recorded mark
// (as the admin login, after a DBA confirms it is the same database), or
// adopting it again with terraform import.
func ErrMySQLDatabaseUnproven(server string, db DatabaseName, marker string) *Error {
	fix := "If it is another database, remove this resource from state (terraform state rm); adopt that database " +
		"with terraform import only if it really is the tenant's (the first apply after the import gives it a new mark)."
	if restore := RestoreMySQLMarkStatement(db, marker); restore != "" {
		fix = "If a DBA confirms it is the same database, give it its mark back, logged in as tenantdb's admin login " +
			"(the mark only counts with that login as its DEFINER; it identifies, it is not a secret), then apply " +
			"again:\n\n  " + restore + "\n\nOr remove this resource from state (terraform state rm) and adopt the " +
			"database with terraform import (the first apply after the import gives it a new mark). " + fix
	}
	return refuse(IdentityMismatch, fmt.Sprintf("database %q on server %q", db, server),
		"It no longer carries the mark this resource recorded as its identity (the procedure "+MySQLMarkPrefix+
			"… tenantdb created in it, owned by the admin login): its tenant's own login may have dropped it, or it is "+
			"another database (dropped and re-created outside Terraform, or the address now leads to another server). "+
			"Nothing was altered or dropped; it stays in state with database_created as it was.", fix)
}

// quoteComment shows a schema comment in a diagnostic ("(empty)" for none).
func quoteComment(c string) string {
	if c == "" {
		return "empty"
	}
	return fmt.Sprintf("%q", c)
}

// ErrStillOwns: after REASSIGN OWNED the login still owns objects in db, so
// DROP OWNED (which would drop them) was not run, nor anything after it.
func ErrStillOwns(server string, db DatabaseName, user Username, admin RoleName, objects []string) error {
	return fmt.Errorf("%s on server %q: login %q still owns, in database %q, after its objects were reassigned to %q: %s. "+
		"Nothing was dropped (DROP OWNED would drop them). Reassign them by hand (in %s: REASSIGN OWNED BY %s TO %s;) "+
		"and apply again", "PostgreSQL", server, user.s, db.s, admin.s, strings.Join(objects, "; "), pgIdent(db.s),
		pgIdent(user.s), pgIdent(admin.s))
}

// ErrForeignHoldings: a login being dropped owns objects, or has default
// privileges, in other databases: tenantdb never drops or reassigns
// anything in another tenant's database, so the drop is refused before
// any statement, naming each database and what clears it.
func ErrForeignHoldings(server string, user Username, hs []ForeignHolding, lockedOut bool) error {
	var b strings.Builder
	for _, h := range hs {
		// DROP OWNED drops nothing where the login owns nothing: there it
		// only revokes its privileges and removes its default privileges.
		what, fix := "holds privileges (the admin may not connect there)", fmt.Sprintf("DROP OWNED BY %s;", pgIdent(user.s))
		switch {
		case h.OwnsObjects:
			what = "owns objects"
			fix = fmt.Sprintf("REASSIGN OWNED BY %s TO <that database's owner>; DROP OWNED BY %s;", pgIdent(user.s), pgIdent(user.s))
		case h.Defaults:
			what = "has default privileges"
		}
		fmt.Fprintf(&b, "\n  database %q: it %s there; connected to %s, run: %s", h.Database.s, what, pgIdent(h.Database.s), fix)
	}
	state := "Nothing was changed."
	if lockedOut {
		// An offboarding refuses this only after the lock-out and the
		// handover of its own database (dbclient's dropPostgresLogin).
		state = "The login is already locked out (NOLOGIN, its sessions ended) and its own database is no longer its own."
	}
	return fmt.Errorf("server %q: login %q cannot be dropped: PostgreSQL drops no role that owns objects or holds "+
		"privileges anywhere, and tenantdb never drops or reassigns objects it owns in another database:%s\n%s "+
		"Run those statements as that database's owner (or a superuser), then apply again",
		server, user.s, b.String(), state)
}

// ErrLoginStillHeld: DROP ROLE found something still depending on the
// login after tenantdb revoked what it read; detail is the server's list.
func ErrLoginStillHeld(server string, user Username, detail string, cause error) error {
	return fmt.Errorf("server %q: login %q cannot be dropped yet: %w\n\nPostgreSQL lists what still depends on it:\n%s\n\n"+
		"In each database named there, connected as its owner (or a superuser), run REVOKE ALL ON <object> FROM %s; "+
		"(or DROP OWNED BY %s; where the login owns nothing), then apply again. Its tenant's tables were already "+
		"handed to the database's keeper role", server, user.s, cause, detail, pgIdent(user.s), pgIdent(user.s))
}

// ErrHostOnPostgres refuses a host on a PostgreSQL owner or grant: roles
// have no host part.
func ErrHostOnPostgres(host string) error {
	return refuse(InvalidIdentifier, fmt.Sprintf("host %q", printable(host)),
		"PostgreSQL roles have no host part: host applies to MySQL/MariaDB accounts only.",
		"Remove host (restrict where a PostgreSQL role connects from in pg_hba.conf).")
}

// ErrHostCIDRUnsupported refuses a CIDR host on a server that cannot read
// one (MariaDB, MySQL before 8.0.23), naming its version.
func ErrHostCIDRUnsupported(info ServerInfo, h AccountHost) error {
	return refuse(InvalidIdentifier, fmt.Sprintf("host %q", h.s),
		fmt.Sprintf("CIDR notation needs MySQL 8.0.23 or later; this server is %s %s, which would read it as a host name that matches no client.",
			info.Flavor, info.Version),
		"Write the block with a netmask (10.20.0.0/255.255.0.0).")
}
