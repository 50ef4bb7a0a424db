// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"encoding/json"
	"strings"
)

// The ledger (MySQL 8.0.21+, PROOFS.md): a table in a database on each
// server that only the admin (any admin login holding the documented
// global rights) and superusers can read or write. Tenants hold only
// database-level rows on their own database's name, and the ledger's name
// is in the scratch namespace every tenant name is refused from
// (NewDatabaseName), so no tenant row ever reaches it.
//
// Each owner login's claim gets a row, written before its CREATE USER
// (write-ahead, status "open"), marked "done" once the create or rotation
// ran its last statement, "void" when the CREATE USER made nothing, and
// "dropped" when tenantdb dropped the login. A login's own ATTRIBUTE,
// which any login may rewrite together with a password change, is at most
// a hint beside it: an open row is adopted only when the login's ATTRIBUTE
// carries that row's claim (128 random bits the login could not have
// known before tenantdb's CREATE USER wrote them), and a done row is the
// login's identity whatever the login later wrote into its ATTRIBUTE.

// UsesLedger reports whether owner claims on a server are recorded in the
// ledger: MySQL 8.0.21+ and every MariaDB tenantdb supports (10.6+). On
// MariaDB, which keeps no ATTRIBUTE on an account, the ledger is the only
// record of which database a login was made to own (the owner limit mark
// is a 28-bit hash that collides across a fleet: a hint, never proof of
// which database).
func UsesLedger(info ServerInfo) bool {
	return StoresLoginMark(info) || info.Flavor == FlavorMariaDB
}

// LedgerDatabase is the ledger's database. It starts with
// NonceDatabasePrefix, so no tenant database can take its name (in any
// case), and no grant pattern tenantdb writes for a tenant names it.
const LedgerDatabase = NonceDatabasePrefix + "ledger"

// matchesLedgerAsPattern reports whether name, read as a MySQL grant
// pattern ("_" matches any one character, as it does in a row written
// unescaped under partial_revokes = ON once the setting is switched off),
// matches the ledger's name in any case: such a name is refused as a
// tenant database, so no tenant row can ever reach the ledger.
func matchesLedgerAsPattern(name string) bool {
	if len(name) != len(LedgerDatabase) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '_' && !strings.EqualFold(name[i:i+1], LedgerDatabase[i:i+1]) {
			return false
		}
	}
	return true
}

// Ledger row statuses.
const (
	LedgerOpen    = "open"    // written before CREATE USER: the login may exist
	LedgerDone    = "done"    // the create or rotation ran to its end
	LedgerVoid    = "void"    // the CREATE USER made nothing (the name was taken)
	LedgerDropped = "dropped" // tenantdb dropped the login
)

const ledgerTable = "`" + LedgerDatabase + "`.`claims`"

// EnsureLedger creates the ledger where it does not exist yet. Both
// statements are idempotent; the admin's global CREATE covers them.
func EnsureLedger() Plan {
	return Plan{Statements: []Statement{
		sql("CREATE DATABASE IF NOT EXISTS ", mysqlIdent(LedgerDatabase), " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").done(),
		sql("CREATE TABLE IF NOT EXISTS ", ledgerTable, " (",
			"seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, ",
			"claim VARCHAR(41) NOT NULL, ",
			"kind VARCHAR(16) NOT NULL, ",
			"object VARCHAR(255) NOT NULL, ",
			ledgerHostColumn, ", ",
			"db VARCHAR(64) NOT NULL DEFAULT '', ",
			"from_claim VARCHAR(41) NOT NULL DEFAULT '', ",
			"status VARCHAR(8) NOT NULL, ",
			"privileges VARCHAR(1024) NOT NULL DEFAULT '', ",
			"made_by VARCHAR(288) NOT NULL DEFAULT '', ",
			"changed TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, ",
			"UNIQUE KEY claim (claim), KEY object (kind, object)) ENGINE=InnoDB").done(),
	}}
}

// ledgerHostColumn is the account host of a login's row (issue 46). A
// ledger made before it has no such column: UpgradeLedger adds it, and
// its rows read as '%', the only host tenantdb made logins at then.
const ledgerHostColumn = "host VARCHAR(255) NOT NULL DEFAULT '%'"

// LedgerHostColumnQuery counts the ledger's host column (0: a ledger an
// earlier version made, which UpgradeLedger brings up to date).
const LedgerHostColumnQuery = "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + LedgerDatabase +
	"' AND TABLE_NAME = 'claims' AND COLUMN_NAME = 'host'"

// UpgradeLedger adds the host column to a ledger an earlier version made,
// in place: every row keeps its values and reads as host '%'. Run only
// after LedgerHostColumnQuery found none; a concurrent upgrade that got
// there first answers 1060 (duplicate column), which the caller takes as
// done.
func UpgradeLedger() Plan {
	return Plan{Statements: []Statement{sql("ALTER TABLE ", ledgerTable, " ADD COLUMN ", ledgerHostColumn, " AFTER object").done()}}
}

