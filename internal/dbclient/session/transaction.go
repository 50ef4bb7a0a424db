// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// A PostgreSQL plan marked Transaction (ddl.InOneTransaction) runs as
// BEGIN, its statements, COMMIT on one connection in the one database it
// names (ddl.Plan.TransactionDatabase); when a statement fails, is
// cancelled at the operation's deadline or waits past lock_timeout, the
// executor sends ROLLBACK and the server is exactly as before: the plan's
// undo has nothing to undo and never runs. lock_timeout is a session
// setting, so it bounds every statement inside the transaction too; the
// blockers are read while each statement waits (runPostgres) and the
// operation's deadline reaches the server as a cancel request.
//
// Kill points (killpoint_on.go) are the plan's statements and the COMMIT:
// a kill after any statement before the COMMIT leaves an open transaction
// that PostgreSQL rolls back when the connection dies (nothing of the
// plan happened), a kill after the COMMIT leaves all of it. BEGIN and the
// savepoints of tolerated statements are not points: a kill there is the
// same as one before the plan's first statement.

// execTransaction runs plan as one transaction. A lost connection rolls
// the transaction back on the server, so the whole transaction is retried
// like any idempotent statement, except for a claim (CREATE without IF NOT
// EXISTS), whose outcome is unknown once the COMMIT may have been sent:
// that error goes to the caller to settle, as for a claim outside one.
func (s *Session) execTransaction(ctx context.Context, plan ddl.Plan) error {
	database, ok := plan.TransactionDatabase()
	if !ok {
		return fmt.Errorf("%s: internal error: a plan that cannot run as one transaction was marked as one:\n%s",
			s.spec.Describe(), plan)
	}
	claim := slices.ContainsFunc(plan.Statements, func(st ddl.Statement) bool { return st.Claim })
	var failed ddl.Statement
	lockLost := false
	err := RetryIf(ctx, s.spec, !claim, func(ctx context.Context) error {
		if lockLost {
			ctx = Unlocked(ctx)
		}
		st, err := s.runTransaction(ctx, database, plan)
		if err != nil {
			failed = st
			lockLost = lockLost || connectionLost(err)
			// Wrapped before retry sees it, as in execOne: only the
			// redacted statement is ever quoted.
			return NewStatementError(s.spec.Name, st, s.judgeReadOnly(ctx, database, err))
		}
		return nil
	})
	if err == nil {
		return nil
	}
	err = s.statementFailed(ctx, failed, err)
	var refusal *ddl.Error
	if failed.String() == ddl.Commit().String() || errors.As(err, &refusal) {
		// A COMMIT's failure may hide a commit; a refusal says itself
		// what was changed.
		return err
	}
	return &rolledBackError{err: err}
}

// rolledBackError is a transaction's failure: it says the server is as
// before (the lock-wait message's "was cancelled" alone could read as a
// half-done operation).
type rolledBackError struct{ err error }

func (e *rolledBackError) Error() string {
	return e.err.Error() + "\n\nThe operation ran as one transaction, which was rolled back: none of its changes took effect."
}

func (e *rolledBackError) Unwrap() error { return e.err }

// runTransaction sends BEGIN, plan's statements and COMMIT on one
// connection into database, and ROLLBACK when one fails; it returns the
// statement that failed with its error.
func (s *Session) runTransaction(ctx context.Context, database string, plan ddl.Plan) (ddl.Statement, error) {
	conn, release, err := s.transactionConn(ctx, database)
	if err != nil {
		return ddl.Begin(), err
	}
	defer release()
	if err := s.runLogged(ctx, conn, database, ddl.Begin()); err != nil {
		return ddl.Begin(), err
	}
	for _, st := range plan.Statements {
		s.touched(st.Database)
		if err := s.runInTransaction(ctx, conn, database, st); err != nil {
			s.rollback(ctx, conn, database)
			return st, err
		}
		afterStatement(st)
	}
	commit := ddl.Commit()
	if err := s.runLogged(ctx, conn, database, commit); err != nil {
		// A COMMIT that failed on the server rolled back; one whose
		// answer was lost is the caller's to settle. Either way a
		// ROLLBACK leaves the session clean (a no-op when none is open).
		s.rollback(ctx, conn, database)
		return commit, err
	}
	afterStatement(commit)
	return ddl.Statement{}, nil
}

// runInTransaction runs one statement of a transaction. A statement whose
// "missing" error counts as success runs after a savepoint, so that error
// rolls back only that statement and the transaction goes on.
func (s *Session) runInTransaction(ctx context.Context, conn *sql.Conn, database string, st ddl.Statement) error {
	if st.Tolerate != ddl.TolerateMissing {
		return s.runLogged(ctx, conn, database, st)
	}
	if err := s.runLogged(ctx, conn, database, ddl.Savepoint()); err != nil {
		return err
	}
	err := s.runLogged(ctx, conn, database, st)
	if err != nil && isMissing(err) {
		return s.runLogged(ctx, conn, database, ddl.RollbackToSavepoint())
	}
	return err
}

// runLogged runs st on conn, reading its blockers while it waits, and
// logs it (redacted).
func (s *Session) runLogged(ctx context.Context, conn *sql.Conn, database string, st ddl.Statement) error {
	defer s.logStatement(ctx, database, st, time.Now())
	return s.runPostgres(ctx, conn, st)
}

// rollback ends a failed transaction, also after the operation's deadline
// (the cancel request left the connection usable). A connection that
// cannot roll back is not given back to the pool.
func (s *Session) rollback(ctx context.Context, conn *sql.Conn, database string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
	defer cancel()
	if err := s.runLogged(rctx, conn, database, ddl.Rollback()); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// transactionConn is the connection a transaction runs on: inside the
// tenant database it names, from that database's pool; in the
// maintenance database, the connection holding the tenant's lock (or,
// after that one was lost, one from the admin pool).
func (s *Session) transactionConn(ctx context.Context, database string) (*sql.Conn, func(), error) {
	if database == "" {
		if c, ok := ctx.Value(LockedConnKey{}).(*sql.Conn); ok {
			return c, func() {}, nil
		}
		c, err := s.db.Conn(ctx)
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close() }, nil
	}
	tdb, release, err := s.tenantDB(ctx, database)
	if err != nil {
		return nil, nil, err
	}
	c, err := tdb.Conn(ctx)
	if err != nil {
		release()
		return nil, nil, err
	}
	return c, func() { c.Close(); release() }, nil
}
