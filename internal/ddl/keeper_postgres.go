// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The keeper of a retained PostgreSQL database. An owner's offboarding
// (database retained) hands the database and everything the owner made in
// it to a NOLOGIN role tenantdb creates for that database alone, never to
// the admin: the admin holds CREATEROLE and CREATEDB, and whatever runs
// with its owner's rights (a SECURITY DEFINER function or procedure, a
// view's query, a rule, a trigger calling a definer function, a default or
// policy expression calling one) would run with the admin's. The keeper
// has no attribute (no LOGIN, CREATEROLE, CREATEDB, REPLICATION,
// BYPASSRLS), is a member of no role, and only the admin is a member of
// it (to act on its objects); it owns nothing outside its database. A
// grantee, PUBLIC or a login made later calling such an object runs with
// the keeper's rights: at most what the owner had in that one database,
// and nothing on the server. Re-onboarding (a new owner declared for the
// database) hands everything from the keeper to the new owner and drops
// the keeper.
//
// Its name is in tenantdb's scratch namespace (NonceDatabasePrefix), which
// tenant names are refused from (ReservedNames), derived from the
// database's name: "tenantdb_claim_k" and 16 hex digits of a hash, 32
// characters. Only a CREATEROLE role can make a role of that name; one
// that exists is used only when it still looks as tenantdb makes it
// (dbclient checks, before any statement that hands it anything).

// KeeperName is the keeper role of db.
func KeeperName(db DatabaseName) Username {
	h := sha256.Sum256([]byte("tenantdb-keeper:" + db.s))
	return Username{s: NonceDatabasePrefix + "k" + hex.EncodeToString(h[:8])}
}

// IsKeeperOf reports whether role is db's keeper.
func IsKeeperOf(db DatabaseName, role string) bool { return role == KeeperName(db).s }

// CreateKeeper makes db's keeper and lets the admin act as it (on 15 a
// CREATEROLE admin is not a member of what it creates; on 16+ the creator
// holds ADMIN OPTION only, and a membership with SET is what ALTER …
// OWNER TO and REASSIGN OWNED … TO need). NOLOGIN, and nothing else.
func CreateKeeper(db DatabaseName) Plan {
	k := KeeperName(db)
	return Plan{Statements: []Statement{
		sql("CREATE ROLE ", pgIdent(k.s), " NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS").done(),
		adminJoins(k),
	}}
}

// LockOutLogin is the first step of an owner's offboarding: the login can
// no longer log in (NOLOGIN), and its sessions are ended (the admin is a
// member of the owner role, which is what pg_terminate_backend needs; a
// session it may not end is left alone rather than fail the lock-out).
// Both are idempotent, so a retried offboarding repeats them.
func LockOutLogin(user Username) Plan {
	return Plan{Statements: []Statement{
		sql("ALTER ROLE ", pgIdent(user.s), " NOLOGIN").okIfMissing().done(),
		sql("SELECT pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a",
			" WHERE a.usename = ", pgLiteral(user.s), " AND a.pid <> pg_catalog.pg_backend_pid()",
			" AND pg_catalog.pg_has_role(a.usesysid, 'USAGE')").done(),
	}}
}

// LetLoginIn undoes LockOutLogin: an owner login the configuration
// declares again after an offboarding was interrupted past its lock-out
// (a killed apply, then the previous configuration applied back).
func LetLoginIn(user Username) Plan {
	return Plan{Statements: []Statement{sql("ALTER ROLE ", pgIdent(user.s), " LOGIN").done()}}
}

// HandOwnedToKeeper renders the handover of an offboarding: the admin
// joins the owner role (an owner login has it from its create; a login
// whose create was the last thing a killed apply did may not), and
// everything user owns in db, the database included, goes to db's keeper,
// the containers user owns first (reassignOwned).
func HandOwnedToKeeper(db DatabaseName, user Username, owns OwnedContainers) Plan {
	return Plan{Statements: handOwnedTo(db, user, pgIdent(KeeperName(db).s), owns)}
}

// HandOwnedToRole is HandOwnedToKeeper with another receiver: a rotation's
// old login leaves what it still owns to the login that took the database
// over (the tenant's own login: no rights gained).
func HandOwnedToRole(db DatabaseName, user Username, to RoleName, owns OwnedContainers) Plan {
	return Plan{Statements: handOwnedTo(db, user, pgIdent(to.s), owns)}
}

