// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A tenant grant gives an existing principal (never created here) a set of
// privileges on one tenant database, as desired state in both directions:
// grant what is missing first, then revoke only the surplus.
//
// MySQL/MariaDB: the principal is 'user'@'%' and the grant is its row in
// mysql.db for the database name with LIKE wildcards escaped.
//
// PostgreSQL: the principal is a role, and a grant means the same operations
// on the tenant's tables now and on tables the owner creates later:
//
//   - CONNECT on the database, plus CREATE/TEMPORARY when declared;
//   - USAGE on the tenant's schemas (those owned by the database owner, and
//     public, which pg_database_owner owns);
//   - the table privileges on every table the owner has there now;
//   - the same privileges by default on tables the owner creates there later
//     (ALTER DEFAULT PRIVILEGES FOR ROLE <owner> IN SCHEMA ...). An owner
//     username rotation carries these entries to the new owner.
//
// A schema the owner creates after the grant shows as drift on the next
// refresh (its USAGE and tables are missing) and the next apply grants there.

// GrantHeld is what one principal holds on one tenant database, read back
// from the server. Complete lists the privileges it holds wherever they
// apply (MySQL/MariaDB: its database-level row; PostgreSQL: with CONNECT,
// USAGE on every tenant schema, on every existing tenant table and in the
// owner's default privileges of every tenant schema). Any lists those it
// holds anywhere in that scope, a partial out-of-band grant included, and
// GRANT OPTION when any of it is grantable. Complete is within Any except
// for table privileges on PostgreSQL when there is nothing to hold them on.
type GrantHeld struct {
	Complete []Privilege
	Any      []Privilege
}

// HeldEverywhere is GrantHeld for a server where a privilege is held or not
// (MySQL/MariaDB: one row per principal and database).
func HeldEverywhere(ps []Privilege) GrantHeld {
	return GrantHeld{Complete: sortedUnique(ps), Any: sortedUnique(ps)}
}

// Diff is the desired-state change: grant what is not held completely
// (ALL PRIVILEGES stays one grant), revoke what is held anywhere and not
// desired, GRANT OPTION included.
func (h GrantHeld) Diff(info ServerInfo, desired PrivilegeSet) PrivilegeDiff {
	want := desired.Expand(info)
	var d PrivilegeDiff
	missing := minus(want, sortedUnique(h.Complete))
	if desired.all && len(missing) > 0 {
		d.Grant = []Privilege{AllPrivileges}
	} else {
		d.Grant = missing
	}
	d.Revoke = h.surplus(info, want)
	return d
}

func (h GrantHeld) surplus(info ServerInfo, want []Privilege) []Privilege {
	catalog := Catalog(info)
	var out []Privilege
	for _, p := range minus(sortedUnique(h.Any), want) {
		if slices.Contains(catalog, p) || p == GrantOption {
			out = append(out, p)
		}
	}
	return out
}

// Reported is what a refresh shows for a principal whose configuration
// declares desired: a declared privilege only when it is held completely, an
// undeclared one whenever it is held anywhere (so both show as drift). It
// equals desired.Expand(info) exactly when Diff is empty. With a zero
// desired (an import) it is everything held anywhere.
func (h GrantHeld) Reported(info ServerInfo, desired PrivilegeSet) []Privilege {
	want := desired.Expand(info)
	var out []Privilege
	for _, p := range want {
		if slices.Contains(h.Complete, p) {
			out = append(out, p)
		}
	}
	out = append(out, h.surplus(info, want)...)
	return sortedUnique(out)
}

// Imported is what an import shows, with no configuration to compare
// with: every privilege held completely, and GRANT OPTION wherever it is
// held. A privilege held only in part (PostgreSQL: SELECT on the tables
// without CONNECT on the database, as cyrilgdn leaves a grant its
// non-superuser admin made) is left out, so a configuration declaring it
// plans the update that completes it, and the refresh after that apply
// reads what the import read. (Reported with a zero desired set would show
// it, the plan would be empty, and the next refresh would find it missing.)
func (h GrantHeld) Imported(info ServerInfo) []Privilege {
	catalog := Catalog(info)
	var out []Privilege
	for _, p := range h.Complete {
		if slices.Contains(catalog, p) {
			out = append(out, p)
		}
	}
	if slices.Contains(h.Any, GrantOption) {
		out = append(out, GrantOption)
	}
	return sortedUnique(out)
}

