// SPDX-License-Identifier: MPL-2.0

package ddl

import "strings"

// MySQLSessionSQLMode is the sql_mode every MySQL/MariaDB session of the
// client must pin. With NO_BACKSLASH_ESCAPES a backslash in a string literal
// is an ordinary character, so mysqlLiteral only has to double quotes and
// password escaping never depends on the server's configured mode.
const MySQLSessionSQLMode = "NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"

// PostgresRuntimeParams must be set on every PostgreSQL session: with
// standard_conforming_strings on, a backslash in '...' is literal.
var PostgresRuntimeParams = map[string]string{"standard_conforming_strings": "on"}

func mysqlIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// mysqlLiteral is exact under MySQLSessionSQLMode (NO_BACKSLASH_ESCAPES).
func mysqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// mysqlAccount renders 'user'@'host' ('%' unless the login has a host,
// issue 46): every statement naming a MySQL/MariaDB login goes through it.
func mysqlAccount(u Username) string { return mysqlLiteral(u.s) + "@" + mysqlLiteral(u.Host()) }

// mysqlGrantTarget renders `db`.* as the server reads a database-level
// grant: escaped where the name is a LIKE pattern (acme_1 must never match
// acmeX1), as written under MySQL's partial_revokes (see MySQLGrantPattern).
func mysqlGrantTarget(info ServerInfo, db DatabaseName) string {
	return mysqlIdent(MySQLGrantPattern(info, db)) + ".*"
}

func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgLiteral is exact with standard_conforming_strings = on.
func pgLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// MySQLGrantPattern is the database name as GRANT stores it in mysql.db.
// Read-back queries use it as a plain value. Usually the name is a LIKE
// pattern there, so its wildcards are escaped. MySQL with partial_revokes
// = ON reads the name in a database-level GRANT literally (and stores it
// so): an escaped `acme\_1` would grant on a database named "acme\_1" and
// leave the owner denied its own, while `acme_1` cannot match acmeX1.
func MySQLGrantPattern(info ServerInfo, db DatabaseName) string {
	if info.literalGrantNames() {
		return db.s
	}
	return strings.NewReplacer(`\`, `\\`, `_`, `\_`, `%`, `\%`).Replace(db.s)
}
