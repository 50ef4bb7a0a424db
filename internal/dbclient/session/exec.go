// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Retry budget for transient errors within one operation.
var (
	RetryAttempts = 5
	RetryBase     = 200 * time.Millisecond
	retryMax      = 2 * time.Second
)

// settleAttempts is the budget of the reads that settle a claim whose
// outcome is unknown (a connection lost during CREATE): about a minute, so
// a server that restarts (the usual reason a connection is lost) is back
// in time, and the apply ends knowing whether the object is its own
// instead of leaving the next apply to refuse it as pre-existing.
var settleAttempts = 32

type settlingKey struct{}

// settling gives the reads under ctx the settle budget.
func Settling(ctx context.Context) context.Context {
	return context.WithValue(ctx, settlingKey{}, true)
}

// retry runs an idempotent fn until it succeeds, fails terminally, or the
// budget is spent (then PrimaryUnavailable). Transient errors (nothing ran)
// and lost connections (it may have run; running it again is harmless) are
// retried with backoff.
func Retry(ctx context.Context, spec connect.Spec, fn func(context.Context) error) error {
	return RetryIf(ctx, spec, true, fn)
}

// retryIf is retry for statements; a claim (idempotent false) is not retried
// after a lost connection: its outcome is unknown and a second CREATE would
// fail on its own success. That error is returned for the caller to report.
func RetryIf(ctx context.Context, spec connect.Spec, idempotent bool, fn func(context.Context) error) error {
	delay := RetryBase
	attempts := RetryAttempts
	if ctx.Value(settlingKey{}) != nil {
		attempts = settleAttempts
	}
	var err error
	for attempt := 0; attempt < attempts; attempt++ {
		err = fn(ctx)
		if err == nil {
			return nil
		}
		switch Classify(err) {
		case connect.ClassTransient:
		case connect.ClassOutcomeUnknown:
			if !idempotent {
				return err
			}
		default:
			return err
		}
		if attempt == attempts-1 {
			break // no point waiting after the last attempt
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, retryMax)
	}
	return unavailable(spec, err)
}

// exec is Exec for the tenant operations, which invalidate precisely.
func (s *Session) Exec(ctx context.Context, plan ddl.Plan) error {
	// What the statements change, the operation's next reads see, and
	// whatever they touched, refreshes read again (the layer above's
	// caches: WriteHooks).
	if s.hooks.BeforeWrite != nil {
		s.hooks.BeforeWrite(ctx)
	}
	if !plan.Empty() && s.hooks.AfterWrite != nil {
		defer s.hooks.AfterWrite()
	}
	if plan.Transaction && s.spec.Engine == ddl.EnginePostgres {
		// Whole or nothing: a failed transaction is rolled back, so its
		// undo has nothing to undo and never runs.
		return s.execTransaction(ctx, plan)
	}
	for i, st := range plan.Statements {
		if i > 0 && plan.Statements[i-1].Claim {
			// The claim took effect: finishing what it started, or
			// undoing it, is worth waiting for a restarting server
			// rather than leaving an object nobody records.
			ctx = Settling(ctx)
		}
		if err := s.execOne(ctx, st); err != nil {
			if i > 0 && len(plan.Undo) > 0 {
				return s.undo(ctx, plan, i, err)
			}
			return err
		}
	}
	return nil
}

// undo runs plan's undo after statement failed (the failed index) ended
// it. It stops at its first failure: each undo step may depend on the
// ones before it (PostgreSQL REASSIGN OWNED BY new TO old must succeed
// before DROP OWNED BY new, or DROP OWNED drops the tenant's tables), so
// nothing runs after a step that failed, and the error says what ran, what
// failed, and what was not run.
func (s *Session) undo(ctx context.Context, plan ddl.Plan, failed int, cause error) error {
	for j, u := range plan.Undo {
		if uerr := s.execOne(context.WithoutCancel(ctx), u); uerr != nil {
			return &UndoError{server: s.spec.Describe(), cause: cause, plan: plan, failed: failed, undoFailed: j, undoErr: uerr}
		}
	}
	return cause
}

