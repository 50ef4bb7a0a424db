// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
)

// identifiedBy is the password clause of CREATE USER and ALTER USER.
//
// MariaDB gets the mysql_native_password hash computed here
// (IDENTIFIED BY PASSWORD '*…'), which is what it stores for IDENTIFIED BY
// 'password' anyway: the password itself never reaches the server, so its
// general log, slow log and binary log cannot hold it (as PostgreSQL gets
// a SCRAM verifier). MySQL 8 defaults to caching_sha2_password, which has no
// client-side form, so it gets the password; it rewrites it out of its own
// logs.
//
// A MariaDB with an active password-validation plugin gets the password
// too, over the session's TLS: a hash would bypass the server's policy
// (with strict_password_validation off) or be refused for the wrong reason
// (on). MariaDB masks the password of CREATE USER / ALTER USER in its
// general and slow logs, but the binary log and audit plugins may keep the
// statement (see the provider docs, "Password policies").
//
// It returns the clause's keywords and its secret literal (redacted in logs).
func (d mysql) identifiedBy(pw Password) (keywords, literal string) {
	if d.info.Flavor == FlavorMariaDB && !d.info.PasswordValidation {
		return " IDENTIFIED BY PASSWORD ", mysqlLiteral(mysqlNativeHash(pw.s))
	}
	return " IDENTIFIED BY ", mysqlLiteral(pw.s)
}

// mysqlNativeHash is mysql_native_password's stored form:
// "*" + upper-case hex of SHA1(SHA1(password)).
func mysqlNativeHash(pw string) string {
	inner := sha1.Sum([]byte(pw))
	outer := sha1.Sum(inner[:])
	return "*" + strings.ToUpper(hex.EncodeToString(outer[:]))
}
