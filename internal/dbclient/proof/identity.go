// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Identity names one database object, not just its name: what the server
// gives the object when it is made, so a database dropped and re-created by
// someone else, or a server address that now leads to another server, is
// never taken for the one a resource created. Forms (stored in Terraform
// private state; never change them without a migration):
//
//	pg:<system identifier>:<database OID>  PostgreSQL: the cluster and the object.
//	                                       A physical replica has both, so a
//	                                       failover keeps the identity.
//	mariadb:<schema comment>              MariaDB: tenantdb writes a random
//	                                       claim mark as the comment in the
//	                                       CREATE DATABASE itself (and, for an
//	                                       imported database, at the first apply
//	                                       after the import); replicas, dumps and
//	                                       ALTER DATABASE … COLLATE keep it. Anyone
//	                                       with ALTER on the database (a DBA, the
//	                                       tenant's owner) may rewrite it, so a
//	                                       changed comment is Unproven, never
//	                                       proof of another database.
//	mysql:<nonce>:<created>               MySQL 8+: the database's mark, an
//	                                       empty procedure the admin creates in
//	                                       it right after CREATE DATABASE
//	                                       (ddl/claim_mark_mysql.go): the nonce
//	                                       its name carries and its CREATED time
//	                                       (unix seconds), read only when its
//	                                       DEFINER is the admin login. Its tenant
//	                                       may drop it but cannot make one (the
//	                                       definer would be the tenant); a
//	                                       re-created database has none; a
//	                                       replica has it, so a failover keeps it.
//	mysql:<server_uuid>                   MySQL 8+ database without a mark
//	                                       (imported, or recorded by a version
//	                                       before marks): only the server is
//	                                       known until the first apply writes
//	                                       one (NeedsMark).
type Identity string

// Verdict is how a database found on the server relates to a recorded identity.
type Verdict int

const (
	// Same: the recorded object (or, where the engine cannot tell, nothing
	// shows it is another one).
	Same Verdict = iota
	// Replaced: positive evidence that the same server holds another object
	// of that name (PostgreSQL: another OID; MySQL: a counted mark of
	// another claim). Never a mark that is merely missing.
	Replaced
	// OtherServer: the address leads to another server.
	OtherServer
	// Unproven: what identified the object is gone, unreadable or no longer
	// counted, or was rewritten where its own tenant or a DBA may write (a
	// MariaDB schema comment; a MySQL mark procedure, which the tenant may
	// drop or whose definer may lose the admin's rights; a MariaDB login's
	// password, which any login may change): it may be the recorded object
	// after an ordinary edit, or another one. It stays in state; nothing is
	// altered, dropped or revoked on it beyond what the resource itself
	// granted (its own account's rows), and a warning says what is missing.
	Unproven
)

func (v Verdict) String() string {
	return [...]string{"same", "replaced", "other server", "unproven"}[v]
}