func (s *Session) execOne(ctx context.Context, st ddl.Statement) error {
	s.touched(st.Database)
	defer s.logStatement(ctx, st.Database, st, time.Now())
	lockLost := false
	err := RetryIf(ctx, s.spec, !st.Claim, func(ctx context.Context) error {
		if lockLost {
			ctx = Unlocked(ctx)
		}
		if err := s.Run(ctx, st); err != nil {
			lockLost = lockLost || connectionLost(err)
			// Wrap before retry sees it: the PrimaryUnavailable text built
			// after exhausted retries then quotes the redacted statement,
			// never a server message that could echo a secret.
			return NewStatementError(s.spec.Name, st, s.judgeReadOnly(ctx, st.Database, err))
		}
		return nil
	})
	if err == nil {
		afterStatement(st)
		return nil
	}
	if st.Tolerate == ddl.TolerateMissing && IsMissing(err) {
		var refusal *ddl.Error
		if !errors.As(err, &refusal) {
			return nil
		}
	}
	return s.statementFailed(ctx, st, err)
}

// logStatement reports one statement (redacted) and how long it took.
// database is where it ran ("" the maintenance database).
func (s *Session) logStatement(ctx context.Context, database string, st ddl.Statement, start time.Time) {
	if s.log != nil {
		s.log(ctx, "tenantdb statement", map[string]any{
			"server": s.spec.Name, "database": database,
			"statement": st.String(), "duration_ms": time.Since(start).Milliseconds(),
		})
	}
}

// statementFailed turns the error of st into what the operation reports:
// a refusal as it is, a lock wait with its blockers, a password policy
// with its rules.
func (s *Session) statementFailed(ctx context.Context, st ddl.Statement, err error) error {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		return err
	}
	if isLockTimeout(err) {
		return s.lockTimeoutError(ctx, st, err)
	}
	if CodeOf(err) == "mysql:1819" {
		return s.passwordPolicyError(ctx, err)
	}
	return err
}

func (s *Session) Run(ctx context.Context, st ddl.Statement) error {
	if s.spec.Engine != ddl.EnginePostgres {
		return s.runKillable(ctx, st)
	}
	conn, _ := ctx.Value(LockedConnKey{}).(*sql.Conn)
	if st.Database != "" || conn == nil {
		pool := s.db
		if st.Database != "" {
			tdb, release, err := s.tenantDB(st.Database)
			if err != nil {
				return err
			}
			defer release()
			pool = tdb
		}
		c, err := pool.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	}
	return s.runPostgres(ctx, conn, st)
}

// query runs a read on the admin pool with retries.
func (s *Session) Query(ctx context.Context, fn func(ctx context.Context, db Queryer) error) error {
	lockLost := false
	return Retry(ctx, s.spec, func(ctx context.Context) error {
		if lockLost {
			ctx = Unlocked(ctx)
		}
		s.counters.Reads.Add(1)
		err := fn(ctx, s.adminConn(ctx))
		lockLost = lockLost || connectionLost(err)
		return err
	})
}

// connectionLost reports an error that ends the connection it came from.
// A lock held on it is gone with it (the server releases session locks),
// so retries go to the pool: after a server crash the locked connection
// never comes back, and the work it was doing must still finish.
func connectionLost(err error) bool {
	return err != nil && (errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || Classify(err) == connect.ClassOutcomeUnknown)
}

// queryIn runs a read inside a tenant database (PostgreSQL).
func (s *Session) QueryIn(ctx context.Context, database string, fn func(ctx context.Context, db Queryer) error) error {
	return Retry(ctx, s.spec, func(ctx context.Context) error {
		db, release, err := s.tenantDB(database)
		if err != nil {
			return err
		}
		defer release()
		s.counters.Reads.Add(1)
		return fn(ctx, db)
	})
}

// queryer is what statements and reads run on: the admin pool, or the
// dedicated connection that holds a tenant's advisory lock.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type LockedConnKey struct{}

// noLock in place of the locked connection sends work to the pool again
// (after the locked connection was lost).
type noLock struct{}

func Unlocked(ctx context.Context) context.Context {
	return context.WithValue(ctx, LockedConnKey{}, noLock{})
}

// adminConn is the connection for admin-pool work: inside withLock, the
// connection that holds the lock. Taking a second pool connection while
// holding one would deadlock once every pool connection holds a lock and
// waits for another (Terraform runs 10 operations at once; the pool has 8).
func (s *Session) adminConn(ctx context.Context) Queryer {
	if c, ok := ctx.Value(LockedConnKey{}).(*sql.Conn); ok {
		return c
	}
	return s.db
}
