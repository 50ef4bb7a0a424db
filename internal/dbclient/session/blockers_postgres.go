// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
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
