// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Bounded waits. Every session runs with the provider's lock_timeout
// (PostgreSQL lock_timeout; MySQL/MariaDB lock_wait_timeout and
// innodb_lock_wait_timeout), so a statement blocked by someone else's lock
// (a forgotten transaction, a long report) fails after that time instead
// of hanging the apply. It is not retried: the lock is someone else's and
// waiting again would only multiply the wait. The plan's undo then runs, so
// the tenant is left as it was, and the error names who held locks on the
// tenant database at that moment.

type tenantKey struct{}

// codesLockTimeout: PostgreSQL 55P03 (lock_timeout; tenantdb never uses
// NOWAIT), MySQL/MariaDB 1205 (lock wait timeout, metadata or row).
var codesLockTimeout = map[string]bool{"pg:55P03": true, "mysql:1205": true}

func isLockTimeout(err error) bool { return codesLockTimeout[CodeOf(err)] }

// lockTimeoutError says what waited, for how long, and who holds locks on
// the tenant database (as far as the admin can see).
func (s *Session) lockTimeoutError(ctx context.Context, st ddl.Statement, err error) error {
	tenant, _ := ctx.Value(tenantKey{}).(string)
	if tenant == "" {
		tenant = st.Database
	}
	var who string
	var blocked *blockedError
	if errors.As(err, &blocked) {
		// Read while it waited: exactly the sessions it waited for.
		return &lockWaitError{msg: fmt.Sprintf("%s: a statement on database %q waited more than %s (lock_timeout) for a "+
			"lock and was cancelled. While it waited, it was blocked by:\n  - %s\nEnd that session or let it finish, then "+
			"apply again (or raise the provider's lock_timeout).", s.spec.Describe(), tenant, s.spec.EffectiveLockTimeout(),
			strings.Join(blocked.blockers, "\n  - ")), err: blocked.err}
	}
	holders, herr := s.lockHolders(context.WithoutCancel(ctx), tenant)
	switch {
	case herr != nil:
		who = "The sessions holding locks could not be listed: " + herr.Error()
	case len(holders) == 0:
		who = "No session visible to the admin holds a lock on it now (it may have ended; on MySQL/MariaDB the admin " +
			"sees other sessions only with the PROCESS privilege)."
	default:
		who = "Sessions holding locks on it:\n  - " + strings.Join(holders, "\n  - ")
	}
	return &lockWaitError{msg: fmt.Sprintf("%s: a statement on database %q waited more than %s (lock_timeout) for a "+
		"lock held by another session and was cancelled; what this operation had done was undone. %s\nEnd that "+
		"session or let it finish, then apply again (or raise the provider's lock_timeout).",
		s.spec.Describe(), tenant, s.spec.EffectiveLockTimeout(), who), err: err}
}

// lockWaitError is a statement that waited longer than lock_timeout.
type lockWaitError struct {
	msg string
	err error
}

func (e *lockWaitError) Error() string { return e.msg + "\n\n" + e.err.Error() }
func (e *lockWaitError) Unwrap() error { return e.err }

// lockHolders lists the other sessions holding locks in the tenant
// database (PostgreSQL: any granted lock there, or on the database object
// itself; MySQL/MariaDB: the threads using that database, as far as the
// admin may see them).
func (s *Session) lockHolders(ctx context.Context, tenant string) ([]string, error) {
	var out []string
	err := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		out = nil
		query := `
SELECT l.pid, COALESCE(a.usename::text, ''), COALESCE(a.application_name, ''),
       COALESCE(EXTRACT(EPOCH FROM now() - a.xact_start)::bigint, -1), string_agg(DISTINCT l.mode, ', ')
FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.granted AND l.pid <> pg_backend_pid() AND l.locktype NOT IN ('virtualxid', 'transactionid')
  AND (l.database = (SELECT oid FROM pg_database WHERE datname = $1)
       OR (l.locktype = 'object' AND l.classid = 'pg_database'::regclass AND l.objid = (SELECT oid FROM pg_database WHERE datname = $1)))
GROUP BY 1, 2, 3, 4 ORDER BY 1`
		if s.spec.Engine != ddl.EnginePostgres {
			query = `SELECT ID, USER, '', TIME, COALESCE(STATE, '') FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID() ORDER BY ID`
		}
		rows, err := q.QueryContext(ctx, query, tenant)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var pid, secs int64
			var user, app, what string
			if err := rows.Scan(&pid, &user, &app, &secs, &what); err != nil {
				return err
			}
			line := fmt.Sprintf("pid %d user %q", pid, printableName(user))
			if app != "" {
				line += fmt.Sprintf(" application %q", printableName(app))
			}
			out = append(out, withDuration(line, " for ", secs, what))
		}
		return rows.Err()
	})
	return out, err
}

// withDuration ends a session's line with how long it has been so (secs < 0:
// unknown, left out) and what it is doing or holding, when known.
func withDuration(line, label string, secs int64, what string) string {
	if secs >= 0 {
		line += label + (time.Duration(secs) * time.Second).String()
	}
	if what != "" {
		line += " (" + printableName(what) + ")"
	}
	return line
}

// printableName keeps a catalog string on one readable line.
func printableName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return s
}