// LedgerOpenLogin is the write-ahead row of an owner login's claim: the
// login and its host, the database it is made to own, the claim of the
// login a rotation takes over from ("" for a create), the privileges it is
// granted, and which admin account wrote it (for people; nothing compares
// it).
func LedgerOpenLogin(claim ClaimMark, owner Username, db DatabaseName, from string, privs PrivilegeSet) Statement {
	if from != "" && !claimMarkPattern.MatchString(from) {
		from = ""
	}
	return sql("INSERT INTO ", ledgerTable, " (claim, kind, object, host, db, from_claim, status, privileges, made_by) VALUES (",
		mysqlLiteral(claim.s), ", 'login', ", mysqlLiteral(owner.s), ", ", mysqlLiteral(owner.Host()), ", ", mysqlLiteral(db.s), ", ", mysqlLiteral(from),
		", '", LedgerOpen, "', ", mysqlLiteral(ledgerPrivileges(privs)), ", CURRENT_USER())").done()
}

// ledgerPrivileges is the privilege list a ledger row records.
func ledgerPrivileges(privs PrivilegeSet) string {
	s := ""
	for i, n := range privs.Names() {
		if i > 0 {
			s += ","
		}
		s += n
	}
	return s
}

// LedgerSetStatus moves one claim's row to status (LedgerDone, LedgerVoid).
func LedgerSetStatus(claim ClaimMark, status string) Statement {
	return sql("UPDATE ", ledgerTable, " SET status = ", mysqlLiteral(status), " WHERE claim = ", mysqlLiteral(claim.s)).done()
}

// LedgerLoginDropped records that tenantdb dropped owner: every live row
// of that login (at its host: the same user at another host is another
// login).
func LedgerLoginDropped(owner Username) Statement {
	return sql("UPDATE ", ledgerTable, " SET status = '", LedgerDropped, "' WHERE kind = 'login' AND object = ",
		mysqlLiteral(owner.s), " AND host = ", mysqlLiteral(owner.Host()), " AND status IN ('", LedgerOpen, "', '", LedgerDone, "')").done()
}

// LedgerLoginsQuery reads the live rows (open, done) of every login,
// newest first (refreshes: one query per server for all owners). Columns:
// object, host, claim, db, from_claim, status. LedgerLoginsQueryV1 reads
// a ledger an earlier version made (no host column: every row is '%').
const (
	LedgerLoginsQuery   = "SELECT object, host, " + ledgerLoginColumns + " WHERE kind = 'login' AND status IN " + ledgerLive + " ORDER BY seq DESC"
	LedgerLoginsQueryV1 = "SELECT object, '%', " + ledgerLoginColumns + " WHERE kind = 'login' AND status IN " + ledgerLive + " ORDER BY seq DESC"
)

// LedgerLoginQuery is LedgerLoginsQuery for one login (checks before a
// write read directly): parameters the login's name and host. On a
// ledger without the host column (V1) only host '%' has rows.
const (
	LedgerLoginQuery   = "SELECT object, host, " + ledgerLoginColumns + " WHERE kind = 'login' AND object = ? AND host = ? AND status IN " + ledgerLive + " ORDER BY seq DESC"
	LedgerLoginQueryV1 = "SELECT object, '%', " + ledgerLoginColumns + " WHERE kind = 'login' AND object = ? AND ? = '%' AND status IN " + ledgerLive + " ORDER BY seq DESC"
)

// LedgerLastClaimOnQuery reads the claim of the newest row, done or
// dropped, that records a login (parameters: name, host) as the owner of
// a database (parameter: its name): the claim a rotation from that login
// names as the one it took over from (MariaDB, whose login identity is
// not a claim; its ledger was never made without the host column).
const LedgerLastClaimOnQuery = "SELECT claim FROM " + ledgerTable + " WHERE kind = 'login' AND object = ? AND host = ? AND db = ? AND status IN ('" +
	LedgerDone + "', '" + LedgerDropped + "') ORDER BY seq DESC LIMIT 1"

const (
	ledgerLoginColumns = "claim, db, from_claim, status FROM " + ledgerTable
	ledgerLive         = "('" + LedgerOpen + "', '" + LedgerDone + "')"
)

// LedgerRow is one live ledger row of a login, as read.
type LedgerRow struct {
	Claim    string
	Database string
	From     string
	Status   string
}

// OwnerMark is what the row says in the terms of an owner mark; ok is
// false for a row this package would not have written.
func (r LedgerRow) OwnerMark(engine Engine) (OwnerMark, bool) {
	if !claimMarkPattern.MatchString(r.Claim) || (r.From != "" && !claimMarkPattern.MatchString(r.From)) {
		return OwnerMark{}, false
	}
	db, err := NewDatabaseName(engine, r.Database)
	if err != nil {
		return OwnerMark{}, false
	}
	return OwnerMark{Database: db, FromRole: r.From, Finished: r.Status == LedgerDone}, true
}

// MySQLAttributeClaim is the claim a MySQL login's ATTRIBUTE names ("" for
// none): a hint only (the login may rewrite it).
func MySQLAttributeClaim(attribute string) string {
	var a struct {
		Claim string `json:"tenantdb"`
	}
	if json.Unmarshal([]byte(attribute), &a) != nil || !claimMarkPattern.MatchString(a.Claim) {
		return ""
	}
	return a.Claim
}
