// SPDX-License-Identifier: MPL-2.0

package ddl

// Old unescaped database grants (MySQL/MariaDB). A database name in
// GRANT ... ON db.* is a LIKE pattern: tenantdb grants on the escaped name
// (MySQLGrantPattern: `acme\_wms`), but grants made by hand or by another
// provider (petoju/mysql) on the name as written (`acme_wms`) are another
// mysql.db row, which also matches `acmeXwms` and outlives the tenant
// grant's destroy. Importing such a tenant reads the escaped row only, so
// the old row is reported beside it with the statement that removes it.

// UnescapedGrantPattern is the mysql.db pattern of a grant on db's name
// written unescaped, or "" when the name has no wildcard character or the
// server reads grant names literally (partial_revokes): the two patterns
// are then one row, tenantdb's own.
func UnescapedGrantPattern(info ServerInfo, db DatabaseName) string {
	if MySQLGrantPattern(info, db) == db.s {
		return ""
	}
	return db.s
}

// RevokeUnescapedGrant removes the old unescaped grant of user on db (and
// its grant option when it has one). REVOKE names the stored pattern, so
// tenantdb's escaped grant on the same database is left alone.
func RevokeUnescapedGrant(db DatabaseName, user Username, grantOption bool) Plan {
	target, account := mysqlIdent(db.s)+".*", mysqlAccount(user)
	p := Plan{Statements: []Statement{sql("REVOKE ALL PRIVILEGES ON ", target, " FROM ", account).done()}}
	if grantOption {
		p.Statements = append(p.Statements, sql("REVOKE GRANT OPTION ON ", target, " FROM ", account).done())
	}
	return p
}