// Compare is the one verdict on a database for every resource (database,
// owner, grant): got (read now) against recorded (in state). The rule
// (PROOFS.md, "A missing proof is never a replacement"): Replaced needs
// positive evidence that the object there now is another one; a mark that
// is gone, unreadable or no longer counted is Unproven.
//
//   - PostgreSQL: another OID on the same cluster is Replaced (the server
//     gives it; no tenant chooses it), another cluster OtherServer.
//   - MySQL 8+: the mark is a procedure only an admin can make (its
//     definer must hold the global CREATE ROUTINE). A counted mark with
//     another nonce is another claim's database: Replaced. No counted mark
//     (the tenant dropped it, a DBA re-created the database by hand, or its
//     definer lost the admin's rights), or the same nonce with another
//     CREATED time (a dump of this very database restored), is Unproven.
//     Two unmarked databases (imported, recorded as the server's uuid) can
//     only tell servers apart: another uuid is OtherServer; one marked since
//     the import is Same (the first apply after the import writes the mark;
//     the window README gives).
//   - MariaDB: the comment is a hint anyone with ALTER on the database may
//     write (the tenant included, a claim mark's form too): no comment is
//     evidence of another database, so any difference is Unproven; an
//     import recorded without a mark takes the mark its first apply writes.
func Compare(recorded, got Identity) Verdict {
	if recorded == got {
		return Same
	}
	rk, rv, _ := strings.Cut(string(recorded), ":")
	gk, gv, _ := strings.Cut(string(got), ":")
	if rk != gk {
		return OtherServer
	}
	switch rk {
	case "pg":
		rsys, _, _ := strings.Cut(rv, ":")
		gsys, _, _ := strings.Cut(gv, ":")
		if rsys != gsys {
			return OtherServer
		}
		return Replaced
	case "mysql":
		switch {
		case !recorded.Strong() && !got.Strong():
			return OtherServer // two server uuids
		case !recorded.Strong():
			return Same // marked since the import
		case !got.Strong():
			return Unproven // no counted mark: gone, never replaced
		case ddl.MySQLMarkerNonce(rv) == ddl.MySQLMarkerNonce(gv):
			return Unproven // this claim's mark made again (a restored dump)
		}
		return Replaced // another claim's mark: only an admin makes one
	case "mariadb":
		if recorded.NeedsMark() && got.Strong() {
			return Same // marked by the first apply after the import
		}
		return Unproven
	}
	return Unproven
}

func (id Identity) isMySQL() bool { return strings.HasPrefix(string(id), "mysql:") }

// MySQLMarker is the "<nonce>:<created>" of a MySQL identity with a mark;
// ok is false for every other identity.
func (id Identity) MySQLMarker() (marker string, ok bool) {
	v, isMySQL := strings.CutPrefix(string(id), "mysql:")
	if !isMySQL || !ddl.IsMySQLMarker(v) {
		return "", false
	}
	return v, true
}

// Comment is the schema comment a MariaDB identity is made of; ok is false
// for every other kind.
func (id Identity) Comment() (comment string, ok bool) {
	kind, v, _ := strings.Cut(string(id), ":")
	if kind != "mariadb" {
		return "", false
	}
	return v, true
}

// NeedsMark reports whether the identity is a MariaDB or MySQL database's
// that carries no claim mark (imported, or created before marks): nothing
// tells it from another server's database of that name (nor, on MySQL,
// from one re-created on the same server) until the first apply writes one
// (MarkDatabase).
func (id Identity) NeedsMark() bool {
	_, ok := id.Comment()
	return (ok || id.isMySQL()) && !id.Strong()
}

// Strong reports whether the identity tells one object from a later one of
// the same name on the same server (PostgreSQL; MariaDB and MySQL databases
// carrying tenantdb's mark). Imported databases without a mark are
// identified by name on a known server only.
func (id Identity) Strong() bool {
	kind, v, _ := strings.Cut(string(id), ":")
	switch kind {
	case "pg":
		return true
	case "mariadb":
		_, ok := ddl.ParseClaimMark(v)
		return ok
	case "mysql":
		return ddl.IsMySQLMarker(v)
	}
	return false
}

// databaseQuery reads one database (name != "") or all of them, as the
// columns DatabaseState scans: name, charset, collation, owner, marker.
func (s *Server) databaseQuery(name string) string {
	return s.databaseQueryMarks(name, ddl.MySQLMarksQuery)
}

// databaseQueryLedger is databaseQuery where a MySQL mark also counts when
// the ledger records its DEFINER as a writer (ddl.MySQLMarksQueryLedger);
// "" where the server keeps no ledger (MariaDB, PostgreSQL, MySQL before
// 8.0.21). A read that finds no ledger falls back to databaseQuery
// (withLedgerMarks).
func (s *Server) databaseQueryLedger(name string) string {
	if s.info.Flavor != ddl.FlavorMySQL || !s.UsesLedger() {
		return ""
	}
	return s.databaseQueryMarks(name, ddl.MySQLMarksQueryLedger)
}

