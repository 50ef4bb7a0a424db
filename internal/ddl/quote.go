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

// mysqlAccount renders 'user'@'%': tenant accounts are host-agnostic.
func mysqlAccount(u Username) string { return mysqlLiteral(u.s) + "@'%'" }

// mysqlGrantTarget renders `db`.* with LIKE wildcards escaped: database
// names in GRANT are patterns, and acme_1 must never match acmeX1.
func mysqlGrantTarget(db DatabaseName) string {
	return mysqlIdent(MySQLGrantPattern(db)) + ".*"
}

func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgLiteral is exact with standard_conforming_strings = on.
func pgLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// MySQLGrantPattern is the database name as GRANT stores it in mysql.db:
// with LIKE wildcards escaped. Read-back queries use it as a plain value.
func MySQLGrantPattern(db DatabaseName) string {
	return strings.NewReplacer(`\`, `\\`, `_`, `\_`, `%`, `\%`).Replace(db.s)
}
