// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"slices"
	"strings"
)

// Granted rows in the ledger (issue 54, PROOFS.md): tenantdb revokes only
// what it granted. mysql.db keeps no grantor, so a DBA's GRANT to a
// tenant's grantee, another tenant's row and tenantdb's own look the same
// there; the ledger, which only the admin (and superusers) can write,
// says which privileges on which (account, database name) tenantdb
// granted. Every revoke tenantdb runs on its own account (a destroy, a
// re-created database, an offboarding) is limited to what a row records;
// what else the account holds there is named, never touched.
//
// Rows are appended, never updated in place: the newest row of a (kind
// "grant", account, database name) is what tenantdb holds granted there.
// A row is written before the GRANT it records (write-ahead: a kill after
// it leaves the record a superset, which a revoke intersects with what is
// held) and after the REVOKE it records (a kill before it, likewise).

// LedgerGranted is the status of a grant row that records privileges
// granted; LedgerDropped (the account's DROP USER) ends every row of it.
const LedgerGranted = "granted"

// LedgerRecordGrant appends the row that says tenantdb holds privs
// granted to user on db's name (none: it revoked all it had granted).
// The row's claim is a fresh mark: the ledger's claims are unique, and a
// grant row is never looked up by it.
func LedgerRecordGrant(user Username, db DatabaseName, privs []Privilege) Statement {
	return sql("INSERT INTO ", ledgerTable, " (claim, kind, object, host, db, status, privileges, made_by) VALUES (",
		mysqlLiteral(NewClaimMark().s), ", 'grant', ", mysqlLiteral(user.s), ", ", mysqlLiteral(user.Host()), ", ",
		mysqlLiteral(db.s), ", '", LedgerGranted, "', ", mysqlLiteral(joinLedgerPrivileges(privs)), ", CURRENT_USER())").done()
}

// LedgerGrantsDropped ends every grant row of user (at its host): tenantdb
// dropped the account, and its rows went with it.
func LedgerGrantsDropped(user Username) Statement {
	return sql("UPDATE ", ledgerTable, " SET status = '", LedgerDropped, "' WHERE kind = 'grant' AND object = ",
		mysqlLiteral(user.s), " AND host = ", mysqlLiteral(user.Host()), " AND status = '", LedgerGranted, "'").done()
}

// LedgerGrantQuery reads the newest grant row of an account on a database
// name: parameters the user, its host and the database name. Columns:
// privileges, status.
const LedgerGrantQuery = "SELECT privileges, status FROM " + ledgerTable +
	" WHERE kind = 'grant' AND object = ? AND host = ? AND db = ? ORDER BY seq DESC LIMIT 1"

// LedgerGrantedPrivileges is what a grant row read by LedgerGrantQuery
// records: the privileges of the server's catalog it names (a name this
// package would not write is ignored), none when the row is no longer
// live.
func LedgerGrantedPrivileges(info ServerInfo, privileges, status string) []Privilege {
	if status != LedgerGranted {
		return nil
	}
	catalog := Catalog(info)
	var out []Privilege
	for _, n := range strings.Split(privileges, ",") {
		if p := Privilege(n); slices.Contains(catalog, p) {
			out = append(out, p)
		}
	}
	return sortedUnique(out)
}

// GrantedPrivileges is what a grant of privs records: ALL PRIVILEGES is
// the server's whole catalog (the read-back's universe), so a record is
// always a list of single privileges.
func GrantedPrivileges(info ServerInfo, privs []Privilege) []Privilege {
	if slices.Contains(privs, AllPrivileges) {
		return Catalog(info)
	}
	return sortedUnique(privs)
}

// UnionPrivileges and MinusPrivileges are the record after a grant of b,
// and after a revoke of b.
func UnionPrivileges(a, b []Privilege) []Privilege {
	return sortedUnique(append(slices.Clone(a), b...))
}

// MinusPrivileges: see UnionPrivileges.
func MinusPrivileges(a, b []Privilege) []Privilege { return minus(sortedUnique(a), b) }

// IntersectPrivileges is what a revoke limited to the record takes: the
// privileges held that the record names (never GRANT OPTION: tenantdb
// never grants it, so whoever did is not tenantdb).
func IntersectPrivileges(held, recorded []Privilege) []Privilege {
	var out []Privilege
	for _, p := range sortedUnique(held) {
		if p != GrantOption && slices.Contains(recorded, p) {
			out = append(out, p)
		}
	}
	return out
}

// RevokePrivileges revokes exactly privs from user on db's name
// (MySQL/MariaDB): the revoke limited to what tenantdb granted. A grant or
// an account already gone is not an error (the account's own destroy may
// drop it at the same moment: Terraform runs them side by side).
func RevokePrivileges(d Dialect, db DatabaseName, user Username, privs []Privilege) Plan {
	if len(privs) == 0 {
		return Plan{}
	}
	p := d.SyncPrivileges(db, user, Username{}, PrivilegeDiff{Revoke: privs})
	for i := range p.Statements {
		p.Statements[i].Tolerate = TolerateMissing
	}
	return p
}

// RevokePrivilegesText is RevokePrivileges as a diagnostic shows it for a
// user to run: what tenantdb did not grant and left alone.
func RevokePrivilegesText(info ServerInfo, db DatabaseName, user Username, privs []Privilege) string {
	var rest []Privilege
	var s string
	for _, p := range privs {
		if p == GrantOption {
			s = "REVOKE GRANT OPTION ON " + mysqlGrantTarget(info, db) + " FROM " + mysqlAccount(user) + ";"
			continue
		}
		rest = append(rest, p)
	}
	if len(rest) > 0 {
		s = strings.TrimSpace("REVOKE " + joinPrivileges(rest) + " ON " + mysqlGrantTarget(info, db) + " FROM " + mysqlAccount(user) + "; " + s)
	}
	return s
}

func joinLedgerPrivileges(privs []Privilege) string {
	s := make([]string, len(privs))
	for i, p := range privs {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}
