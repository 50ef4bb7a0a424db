// SPDX-License-Identifier: MPL-2.0

package ddl

// PostgreSQL transactions. A plan whose statements can share a transaction
// runs as one (Plan.Transaction): the executor sends Begin, the statements,
// Commit on one connection and Rollback when one fails, so a kill, a
// timeout or an error leaves the server exactly as before and the plan's
// undo never runs. Each statement stays one statement; these are the only
// extra ones.
//
// One transaction, one connection, one database: statements that name a
// tenant database run there, and the others of such a plan act on shared
// catalogs only (roles, role comments and memberships, a database's owner
// and ACL), which PostgreSQL changes from a session in any database. So
// a plan that names at most one tenant database runs whole inside it (or
// in the maintenance database when it names none).

// Begin opens a transaction.
func Begin() Statement { return sql("BEGIN").done() }

// Commit ends a transaction, making its statements take effect together.
func Commit() Statement { return sql("COMMIT").done() }

// Rollback ends a transaction that failed; nothing of it takes effect.
func Rollback() Statement { return sql("ROLLBACK").done() }

// Savepoint precedes a statement whose "missing" error counts as success
// (TolerateMissing): an error aborts the whole transaction unless the
// executor rolls back to here.
func Savepoint() Statement { return sql("SAVEPOINT tenantdb_tolerated").done() }

// RollbackToSavepoint undoes only the tolerated statement that failed.
func RollbackToSavepoint() Statement { return sql("ROLLBACK TO SAVEPOINT tenantdb_tolerated").done() }

// InOneTransaction marks a PostgreSQL plan to run as one transaction when
// it can: every statement may run in a transaction block (not CREATE or
// DROP DATABASE) and at most one tenant database is named. Otherwise, and
// on MySQL/MariaDB (whose DDL commits implicitly), the plan is returned as
// it is.
func InOneTransaction(d Dialect, p Plan) Plan {
	if d.Info().Flavor != FlavorPostgres || p.Empty() {
		return p
	}
	if _, ok := p.TransactionDatabase(); !ok {
		return p
	}
	p.Transaction = true
	return p
}

// TransactionDatabase is the database a transactional plan runs in (""
// the maintenance database); ok is false when the plan cannot run as one
// transaction.
func (p Plan) TransactionDatabase() (database string, ok bool) {
	for _, st := range p.Statements {
		if st.outsideTransaction {
			return "", false
		}
		if st.Database == "" || st.Database == database {
			continue
		}
		if database != "" {
			return "", false
		}
		database = st.Database
	}
	return database, true
}
