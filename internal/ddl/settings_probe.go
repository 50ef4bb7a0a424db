// SPDX-License-Identifier: MPL-2.0

package ddl

import "fmt"

// MySQLSettingsProbe is the plan-time question "would CREATE DATABASE take
// these settings?" asked as a read that changes nothing: converting an
// empty string to the character set and giving it the collation makes the
// server resolve both names as CREATE DATABASE would (aliases such as utf8,
// and names that only some versions know), with the same errors: 1115
// (unknown character set), 1273 (unknown collation) and, with both given,
// 1253 (a collation of another character set). Without a character set
// the string is utf8mb4, so 1253 then means only that the collation
// belongs to another character set: it exists. Both names are validated
// identifiers, rendered quoted.
func MySQLSettingsProbe(cs Charset, co Collation) string {
	target := mysqlIdent("utf8mb4")
	if !cs.IsZero() {
		target = mysqlIdent(cs.s)
	}
	q := "SELECT CONVERT('' USING " + target + ")"
	if !co.IsZero() {
		q += " COLLATE " + mysqlIdent(co.s)
	}
	return q
}

// ErrSettingUnknown refuses, at plan time, a database setting the server
// itself rejects (kind "character set" or "collation"; code the server's
// error number), before any CREATE DATABASE.
func ErrSettingUnknown(server, kind, value string, code string) *Error {
	return refuse(InvalidIdentifier, fmt.Sprintf("%s %q on server %q", kind, printable(value), server),
		fmt.Sprintf("The server does not know this %s (it answered a read of it with error %s), so CREATE "+
			"DATABASE would fail with the same error. Nothing was created.", kind, code),
		fmt.Sprintf("Choose a %s the server has (MySQL/MariaDB: SHOW CHARACTER SET; SHOW COLLATION), or leave "+
			"it out for the server's default.", kind))
}

// ErrCollationOfOtherCharset refuses, at plan time, a collation that
// exists on the server for another character set than the declared one.
func ErrCollationOfOtherCharset(server string, cs Charset, co Collation) *Error {
	return refuse(InvalidIdentifier, fmt.Sprintf("collation %q on server %q", printable(co.s), server),
		fmt.Sprintf("The server has this collation, but not for character set %q (it answered a read of the pair "+
			"with error 1253), so CREATE DATABASE would fail the same way. Nothing was created.", printable(cs.s)),
		"Choose a collation of that character set (SHOW COLLATION WHERE Charset = '<character set>'), or leave "+
			"collation out for the character set's default.")
}
