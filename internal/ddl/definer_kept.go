// SPDX-License-Identifier: MPL-2.0

package ddl

// MySQL 8.0.22+ refuses DROP USER of a login that is the DEFINER of a view,
// stored routine, trigger or event (error 4006) unless the dropper holds
// SET_ANY_DEFINER and ALLOW_NONEXISTENT_DEFINER (8.2+) or SET_USER_ID:
// rights the minimal admin must not have (SET_ANY_DEFINER lets it create
// SQL SECURITY DEFINER objects as any account, root included). A tenant
// owner holding ALL on its database may define such objects, so its login
// is then kept instead: it is locked and what tenantdb granted it on the
// database is revoked (RevokePrivileges, limited to the ledger's record),
// so it can neither log in nor reach the tenant's data, and a human drops
// it once it defines nothing. CREATE USER, which the admin holds, covers
// ALTER USER … ACCOUNT LOCK.

// LockLogin locks user (ACCOUNT LOCK) and leaves its privileges: what stays
// of a rotated-out owner login MySQL will not drop. Its password no longer
// logs in, while the tenant's objects it defines (SQL SECURITY DEFINER, the
// default) keep running with its rights: a rotation must not break the
// tenant's views and triggers.
func LockLogin(user Username) Plan {
	return Plan{Statements: []Statement{sql("ALTER USER ", mysqlAccount(user), " ACCOUNT LOCK").done()}}
}

// UnlockLogin unlocks user (ACCOUNT UNLOCK): the first password an apply
// sets on a login a destroy kept as a definer (locked), once it is
// imported again, is one the tenant logs in with.
func UnlockLogin(user Username) Plan {
	return Plan{Statements: []Statement{sql("ALTER USER ", mysqlAccount(user), " ACCOUNT UNLOCK").done()}}
}

// MySQLDefiner is how information_schema's DEFINER columns name user's
// account ('user@host', issue 46): the value to look its objects up by.
func MySQLDefiner(user Username) string { return user.s + "@" + user.Host() }