// ShallowHeld is a shallow PostgreSQL refresh's judgement: the database
// privileges as read (dbPrivs), and, only while the principal has CONNECT,
// the declared table privileges taken as held (they were not read). Without
// CONNECT nothing of the grant works, so every declared privilege shows as
// missing and the next apply grants it all again.
func ShallowHeld(info ServerInfo, dbPrivs []Privilege, declared PrivilegeSet) GrantHeld {
	var h GrantHeld
	connect := slices.Contains(dbPrivs, "CONNECT")
	for _, p := range postgresDatabasePrivileges {
		if slices.Contains(dbPrivs, p) {
			h.Any = append(h.Any, p)
			if connect {
				h.Complete = append(h.Complete, p)
			}
		}
	}
	if !connect {
		h.Complete, h.Any = sortedUnique(h.Complete), sortedUnique(h.Any)
		return h
	}
	for _, p := range declared.Expand(info) {
		if slices.Contains(postgresTablePrivileges, p) {
			h.Complete = append(h.Complete, p)
			h.Any = append(h.Any, p)
		}
	}
	h.Complete, h.Any = sortedUnique(h.Complete), sortedUnique(h.Any)
	return h
}

// PostgresGrantRead is what the PostgreSQL catalogs say about one principal
// in one tenant database (see dbclient). Privileges are canonical names.
type PostgresGrantRead struct {
	Database      []Privilege       // its entries in the database ACL (CONNECT, CREATE, TEMPORARY)
	Schemas       int               // tenant schemas
	UsableSchemas int               // tenant schemas where it has USAGE (its own ACL entry)
	Reachable     int               // tenant schemas where it has USAGE, its own or PUBLIC's (see Held)
	Tables        int               // the owner's tables (and views) in tenant schemas
	OnTables      map[Privilege]int // how many of those give it each privilege
	InDefaults    map[Privilege]int // in how many tenant schemas the owner's default privileges give it each privilege
	WideDefaults  []Privilege       // what the owner's database-wide default privileges give it
	Grantable     bool              // any of the above WITH GRANT OPTION
}

// Held judges a PostgreSQL read: a privilege is complete only with CONNECT,
// USAGE everywhere, on every table and in every schema's default privileges.
//
// USAGE counts whether the principal's own or PUBLIC's: Held says what the
// principal can do, and import and every refresh read it the same way. On
// PostgreSQL 15+ PUBLIC has USAGE on schema public in every database,
// tenantdb's own included (a create revokes PUBLIC's CONNECT and TEMPORARY
// only), so a grant made the cyrilgdn way (CONNECT, SELECT on the tables,
// the owner's default privileges, no USAGE of its own) reads everything
// and imports as held: the first plan is empty instead of proposing a
// grant that changes no one's access. A tenant may revoke PUBLIC's USAGE
// (the owner is a member of pg_database_owner, which owns public); the
// principal then really loses access, the next refresh finds the schema
// unreachable and shows the privilege missing, and the apply grants the
// principal its own USAGE. Nothing is ever revoked from PUBLIC, nor
// counted on for a revoke (destroy revokes the principal's own entries).
// PUBLIC's CONNECT is not counted: tenantdb's isolation takes it away (at
// create, and by the REVOKE the migration guide gives after an import),
// so access through it is about to end by design.
func (r PostgresGrantRead) Held() GrantHeld {
	var h GrantHeld
	connect := slices.Contains(r.Database, "CONNECT")
	for _, p := range postgresDatabasePrivileges {
		if slices.Contains(r.Database, p) {
			h.Any = append(h.Any, p)
			if connect {
				h.Complete = append(h.Complete, p)
			}
		}
	}
	usable := r.Reachable >= r.Schemas
	for _, p := range postgresTablePrivileges {
		if r.OnTables[p] > 0 || r.InDefaults[p] > 0 || slices.Contains(r.WideDefaults, p) {
			h.Any = append(h.Any, p)
		}
		if connect && usable && r.OnTables[p] >= r.Tables && r.InDefaults[p] >= r.Schemas {
			h.Complete = append(h.Complete, p)
		}
	}
	if r.Grantable {
		h.Any = append(h.Any, GrantOption)
	}
	h.Complete, h.Any = sortedUnique(h.Complete), sortedUnique(h.Any)
	return h
}

