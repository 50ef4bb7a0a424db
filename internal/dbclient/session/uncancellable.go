// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Statements that are never stopped once sent (ddl.Statement.Uncancellable:
// DROP DATABASE on every engine). Stopping one part way leaves an object
// half made: a PostgreSQL database marked invalid (no one can connect, its
// files partly removed), a MariaDB database with some of its tables
// dropped. So the operation's deadline sends no cancel request and no KILL
// QUERY for it: it runs under the operation's context without its cancel
// (a statement not yet sent when the deadline passed is never sent). What
// it waits for stays bounded by the server: lock_timeout (PostgreSQL's
// lock on the database; MySQL/MariaDB lock_wait_timeout for the metadata
// locks, taken before anything is dropped) and PostgreSQL's own 5 s wait
// for other sessions to leave. Only a server that neither answers nor
// fails within lock_timeout plus uncancellableGrace is stopped, as any
// statement would be at its deadline. When the operation's time ran out
// while it ran, how far past it ran is recorded for the operation
// (WithOverruns), so the provider says it in a warning.

// uncancellableGrace is the most an uncancellable statement may run after
// its lock wait: far more than a drop of thousands of tables takes.
var uncancellableGrace = 30 * time.Minute

// Overrun is an uncancellable statement that ran past its operation's
// deadline.
type Overrun struct {
	Statement string        // redacted
	Past      time.Duration // how long after the deadline it ended
	Took      time.Duration // how long it ran in all
	Err       error         // its own error, nil when it finished
}

func (o Overrun) String() string {
	end := "and finished: it took effect"
	if o.Err != nil {
		end = fmt.Sprintf("and then failed on its own: %v", o.Err)
	}
	return fmt.Sprintf("%s was not stopped at the operation's deadline (stopping it part way would leave the database "+
		"half dropped); it ran %s past the deadline, %s in all, %s",
		o.Statement, o.Past.Round(time.Millisecond), o.Took.Round(time.Millisecond), end)
}

type overrunsKey struct{}

type overruns struct {
	mu  sync.Mutex
	got []Overrun
}

// WithOverruns gives the operation under ctx a record of the uncancellable
// statements that ran past its deadline (Overruns reads it).
func WithOverruns(ctx context.Context) context.Context {
	return context.WithValue(ctx, overrunsKey{}, &overruns{})
}

// Overruns is what WithOverruns recorded under ctx.
func Overruns(ctx context.Context) []Overrun {
	r, _ := ctx.Value(overrunsKey{}).(*overruns)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Overrun(nil), r.got...)
}

// keepGoing is the context st runs under and the function its result goes
// through. For an uncancellable statement: ctx without its cancel, bounded
// by lock_timeout plus uncancellableGrace; finish records an overrun when
// ctx ended while it ran. A statement whose operation already ended is
// not sent (ctx's error). Any other statement runs under ctx as it is.
func (s *Session) keepGoing(ctx context.Context, st ddl.Statement) (run context.Context, finish func(error) error, err error) {
	if !st.Uncancellable {
		return ctx, func(err error) error { return err }, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	var mu sync.Mutex
	var ended time.Time
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		ended = time.Now()
		mu.Unlock()
	})
	run, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.spec.EffectiveLockTimeout()+uncancellableGrace)
	return run, func(err error) error {
		cancel()
		stop()
		mu.Lock()
		at := ended
		mu.Unlock()
		if at.IsZero() && ctx.Err() != nil {
			at = time.Now() // ended just now: its AfterFunc has not run yet
		}
		if at.IsZero() {
			return err
		}
		if r, _ := ctx.Value(overrunsKey{}).(*overruns); r != nil {
			r.mu.Lock()
			r.got = append(r.got, Overrun{Statement: st.String(), Past: time.Since(at), Took: time.Since(start), Err: err})
			r.mu.Unlock()
		}
		return err
	}, nil
}
