// SPDX-License-Identifier: MPL-2.0

package ddl

// ResetConnectionLimit lifts a PostgreSQL database's CONNECTION LIMIT (-1:
// none). Its owner may set the limit, 0 included, which keeps out every
// session but a superuser's, the admin's too: an offboarding runs this from
// the maintenance database when the limit is what refuses its connection
// into the database (dbclient's tenantConnector), and says so.
func ResetConnectionLimit(db DatabaseName) Statement {
	return sql("ALTER DATABASE ", pgIdent(db.s), " CONNECTION LIMIT -1").done()
}

// ResetAllowConnections opens a tenant database that its owner closed
// (ALLOW_CONNECTIONS false): only while offboarding or deleting it.
func ResetAllowConnections(db DatabaseName) Statement {
	return sql("ALTER DATABASE ", pgIdent(db.s), " ALLOW_CONNECTIONS true").done()
}

// ResetIsTemplate lets a declared delete drop a tenant database its owner
// marked a template (IS_TEMPLATE true): only while deleting it.
func ResetIsTemplate(db DatabaseName) Statement {
	return sql("ALTER DATABASE ", pgIdent(db.s), " IS_TEMPLATE false").done()
}

// PostgresSessionReadWrite makes one admin session's transactions
// read-write when a tenant's database set default_transaction_read_only
// and the server did not (dbclient's verifyAdminSession).
const PostgresSessionReadWrite = "SET default_transaction_read_only = off"

// RestoreOwnerConnect gives a PostgreSQL tenant database's owner CONNECT on
// it again: the owner may revoke its own (REVOKE CONNECT ON DATABASE …
// FROM itself; PUBLIC has none since the create), and the admin enters the
// database through the owner (a member of it), so that would keep every
// offboarding and grant destroy out. Only while offboarding, when that is
// what refuses the admin's connection (dbclient's tenantConnector), and
// said. The right then follows the database to its keeper.
func RestoreOwnerConnect(db DatabaseName, owner RoleName) Statement {
	return sql("GRANT CONNECT ON DATABASE ", pgIdent(db.s), " TO ", pgIdent(owner.s)).done()
}
