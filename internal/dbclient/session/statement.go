// SPDX-License-Identifier: MPL-2.0

package session

// One statement's trip, from a ddl.Plan to the server and back, in the
// order it runs: Exec takes the plan (a PostgreSQL transaction goes to
// transaction.go whole), execOne retries it only where nothing ran, Run
// sends it on the right connection (runPostgres: cancel requests and the
// blockers sampled while it waits; runKillable: KILL QUERY on
// MySQL/MariaDB), and statementFailed turns an error into what the
// operation reports. The pools (session.go), the pinned sessions
// (admin_session_postgres.go), the cancels (cancel_mysql.go), the lock
// waits (lockwait.go) and the error classes (errors.go) are what it calls,
// each once.

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Exec runs plan as the admin: statement by statement, or on PostgreSQL,
// where the plan says so, as one transaction; after a failure past its
// first statement, the plan's undo. The layer above's caches hear of it
// (WriteHooks).
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
	if st.Tolerate == ddl.TolerateMissing && isMissing(err) {
		var refusal *ddl.Error
		if !errors.As(err, &refusal) {
			return nil
		}
	}
	return s.statementFailed(ctx, st, err)
}

// Retry budget for transient errors within one operation.
var (
	RetryAttempts = 5
	RetryBase     = 200 * time.Millisecond
	retryMax      = 2 * time.Second
)

// Retry runs an idempotent fn until it succeeds, fails terminally, or the
// budget is spent (then PrimaryUnavailable). Transient errors (nothing ran)
// and lost connections (it may have run; running it again is harmless) are
// retried with backoff.
func Retry(ctx context.Context, spec connect.Spec, fn func(context.Context) error) error {
	return RetryIf(ctx, spec, true, fn)
}

// RetryIf is retry for statements; a claim (idempotent false) is not retried
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

// Run sends one statement once, on the connection it belongs on: the
// locked connection of the operation, or one of the admin pool or of the
// statement's tenant database. No retry, no log: execOne's.
func (s *Session) Run(ctx context.Context, st ddl.Statement) error {
	if s.spec.Engine != ddl.EnginePostgres {
		return s.runKillable(ctx, st)
	}
	conn, _ := ctx.Value(LockedConnKey{}).(*sql.Conn)
	if st.Database != "" || conn == nil {
		pool := s.db
		if st.Database != "" {
			tdb, release, err := s.tenantDB(ctx, st.Database)
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

// runPostgres runs st on conn (the locked connection, or one taken from
// a pool for it), reading its blockers while it waits.
func (s *Session) runPostgres(ctx context.Context, conn *sql.Conn, st ddl.Statement) error {
	// An uncancellable statement gets no cancel request at the deadline
	// (uncancellable.go).
	ctx, finish, err := s.keepGoing(ctx, st)
	if err != nil {
		return err
	}
	return finish(s.runPostgresUnder(ctx, conn, st))
}

// runPostgresUnder is runPostgres under the context st runs under.
func (s *Session) runPostgresUnder(ctx context.Context, conn *sql.Conn, st ddl.Statement) error {
	pid := backendPID(conn)
	var (
		mu       sync.Mutex
		blockers []string
	)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		if pid == 0 {
			return
		}
		wait := blockerSampleAfter
		for {
			select {
			case <-stop:
				return
			case <-time.After(wait):
			}
			wait = blockerSampleEvery
			got, err := s.blockersOf(ctx, pid)
			if err == nil && len(got) > 0 {
				mu.Lock()
				blockers = got
				mu.Unlock()
			}
		}
	}()
	statementStarting(ctx, st)
	_, err := conn.ExecContext(ctx, st.SQL())
	close(stop)
	<-sampled
	if err != nil && len(blockers) > 0 {
		return &blockedError{err: err, blockers: blockers}
	}
	return err
}

// runKillable runs st on MySQL/MariaDB so that the end of ctx stops it on
// the server.
func (s *Session) runKillable(ctx context.Context, st ddl.Statement) error {
	if err := ctx.Err(); err != nil {
		// The deadline passed before it was sent: never start it (it
		// would run, and maybe finish, before its KILL QUERY).
		return err
	}
	conn, sess, done, err := s.StatementConn(ctx)
	if err != nil {
		return err
	}
	defer done()
	// Until = what stops the statement on the server: the operation's
	// context, or for an uncancellable statement (uncancellable.go) only
	// its own safety bound.
	until, finish, err := s.keepGoing(ctx, st)
	if err != nil {
		return err
	}
	statementStarting(ctx, st)
	answer := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), st.SQL())
		answer <- err
	}()
	stop := s.sampleBlockersMySQL(until, sess.ID)
	select {
	case err = <-answer:
	case <-until.Done():
		err = s.killAndWait(until, sess, answer)
	}
	if got := stop(); err != nil && len(got) > 0 {
		err = &blockedError{err: err, blockers: got}
	}
	return finish(err)
}

// StatementHook, when set, is called just before each statement is sent
// to the server (inside a PostgreSQL transaction too, BEGIN and COMMIT
// included), on the goroutine that sends it. Only tests set it (this
// package's, and the kill-point build's timeout points,
// killpoint_on.go): they end an operation's context right as a chosen
// statement runs, so the server really gets the KILL QUERY or cancel
// request an operation_timeout sends. The provider users run never sets
// it; the check is one atomic load.
var StatementHook atomic.Pointer[func(ctx context.Context, st ddl.Statement)]

// finishedHook, when set (tests only, as statementHook), is called after
// each statement the server completed (afterStatement): a test ends the
// operation's context there to play a cancel that reaches the server after
// the statement committed.
var FinishedHook atomic.Pointer[func(st ddl.Statement)]

// statementStarting calls the hook, if any.
func statementStarting(ctx context.Context, st ddl.Statement) {
	if h := StatementHook.Load(); h != nil {
		(*h)(ctx, st)
	}
}

// statementFinished calls the finished hook, if any.
func statementFinished(st ddl.Statement) {
	if h := FinishedHook.Load(); h != nil {
		(*h)(st)
	}
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