// withLedgerMarks runs read with the ledger-aware database query when the
// server may keep a ledger, and again with the plain one when it has none
// (1049/1146) or may not read it (an admin narrowed below the documented
// rights): the marks of an admin decommissioned after a rotation still
// count wherever the ledger records it (PROOFS.md).
func (s *Server) withLedgerMarks(name string, read func(q string) error) error {
	if q := s.databaseQueryLedger(name); q != "" {
		if err := read(q); !ledgerMissing(err) && !session.IsAccessDenied(err) {
			return err
		}
	}
	return read(s.databaseQuery(name))
}

func (s *Server) databaseQueryMarks(name, marks string) string {
	var q string
	switch s.info.Flavor {
	case ddl.FlavorPostgres:
		q = `SELECT datname, pg_encoding_to_char(encoding), datcollate, pg_get_userbyid(datdba), oid::text, datconnlimit = -2 FROM pg_database`
		if name != "" {
			q += ` WHERE datname = $1`
		}
		return q
	case ddl.FlavorMariaDB:
		q = `SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, '', SCHEMA_COMMENT, FALSE FROM information_schema.SCHEMATA`
	default: // MySQL 8 has no SCHEMA_COMMENT: the marker is the mark procedure's, one join for every database
		q = `SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, '', COALESCE(m.mark, ''), FALSE ` +
			`FROM information_schema.SCHEMATA s LEFT JOIN (` + marks + `) m ON m.ROUTINE_SCHEMA = s.SCHEMA_NAME`
	}
	if name != "" {
		if s.foldsNames() {
			q += ` WHERE LOWER(SCHEMA_NAME) = LOWER(?)`
		} else {
			q += ` WHERE SCHEMA_NAME = ?`
		}
	}
	return q
}

// foldsNames reports whether the server compares database names without
// regard to case (MySQL/MariaDB lower_case_table_names 1 or 2).
func (s *Server) foldsNames() bool {
	return s.info.Flavor != ddl.FlavorPostgres && s.info.LowerCaseTableNames != 0
}

// lookupKey is how the catalog keys a database name: as the server compares.
func (s *Server) lookupKey(name string) string {
	if s.foldsNames() {
		return strings.ToLower(name)
	}
	return name
}

// ServerID reads the server-level part of identities once per process.
func (s *Server) ServerID(ctx context.Context) (string, error) {
	if s.info.Flavor == ddl.FlavorMariaDB {
		return "", nil
	}
	c := &s.catalog
	if !s.sess.HoldsLock(ctx) {
		// Only callers without a connection of their own wait for
		// another's read: one holding its lock's connection reads on
		// it, so a full pool of lock holders never waits here for a
		// reader that needs a pool connection.
		c.idRead.Lock()
		defer c.idRead.Unlock()
	}
	c.mu.Lock()
	id := c.serverID
	c.mu.Unlock()
	if id != "" {
		return id, nil
	}
	q := `SELECT @@global.server_uuid`
	if s.info.Flavor == ddl.FlavorPostgres {
		q = `SELECT system_identifier::text FROM pg_control_system()`
	}
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		return db.QueryRowContext(ctx, q).Scan(&id)
	})
	if err != nil {
		return "", s.sess.ReadError("read the server's identity", err)
	}
	c.mu.Lock()
	c.serverID = id
	c.mu.Unlock()
	return id, nil
}

// IdentityOf builds the identity of a database the server reported.
func (s *Server) IdentityOf(ctx context.Context, st *DatabaseState) (Identity, error) {
	sid, err := s.ServerID(ctx)
	if err != nil {
		return "", err
	}
	switch s.info.Flavor {
	case ddl.FlavorPostgres:
		return Identity("pg:" + sid + ":" + st.Marker), nil
	case ddl.FlavorMariaDB:
		return Identity("mariadb:" + st.Marker), nil
	}
	if ddl.IsMySQLMarker(st.Marker) {
		return Identity("mysql:" + st.Marker), nil
	}
	return Identity("mysql:" + sid), nil
}

