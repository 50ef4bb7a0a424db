// SPDX-License-Identifier: MPL-2.0

package ddl

// A MariaDB database's identity is its schema comment (ClaimMark), which
// anyone with ALTER on the database may rewrite: a DBA annotating it, or the
// tenant's own login (it holds ALL there). So a comment that no longer
// carries the recorded mark proves nothing either way (Unproven, not
// Replaced), and the way back is to write the mark again.

// MarkDatabase writes mark as the database's comment (MariaDB): the first
// apply after an import gives the database an identity this way. An empty
// plan on servers without schema comments.
func MarkDatabase(info ServerInfo, db DatabaseName, mark ClaimMark) Plan {
	if mark.IsZero() || !StoresClaimMark(info) {
		return Plan{}
	}
	return Plan{Statements: []Statement{sql("ALTER DATABASE ", mysqlIdent(db.s), " COMMENT ", mysqlLiteral(mark.s)).done()}}
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
