// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"regexp"
	"strconv"
)

// A MySQL 8+ database has no comment and no id a client can read, so its
// identity is an object tenantdb puts inside it: an empty stored procedure
// named tenantdb_mark_<nonce>, created by the admin right after CREATE
// DATABASE under the tenant's lock. What makes it proof:
//
//   - its DEFINER is an admin login (any account holding the global CREATE
//     ROUTINE privilege: MySQLAdminDefiners). The tenant's owner holds ALL on its
//     database, so it may drop the procedure, alter its comment or create
//     one of the same name after SET timestamp, but that one's DEFINER is the
//     owner: naming another definer needs SET_ANY_DEFINER (or SUPER), 1227
//     otherwise (checked on 9.7.4). So a tenant can remove the mark, never
//     forge it;
//   - its name carries a random nonce, and MySQL has no RENAME PROCEDURE;
//   - its CREATED time: a dump restored into a re-created database by a
//     superuser brings the nonce and the definer back, not the time.
//
// DROP DATABASE takes it away, so a database re-created by hand has none;
// a replica has it with the same CREATED (the binary log replays the
// statement with its timestamp), so a failover keeps the identity. The
// comment is ignored: the tenant may edit it. Tenants see the procedure
// (SHOW PROCEDURE STATUS, mysqldump --routines, Flyway clean): README says
// what happens when they drop it.

// MySQLMarkPrefix starts the name of every mark procedure. It is a read
// filter too (LEFT(ROUTINE_NAME, len) = prefix): no LIKE, so no wildcard
// in it needs escaping under any sql_mode.
const MySQLMarkPrefix = "tenantdb_mark_"

// mysqlMarkComment says what the procedure is to whoever finds it.
const mysqlMarkComment = "tenantdb: identity of this database; dropping it stops tenantdb from ever dropping the database"

// mysqlNonceLen is how much of a ClaimMark's random hex the procedure's
// name carries: 64 bits tell claims apart, and every recorded identity
// holds it (state per tenant stays under 3 KB). It is not what stops a
// forgery; the DEFINER is.
const mysqlNonceLen = 16

var mysqlMarkPattern = regexp.MustCompile(`^[0-9a-f]{16}:[0-9]{1,19}$`)

// MySQLNonce is the part of mark a MySQL mark procedure's name carries.
func (m ClaimMark) MySQLNonce() string {
	if m.IsZero() {
		return ""
	}
	return m.s[len("tenantdb:"):][:mysqlNonceLen]
}

// IsMySQLMarker reports whether marker (what the catalog read of a MySQL
// database gives: "<nonce>:<created unix seconds>" of its mark procedure)
// is a mark, as opposed to "" (none).
func IsMySQLMarker(marker string) bool { return mysqlMarkPattern.MatchString(marker) }

// MySQLMarkerNonce is the nonce of a MySQL marker ("" when it is none).
func MySQLMarkerNonce(marker string) string {
	if !IsMySQLMarker(marker) {
		return ""
	}
	return marker[:mysqlNonceLen]
}

// ClaimPlan is the whole claim of db on d's server: the dialect's
// CreateMarkedDatabase and, on MySQL, the mark procedure as the next
// statement, whose failure drops the database the claim made a moment
// before (new, and empty: the caller holds the tenant's lock).
func ClaimPlan(d Dialect, db DatabaseName, cs Charset, co Collation, mark ClaimMark) Plan {
	plan := d.CreateMarkedDatabase(db, cs, co, mark)
	if !mark.IsZero() && d.Info().Flavor == FlavorMySQL {
		plan.Statements = append(plan.Statements, createMySQLMark(db, mark.MySQLNonce()))
		plan.Undo = d.DropDatabase(db).Statements
	}
	return plan
}

// createMySQLMark renders the mark procedure named for nonce (16 hex
// digits, from MySQLNonce or a marker read back) in db.
func createMySQLMark(db DatabaseName, nonce string) Statement {
	return sql("CREATE PROCEDURE ", mysqlIdent(db.s), ".", mysqlIdent(MySQLMarkPrefix+nonce),
		"() COMMENT ", mysqlLiteral(mysqlMarkComment), " SQL SECURITY INVOKER BEGIN END").claims().done()
}