// DatabaseWithIdentity reads a database and its identity, from the catalog
// snapshot when it is fresh (Read of many tenants). Not found is (nil, "", nil).
func (s *Server) DatabaseWithIdentity(ctx context.Context, db ddl.DatabaseName) (*DatabaseState, Identity, error) {
	st, err := s.Database(ctx, db)
	if err != nil || st == nil {
		return nil, "", err
	}
	id, err := s.IdentityOf(ctx, st)
	return st, id, err
}

// Check is a database read directly (never from the snapshot), judged
// against a recorded identity.
type Check struct {
	Found    bool
	Identity Identity // what the server has now; "" when not found
	Verdict  Verdict  // meaningful when Found
}

// CheckIdentity reads db directly and compares it with recorded.
func (s *Server) CheckIdentity(ctx context.Context, db ddl.DatabaseName, recorded Identity) (Check, error) {
	st, err := s.DatabaseDirect(ctx, db)
	if err != nil || st == nil {
		return Check{}, err
	}
	id, err := s.IdentityOf(ctx, st)
	if err != nil {
		return Check{}, err
	}
	return Check{Found: true, Identity: id, Verdict: Compare(recorded, id)}, nil
}

// CarriesMark reports whether the database read back carries this claim's
// mark: MariaDB's comment is the mark; MySQL's mark procedure is named for
// its nonce.
func (s *Server) CarriesMark(st *DatabaseState, mark ddl.ClaimMark) bool {
	if s.info.Flavor == ddl.FlavorMySQL {
		return ddl.MySQLMarkerNonce(st.Marker) == mark.MySQLNonce()
	}
	return st.Marker == mark.String()
}

// ErrNotRecordedDatabase refuses a change to a database that is not (or
// not provably) the recorded one. An Unproven MariaDB database gets the
// statement that gives it its recorded comment back, for a DBA who knows
// it is the same database, and never a DROP.
func (s *Server) ErrNotRecordedDatabase(db ddl.DatabaseName, recorded Identity, c Check) error {
	if c.Verdict == Unproven && recorded.isMySQL() {
		marker, _ := recorded.MySQLMarker()
		return ddl.ErrMySQLDatabaseUnproven(s.spec.Name, db, marker)
	}
	if c.Verdict == Unproven {
		was, _ := recorded.Comment()
		now, _ := c.Identity.Comment()
		return ddl.ErrDatabaseIdentityUnproven(s.spec.Name, db, was, now)
	}
	return ddl.ErrIdentityMismatch(s.spec.Name, db, MismatchWhy(c.Verdict))
}

// MismatchWhyFor is MismatchWhy for a database recorded as recorded: an
// Unproven MySQL database is explained by its mark, not a comment.
func MismatchWhyFor(recorded Identity, v Verdict) string {
	if v != Unproven || !recorded.isMySQL() {
		return MismatchWhy(v)
	}
	return "Its mark (the procedure " + ddl.MySQLMarkPrefix + "… tenantdb created in it, owned by an admin login) " +
		"is gone or no longer counts: the tenant's own login may have dropped it (it may drop procedures in its " +
		"database), its definer may have lost the admin's global CREATE ROUTINE (an old admin decommissioned), a " +
		"dump may have restored it with another creation time, or the database was dropped and re-created outside " +
		"Terraform. Nothing shows it is another database, so it is unproven, not replaced."
}

// MismatchWhy explains a verdict in a sentence, for diagnostics.
func MismatchWhy(v Verdict) string {
	switch v {
	case Replaced:
		return "A database of that name exists, but it is not the one this resource created or imported (it " +
			"carries another tenantdb claim's mark, or on PostgreSQL another object id): it was dropped and re-created, " +
			"or the address now leads to another server."
	case OtherServer:
		return "The server at this address is not the server the database was created or imported on (its server " +
			"identity differs)."
	case Unproven:
		return "Its comment no longer carries the claim mark this resource recorded (emptied or rewritten): it may be " +
			"the same database with a comment edited in place (a DBA, or the tenant's own login, may do that), or " +
			"another database (dropped and re-created outside Terraform, or the address now leads to another server). " +
			"Nothing shows it is another database, so it is unproven, not replaced."
	}
	return "The database is the recorded one."
}