// PostgresGrantScope is where a PostgreSQL grant applies in one database.
type PostgresGrantScope struct {
	// Schemas are the tenant schemas: USAGE, existing tables and the
	// owner's default privileges are granted and revoked in each.
	Schemas []SchemaName
	// WideDefaults: the owner's database-wide default privileges give the
	// principal something (an out-of-band grant), revoked as well.
	WideDefaults bool
}

// publicScope is the scope of the Dialect methods, which know no schemas.
var publicScope = PostgresGrantScope{Schemas: []SchemaName{{"public"}}}

// NewCatalogSchemaName accepts a schema name read from the catalog: any
// name PostgreSQL can hold (1 to 63 bytes of UTF-8 without NUL). It is
// always rendered quoted, so unlike NewSchemaName it needs no pattern.
func NewCatalogSchemaName(s string) (SchemaName, error) {
	if s == "" || len(s) > postgresMaxIdentifierBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return SchemaName{}, invalid("schema name", s, "is not a name PostgreSQL can hold")
	}
	return SchemaName{s}, nil
}

// pgSchemas renders schema names for IN SCHEMA / ON SCHEMA lists; public,
// the common case, is written bare as it always has been.
func pgSchemas(ss []SchemaName) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s.s == "public" {
			out[i] = "public"
		} else {
			out[i] = pgIdent(s.s)
		}
	}
	return strings.Join(out, ", ")
}

// postgresSync renders a desired-state change in scope: grants first,
// then revokes, never WITH GRANT OPTION.
func postgresSync(db DatabaseName, grantee, owner Username, scope PostgresGrantScope, diff PrivilegeDiff) Plan {
	var p Plan
	dbq, g, o := pgIdent(db.s), pgIdent(grantee.s), pgIdent(owner.s)
	schemas := pgSchemas(scope.Schemas)
	add := func(b *stmt) { p.Statements = append(p.Statements, b.done()) }
	if len(diff.Grant) > 0 {
		var dbPrivs, tablePrivs string
		if slices.Equal(diff.Grant, []Privilege{AllPrivileges}) {
			dbPrivs, tablePrivs = "ALL PRIVILEGES", "ALL PRIVILEGES"
		} else {
			database, table := splitPostgres(diff.Grant)
			dbPrivs = joinPrivileges(append([]Privilege{"CONNECT"}, database...))
			tablePrivs = joinPrivileges(table)
		}
		add(sql("GRANT ", dbPrivs, " ON DATABASE ", dbq, " TO ", g))
		if schemas != "" {
			add(sql("GRANT USAGE ON SCHEMA ", schemas, " TO ", g).in(db.s))
			if tablePrivs != "" {
				add(sql("GRANT ", tablePrivs, " ON ALL TABLES IN SCHEMA ", schemas, " TO ", g).in(db.s))
				add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " IN SCHEMA ", schemas, " GRANT ", tablePrivs, " ON TABLES TO ", g).in(db.s))
			}
		}
	}
	database, table := splitPostgres(diff.Revoke)
	if len(database) > 0 {
		add(sql("REVOKE ", joinPrivileges(database), " ON DATABASE ", dbq, " FROM ", g))
	}
	if len(table) > 0 {
		tp := joinPrivileges(table)
		if schemas != "" {
			add(sql("REVOKE ", tp, " ON ALL TABLES IN SCHEMA ", schemas, " FROM ", g).in(db.s))
			add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " IN SCHEMA ", schemas, " REVOKE ", tp, " ON TABLES FROM ", g).in(db.s))
		}
		if scope.WideDefaults {
			add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " REVOKE ", tp, " ON TABLES FROM ", g).in(db.s))
		}
	}
	if slices.Contains(diff.Revoke, GrantOption) {
		// Which object carries it is not tracked: take it off every one in
		// scope; the privileges themselves stay.
		const all = "REVOKE GRANT OPTION FOR ALL PRIVILEGES ON "
		add(sql(all, "DATABASE ", dbq, " FROM ", g))
		if schemas != "" {
			add(sql(all, "SCHEMA ", schemas, " FROM ", g).in(db.s))
			add(sql(all, "ALL TABLES IN SCHEMA ", schemas, " FROM ", g).in(db.s))
			add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " IN SCHEMA ", schemas, " REVOKE GRANT OPTION FOR ALL PRIVILEGES ON TABLES FROM ", g).in(db.s))
		}
		if scope.WideDefaults {
			add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " REVOKE GRANT OPTION FOR ALL PRIVILEGES ON TABLES FROM ", g).in(db.s))
		}
	}
	return p
}