// MySQLMarksQuery reads the mark of every database in one query: schema,
// then "<nonce>:<created>" of the admin's mark procedure there (the
// smallest, should a superuser have copied in a second one). The caller
// joins it to its schema list. UNIX_TIMESTAMP of a TIMESTAMP column does
// not depend on the session time zone (checked on 9.7.4).
const MySQLMarksQuery = "SELECT ROUTINE_SCHEMA, MIN(CONCAT(SUBSTRING(ROUTINE_NAME, 15), ':', UNIX_TIMESTAMP(CREATED))) AS mark " +
	"FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'PROCEDURE' AND LEFT(ROUTINE_NAME, 14) = '" + MySQLMarkPrefix + "' " +
	"AND CAST(DEFINER AS BINARY) IN (" + MySQLAdminDefiners + ") GROUP BY ROUTINE_SCHEMA"

// MySQLMarksQueryLedger is MySQLMarksQuery that also counts a mark whose
// DEFINER the admin-only ledger records as a writer (made_by, the
// CURRENT_USER() of an admin's claim): an old admin whose global rights a
// DBA revoked when the admin was rotated still vouches for its marks. A
// tenant can name only itself as DEFINER and cannot write the ledger. It
// fails (1049/1146) where no ledger exists: the caller then reads
// MySQLMarksQuery.
const MySQLMarksQueryLedger = "SELECT ROUTINE_SCHEMA, MIN(CONCAT(SUBSTRING(ROUTINE_NAME, 15), ':', UNIX_TIMESTAMP(CREATED))) AS mark " +
	"FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'PROCEDURE' AND LEFT(ROUTINE_NAME, 14) = '" + MySQLMarkPrefix + "' " +
	"AND CAST(DEFINER AS BINARY) IN (" + MySQLAdminDefiners + " UNION SELECT CAST(made_by AS BINARY) FROM " + ledgerTable +
	" WHERE made_by <> '') GROUP BY ROUTINE_SCHEMA"

// MySQLAdminDefiners lists, as DEFINER values ("user@host"), the accounts
// a mark procedure may have as its DEFINER to count: those holding the
// global CREATE ROUTINE privilege, that is every admin login with the
// documented rights (README's GRANT blocks) and every superuser. Not
// CURRENT_USER(): that is the account row the admin matched, which
// changes when the admin is renamed or a DBA adds a host row for it. A
// tenant holds only database-level rows, so it can neither be such a
// definer nor name one (that needs SET_ANY_DEFINER): it may drop a mark,
// never forge one.
const MySQLAdminDefiners = "SELECT CAST(CONCAT(User, '@', Host) AS BINARY) FROM mysql.user WHERE Create_routine_priv = 'Y'"

// RestoreMySQLMarkStatement is what an administrator runs, as tenantdb's
// admin login (the DEFINER must be that login), to give a MySQL database
// the mark recorded for it (marker "<nonce>:<created>"): a DBA who has
// confirmed it is the same database. "" when marker is not a mark.
func RestoreMySQLMarkStatement(db DatabaseName, marker string) string {
	if !IsMySQLMarker(marker) {
		return ""
	}
	nonce, created := marker[:mysqlNonceLen], marker[mysqlNonceLen+1:]
	if _, err := strconv.ParseInt(created, 10, 64); err != nil {
		return ""
	}
	proc := createMySQLMark(db, nonce)
	return "SET timestamp = " + created + "; " + proc.SQL() + "; SET timestamp = DEFAULT;"
}

// DropDatabaseStatement is the statement that drops a MySQL/MariaDB
// database, for diagnostics that leave that judgement to a human.
func DropDatabaseStatement(db DatabaseName) string { return "DROP DATABASE " + mysqlIdent(db.s) + ";" }
