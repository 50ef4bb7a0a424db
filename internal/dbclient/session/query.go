// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
)

// settleAttempts is the budget of the reads that settle a claim whose
// outcome is unknown (a connection lost during CREATE): about a minute, so
// a server that restarts (the usual reason a connection is lost) is back
// in time, and the apply ends knowing whether the object is its own
// instead of leaving the next apply to refuse it as pre-existing.
var settleAttempts = 32

type settlingKey struct{}

// Settling gives the reads under ctx the settle budget.
func Settling(ctx context.Context) context.Context {
	return context.WithValue(ctx, settlingKey{}, true)
}

// Query runs a read on the admin pool with retries.
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

// QueryIn runs a read inside a tenant database (PostgreSQL).
func (s *Session) QueryIn(ctx context.Context, database string, fn func(ctx context.Context, db Queryer) error) error {
	return Retry(ctx, s.spec, func(ctx context.Context) error {
		db, release, err := s.tenantDB(ctx, database)
		if err != nil {
			return err
		}
		defer release()
		s.counters.Reads.Add(1)
		return fn(ctx, db)
	})
}

// Queryer is what statements and reads run on: the admin pool, or the
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
// waits for another (Terraform runs 10 operations at once; the pool has 6 or 8).
func (s *Session) adminConn(ctx context.Context) Queryer {
	if c, ok := ctx.Value(LockedConnKey{}).(*sql.Conn); ok {
		return c
	}
	return s.db
}