// postgresRevokeAll removes everything grantee holds in scope: default
// privileges, tables, schemas, the database. A missing role is not an error.
func postgresRevokeAll(db DatabaseName, grantee, owner Username, scope PostgresGrantScope) Plan {
	var p Plan
	dbq, g, o := pgIdent(db.s), pgIdent(grantee.s), pgIdent(owner.s)
	schemas := pgSchemas(scope.Schemas)
	add := func(b *stmt) { p.Statements = append(p.Statements, b.okIfMissing().done()) }
	if schemas != "" {
		add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " IN SCHEMA ", schemas, " REVOKE ALL ON TABLES FROM ", g).in(db.s))
	}
	if scope.WideDefaults {
		add(sql("ALTER DEFAULT PRIVILEGES FOR ROLE ", o, " REVOKE ALL ON TABLES FROM ", g).in(db.s))
	}
	if schemas != "" {
		add(sql("REVOKE ALL ON ALL TABLES IN SCHEMA ", schemas, " FROM ", g).in(db.s))
		add(sql("REVOKE ALL ON SCHEMA ", schemas, " FROM ", g).in(db.s))
	}
	add(sql("REVOKE ALL ON DATABASE ", dbq, " FROM ", g))
	return p
}

// SyncGrant renders a tenant grant's desired-state change. owner is the
// PostgreSQL database owner (default privileges are per creating role) and
// scope where a PostgreSQL grant applies; both are ignored on MySQL/MariaDB.
func SyncGrant(d Dialect, db DatabaseName, grantee, owner Username, scope PostgresGrantScope, diff PrivilegeDiff) Plan {
	info := d.Info()
	if info.Flavor == FlavorPostgres {
		return postgresSync(db, grantee, owner, scope, diff)
	}
	return d.SyncPrivileges(db, grantee, owner, diff)
}

// RevokeGrant renders a tenant grant's destroy: everything grantee holds on
// db (in scope on PostgreSQL), and nothing elsewhere. A principal that has
// meanwhile disappeared is not an error (MySQL 8.0.30+: IGNORE UNKNOWN USER;
// MariaDB and PostgreSQL: the executor tolerates it).
func RevokeGrant(d Dialect, db DatabaseName, grantee, owner Username, scope PostgresGrantScope) Plan {
	if d.Info().Flavor == FlavorPostgres {
		return postgresRevokeAll(db, grantee, owner, scope)
	}
	return d.RevokeAll(db, grantee, owner)
}

// ErrGrantIdentityMismatch: the principal (or database) of a tenant grant
// is not the object the grant was made or imported for; nothing is granted
// or revoked.
func ErrGrantIdentityMismatch(server string, object, why string) *Error {
	return refuse(IdentityMismatch, fmt.Sprintf("%s on server %q", object, server),
		why+" Nothing was granted or revoked.",
		"If that is really the principal and database to grant on, remove this resource from state "+
			"(terraform state rm) and adopt the grant with terraform import; otherwise put the configuration back.")
}

