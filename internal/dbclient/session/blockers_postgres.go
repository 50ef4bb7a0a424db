// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Naming the blocker while it blocks. Once a lock wait ends (lock_timeout,
// or the operation's deadline), the waiting statement is gone and so is
// PostgreSQL's record of who blocked it: a lookup afterwards sees only
// locks still granted, and misses a blocker such as an open transaction
// that updated the pg_database row (ALTER DATABASE ... CONNECTION LIMIT).
// So while a statement runs longer than blockerSampleAfter, the sessions
// pg_blocking_pids() names for its backend are read every
// blockerSampleEvery from another connection; the last reading goes into
// the error if the statement then fails waiting.

var (
	blockerSampleAfter = 500 * time.Millisecond
	blockerSampleEvery = time.Second
)

// runPostgres runs st on conn (the locked connection, or one taken from
// a pool for it), reading its blockers while it waits.
func (s *Session) runPostgres(ctx context.Context, conn *sql.Conn, st ddl.Statement) error {
	// An uncancellable statement gets no cancel request at the deadline
	// (uncancellable.go).
	ctx, finish, err := s.KeepGoing(ctx, st)
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

// backendPID is the PostgreSQL backend of conn, known to the driver (no
// round trip); 0 when it cannot be read.
func backendPID(conn *sql.Conn) int {
	var pid int
	_ = conn.Raw(func(dc any) error {
		if c, ok := dc.(*stdlib.Conn); ok {
			pid = int(c.Conn().PgConn().PID())
		}
		return nil
	})
	return pid
}

// blockersOf reads who blocks backend pid now, on a connection of the
// admin pool, briefly (a pool whose connections all wait gives no
// reading rather than another wait).
func (s *Session) blockersOf(ctx context.Context, pid int) ([]string, error) {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), blockerSampleEvery)
	defer cancel()
	rows, err := s.db.QueryContext(qctx, `
SELECT b.pid, COALESCE(b.usename::text, ''), COALESCE(b.application_name, ''),
       COALESCE(EXTRACT(EPOCH FROM now() - b.xact_start)::bigint, -1), COALESCE(b.state, '')
FROM unnest(pg_blocking_pids($1)) AS p(pid) LEFT JOIN pg_stat_activity b ON b.pid = p.pid ORDER BY 1`, pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var bpid, secs int64
		var user, app, state string
		if err := rows.Scan(&bpid, &user, &app, &secs, &state); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("pid %d", bpid)
		if user != "" {
			line += fmt.Sprintf(" user %q", printableName(user))
		} else {
			line += " (a session the admin cannot see: its user and statement show only to a superuser or a member of pg_read_all_stats)"
		}
		if app != "" {
			line += fmt.Sprintf(" application %q", printableName(app))
		}
		switch {
		case secs >= 0:
			line += ", its transaction open for " + (time.Duration(secs) * time.Second).String()
			if state != "" {
				line += " (" + printableName(state) + ")"
			}
		case user != "":
			line += " (how long its transaction has been open, and what it runs, show only to a superuser or a " +
				"member of pg_read_all_stats: GRANT pg_read_all_stats TO the admin to see them)"
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

// blockedError is a statement that failed after waiting for locks held by
// the sessions named.
type blockedError struct {
	err      error
	blockers []string
}

func (e *blockedError) Error() string {
	return e.err.Error() + "\nIt was waiting for a lock held by:\n  - " + strings.Join(e.blockers, "\n  - ")
}
func (e *blockedError) Unwrap() error { return e.err }
