// SPDX-License-Identifier: MPL-2.0

package ddl

// A MariaDB database's identity is its schema comment (ClaimMark), which
// anyone with ALTER on the database may rewrite: a DBA annotating it, or the
// tenant's own login (it holds ALL there). So a comment that no longer
// carries the recorded mark proves nothing either way (Unproven, not
// Replaced), and the way back is to write the mark again.

// MarkDatabase gives an existing database mark: as its comment (MariaDB),
// or as its mark procedure (MySQL, claim_mark_mysql.go). The first apply
// after an import (or after an upgrade from a version without marks) gives
// the database an identity this way. An empty plan on PostgreSQL.
func MarkDatabase(info ServerInfo, db DatabaseName, mark ClaimMark) Plan {
	switch {
	case mark.IsZero():
		return Plan{}
	case info.Flavor == FlavorMariaDB:
		return Plan{Statements: []Statement{sql("ALTER DATABASE ", mysqlIdent(db.s), " COMMENT ", mysqlLiteral(mark.s)).done()}}
	case info.Flavor == FlavorMySQL:
		return Plan{Statements: []Statement{createMySQLMark(db, mark.MySQLNonce())}}
	}
	return Plan{}
}

// RestoreCommentStatement is the statement a DBA runs to give a database its
// recorded comment back, for diagnostics. comment is what was recorded (a
// claim mark, or the comment an imported database had): it identifies, it
// is not a secret.
func RestoreCommentStatement(db DatabaseName, comment string) string {
	return "ALTER DATABASE " + mysqlIdent(db.s) + " COMMENT " + mysqlLiteral(comment) + ";"
}

// DropUserStatement is the statement that removes a MySQL/MariaDB login,
// for diagnostics that leave that judgement to a human.
func DropUserStatement(user Username) string { return "DROP USER " + mysqlAccount(user) + ";" }