// ErrGrantToOwner: a tenant grant never names the tenant's owner login.
// On PostgreSQL the owner holds every privilege by owning the database; on
// MySQL/MariaDB (no database owner) an account holding every
// database-level privilege on it before the grant is what tenant_owner
// makes, and a grant would narrow it to the grant's set (the owner could
// no longer CREATE TABLE) and the two resources would undo each other.
func ErrGrantToOwner(server string, db DatabaseName, user Username, why string) error {
	return refuse(GrantUserReserved, fmt.Sprintf("grant on database %q to %q on server %q", db.s, user.s, server),
		fmt.Sprintf("%q is the owner of database %q: %s A tenant_grant is for other principals; the owner's rights "+
			"are the tenantdb_tenant_owner's to manage. Nothing was granted or revoked.", user.s, db.s, why),
		"Remove this tenantdb_tenant_grant (the owner already has its rights), or grant to another principal; change "+
			"what the owner holds with the tenantdb_tenant_owner's privileges.")
}

// ErrAdminNotOwnerMember: a non-superuser PostgreSQL admin grants on a
// tenant's objects as their owner, so it must be a member of that role.
func ErrAdminNotOwnerMember(server string, db DatabaseName, owner, admin string) error {
	return fmt.Errorf("database %q on server %q is owned by role %q, and the admin %q is not a member of that role, "+
		"so it cannot grant or revoke on the tenant's objects (PostgreSQL would only warn and grant nothing). Nothing "+
		"was changed. Make the admin a member (as a superuser: GRANT %s TO %s), or manage the owner with "+
		"tenantdb_tenant_owner, which does that", db, server, owner, admin, pgIdent(owner), pgIdent(admin))
}

// ErrRecreatedDatabaseRevoked: MySQL/MariaDB, the database a grant or an
// owner was made on was dropped and re-created outside Terraform, and the
// new one had inherited the login's privilege rows for its name (rows
// outlive DROP DATABASE). The apply revoked what tenantdb had granted
// there (revoking never loses data), left what it had not (left: a DBA's
// privileges on the same row, named with the statement) and grants
// nothing on a database it never saw.
func ErrRecreatedDatabaseRevoked(server string, info ServerInfo, db DatabaseName, user Username, what string, revoked, left []Privilege) *Error {
	did := "Nothing tenantdb had granted was left on it to revoke."
	if len(revoked) > 0 {
		did = fmt.Sprintf("What tenantdb had granted there was revoked (%s).",
			strings.TrimSuffix(RevokePrivilegesText(info, db, user, revoked), ";"))
	}
	if len(left) > 0 {
		did += fmt.Sprintf(" %q also holds %s there, which tenantdb never granted: it was left as it is (to revoke it: %s).",
			user.s, joinPrivileges(left), RevokePrivilegesText(info, db, user, left))
	}
	return refuse(IdentityMismatch, fmt.Sprintf("database %q on server %q", db.s, server),
		fmt.Sprintf("The database there now is another one than this %s was made on (it carries another tenantdb "+
			"claim's mark: it was dropped and re-created), and it had inherited %q's privilege rows for its name "+
			"(MySQL/MariaDB keep them after DROP DATABASE). %s Nothing was granted on the new database.",
			what, user.s, did),
		"If the database there is the tenant's after all, give it back its claim mark (the tenantdb_tenant_database's "+
			"warning gives the ALTER DATABASE statement) or adopt it with terraform import (its first apply marks it): "+
			"this resource then takes it for its own and grants as the configuration declares. If it is not, remove "+
			"this resource from the configuration: nothing tenantdb granted is left on the server. Until then every apply refuses.")
}

// RevokeAllText is the MySQL/MariaDB statement that revokes everything
// user holds on db's name, as a diagnostic shows it for a user to run.
func RevokeAllText(info ServerInfo, db DatabaseName, user Username) string {
	return "REVOKE ALL PRIVILEGES ON " + mysqlGrantTarget(info, db) + " FROM " + mysqlAccount(user) + ";"
}
