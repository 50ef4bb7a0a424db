// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Naming the blocker on MySQL/MariaDB, read while the statement waits (as
// blockers_postgres.go does for PostgreSQL): once a KILL QUERY or
// lock_wait_timeout ends the wait, nothing records what it waited for.
// What the server exposes, best first:
//
//   - MySQL 8+ with performance_schema ON: the granted metadata locks on
//     the object the statement's pending one is for (metadata_locks), and
//     the InnoDB row-lock holder (data_lock_waits);
//   - MariaDB with the METADATA_LOCK_INFO plugin loaded: every session
//     holding a table or schema metadata lock;
//   - otherwise the process list: the sessions the admin can see, none of
//     which the server says holds the lock. Without the PROCESS privilege
//     a login sees only its own sessions: the error says so, and which
//     right (or server setting) would name the holder.
//
// Each reading is on a pool connection, bounded by blockerSampleEvery.

// blockersMySQL reads who blocks the statement running on connection id.
func (s *Session) blockersMySQL(ctx context.Context, id int64) []string {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), blockerSampleEvery)
	defer cancel()
	var precise string
	if s.info.Flavor == ddl.FlavorMariaDB {
		precise = MariadbLockHolders
	} else {
		precise = MySQLLockHolders
	}
	if got, err := s.readBlockers(qctx, precise, id); err == nil && len(got) > 0 {
		return got
	}
	got, err := s.readBlockers(qctx, ProcessListCandidates, id)
	if err != nil {
		return nil
	}
	how := "MySQL: performance_schema = ON, with SELECT ON performance_schema.* for the admin, names it exactly"
	if s.info.Flavor == ddl.FlavorMariaDB {
		how = "MariaDB: INSTALL SONAME 'metadata_lock_info' (with PROCESS) names it exactly"
	}
	if len(got) == 0 {
		return []string{"a session the admin cannot see: without the PROCESS privilege MySQL and MariaDB show a login only " +
			"its own sessions (GRANT PROCESS ON *.* TO the admin shows them all; " + how + ")"}
	}
	return append(got, "(these are the other sessions the admin can see; the server does not say which lock each holds: "+how+")")
}

// The queries take the waiting connection's id and return, per holder:
// its connection id, user, seconds in its current state, and what it
// holds or does.
const (
	MariadbLockHolders = `
SELECT m.THREAD_ID, COALESCE(p.USER, ''), COALESCE(p.TIME, -1),
       GROUP_CONCAT(DISTINCT CONCAT(m.LOCK_MODE, ' on ', m.TABLE_SCHEMA, IF(m.TABLE_NAME = '', '', CONCAT('.', m.TABLE_NAME))) SEPARATOR ', ')
FROM information_schema.METADATA_LOCK_INFO m LEFT JOIN information_schema.PROCESSLIST p ON p.ID = m.THREAD_ID
WHERE m.THREAD_ID NOT IN (?, CONNECTION_ID()) AND m.LOCK_TYPE IN ('Table metadata lock', 'Schema metadata lock')
GROUP BY 1, 2, 3 ORDER BY 1`

	MySQLLockHolders = `
SELECT t.PROCESSLIST_ID, COALESCE(t.PROCESSLIST_USER, ''), COALESCE(t.PROCESSLIST_TIME, -1),
       CONCAT(h.LOCK_TYPE, ' metadata lock on ', COALESCE(h.OBJECT_SCHEMA, ''), IF(h.OBJECT_NAME IS NULL, '', CONCAT('.', h.OBJECT_NAME)))
FROM performance_schema.metadata_locks w
JOIN performance_schema.threads wt ON wt.THREAD_ID = w.OWNER_THREAD_ID AND wt.PROCESSLIST_ID = ?
JOIN performance_schema.metadata_locks h ON h.OBJECT_TYPE = w.OBJECT_TYPE AND h.OBJECT_SCHEMA <=> w.OBJECT_SCHEMA
     AND h.OBJECT_NAME <=> w.OBJECT_NAME AND h.LOCK_STATUS = 'GRANTED' AND h.OWNER_THREAD_ID <> w.OWNER_THREAD_ID
JOIN performance_schema.threads t ON t.THREAD_ID = h.OWNER_THREAD_ID
WHERE w.LOCK_STATUS = 'PENDING'
UNION ALL
SELECT t.PROCESSLIST_ID, COALESCE(t.PROCESSLIST_USER, ''), COALESCE(t.PROCESSLIST_TIME, -1),
       CONCAT('row lock on ', COALESCE(d.BLOCKING_ENGINE_LOCK_ID, ''))
FROM performance_schema.data_lock_waits d
JOIN performance_schema.threads wt ON wt.THREAD_ID = d.REQUESTING_THREAD_ID AND wt.PROCESSLIST_ID = ?
JOIN performance_schema.threads t ON t.THREAD_ID = d.BLOCKING_THREAD_ID`

	// processListCandidates: every other session the admin can see that is
	// not one of its own (a provider's pool and locks).
	ProcessListCandidates = `
SELECT ID, USER, TIME, CONCAT(COMMAND, IF(COALESCE(STATE, '') = '', '', CONCAT(', ', STATE)))
FROM information_schema.PROCESSLIST
WHERE ID NOT IN (?, CONNECTION_ID()) AND USER <> SUBSTRING_INDEX(CURRENT_USER(), '@', 1) AND COMMAND <> 'Daemon'
ORDER BY ID`
)

// readBlockers runs one of the queries above for connection id.
func (s *Session) readBlockers(ctx context.Context, query string, id int64) ([]string, error) {
	args := []any{id}
	if strings.Count(query, "?") == 2 {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var hid, secs int64
		var user, what string
		if err := rows.Scan(&hid, &user, &secs, &what); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("connection %d", hid)
		if user != "" {
			line += fmt.Sprintf(" user %q", printableName(user))
		}
		out = append(out, withDuration(line, ", in its current state for ", secs, what))
	}
	return out, rows.Err()
}

// providerNotes is what tenantdb itself says about a failed statement (its
// cancel on the server, the sessions that blocked it), never the server's
// own text: it may be shown for a statement that carries a secret, whose
// server message is withheld.
func providerNotes(err error) string {
	var parts []string
	var cancelled *CancelledError
	var unconfirmed *cancelUnconfirmedError
	switch {
	case errors.As(err, &cancelled):
		parts = append(parts, fmt.Sprintf("cancelled on the server (KILL QUERY %d) before it took effect", cancelled.id))
	case errors.As(err, &unconfirmed):
		parts = append(parts, fmt.Sprintf("KILL QUERY %d was sent at the operation's deadline, but the server did not confirm "+
			"within %s that the statement stopped: it may still complete; the next refresh reads what it did", unconfirmed.id, cancelWait))
	}
	var blocked *blockedError
	if errors.As(err, &blocked) {
		parts = append(parts, "It was waiting for a lock held by:\n  - "+strings.Join(blocked.blockers, "\n  - "))
	}
	return strings.Join(parts, ". ")
}