func handOwnedTo(db DatabaseName, user Username, to string, owns OwnedContainers) []Statement {
	return append([]Statement{sql("GRANT ", pgIdent(user.s), " TO CURRENT_USER").okIfMissing().done()},
		reassignOwned(db, pgIdent(user.s), to, owns)...)
}

// KeeperHandsTo renders re-onboarding's part: what db's keeper owns there
// goes to the new owner (its schemas first, reassignOwned; the caller's
// plan has made owner the database's owner already, so owns.Database is
// false), and the keeper, owning nothing left, goes (DROP OWNED removes
// its default privileges, which the caller carried to owner first).
// Inside db, so it shares the owner's create transaction.
func KeeperHandsTo(db DatabaseName, owner Username, owns OwnedContainers) Plan {
	k := pgIdent(KeeperName(db).s)
	return Plan{Statements: append(reassignOwned(db, k, pgIdent(owner.s), owns),
		sql("DROP OWNED BY ", k).in(db.s).done(),
		sql("DROP ROLE ", k).done(),
	)}
}

// DropKeeper renders, after db itself was dropped, the drop of its keeper
// (it owned nothing elsewhere).
func DropKeeper(db DatabaseName) Plan {
	return Plan{Statements: []Statement{sql("DROP ROLE IF EXISTS ", pgIdent(KeeperName(db).s)).done()}}
}

// KeeperFault is why an existing role of a keeper's name is not used.
type KeeperFault struct {
	Attributes []string // attributes beyond NOLOGIN (LOGIN, SUPERUSER, …)
	MemberOf   []string // roles it is a member of
	Members    []string // members other than the admin
	Elsewhere  []string // other databases where it owns or holds anything
	NotAdmin   bool     // PostgreSQL 16+: the admin does not administer it
}

// Empty reports that the role looks as tenantdb makes its keepers.
func (f KeeperFault) Empty() bool {
	return len(f.Attributes)+len(f.MemberOf)+len(f.Members)+len(f.Elsewhere) == 0 && !f.NotAdmin
}

// ErrKeeperTampered refuses to hand db to a keeper that is not as tenantdb
// makes it: whoever calls the tenant's code would get more than db. The
// owner login is already locked out (lockedOut) when it is reported.
func ErrKeeperTampered(server string, db DatabaseName, user Username, f KeeperFault, lockedOut bool) error {
	k := KeeperName(db).s
	var why []string
	if len(f.Attributes) > 0 {
		why = append(why, "it has "+strings.Join(f.Attributes, ", "))
	}
	if len(f.MemberOf) > 0 {
		why = append(why, "it is a member of "+strings.Join(f.MemberOf, ", "))
	}
	if len(f.Members) > 0 {
		why = append(why, "it was granted to "+strings.Join(f.Members, ", "))
	}
	if len(f.Elsewhere) > 0 {
		why = append(why, "it owns or holds something in database(s) "+strings.Join(f.Elsewhere, ", "))
	}
	if f.NotAdmin {
		why = append(why, "the admin does not administer it (it was not created by the admin)")
	}
	state := "Nothing was changed."
	if lockedOut {
		state = fmt.Sprintf("Login %q is already locked out (NOLOGIN, its sessions ended); the database and its objects are still its own.", user.s)
	}
	return &Error{Reason: IdentityMismatch, Object: fmt.Sprintf("keeper role %q of database %q on server %q", k, db.s, server),
		Why: "tenantdb hands a retained database and its objects to this NOLOGIN role, which must hold nothing beyond that " +
			"database: " + strings.Join(why, "; ") + ". " + state,
		Fix: fmt.Sprintf("A superuser checks who made role %s and why; if nothing needs it, DROP ROLE %s; (after REASSIGN/DROP "+
			"OWNED where it owns anything), then apply again.", pgIdent(k), pgIdent(k))}
}

// DropOwnedIn renders an offboarding's removal of what user holds in
// another database, where it owns nothing but large objects (dbclient
// reads that first): its large objects, its default privileges and the
// privileges granted to it there. The login is locked out by then.
func DropOwnedIn(other DatabaseName, user Username) Plan {
	return Plan{Statements: []Statement{sql("DROP OWNED BY ", pgIdent(user.s)).in(other.s).okIfMissing().done()}}
}

// DropOwnedStatement is, for a diagnostic, what removes user's privileges
// and default privileges in the database it is run in.
func DropOwnedStatement(user Username) string { return "DROP OWNED BY " + pgIdent(user.s) + ";" }
