// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// MariaDB/MySQL statement log: the general query log written to the table
// mysql.general_log (log_output includes TABLE). The server writes a row when
// it receives a command, before running it, so refused and failing
// statements are there too. Every row names the login (user_host
// "priv_user[user] @ host [ip]"); the table is a CSV file, and a scan without
// ORDER BY returns rows in the order they were written, so a row's number is
// its place in the log. A mark is the row number of a fence row; reading
// starts there (LIMIT ... OFFSET) and checks that the fence is still in that
// row.

// mysqlLogNoise are general-log commands that carry no statement: protocol
// housekeeping, left out of StatementsSince.
var mysqlLogNoise = map[string]bool{
	"Connect": true, "Quit": true, "Ping": true, "Statistics": true, "Time": true, "Sleep": true,
	"Close stmt": true, "Reset stmt": true, "Reset connection": true, "Set option": true,
	"Change user": true, "Daemon": true,
}

// mysqlDDLCommands are protocol commands (COM_CREATE_DB, COM_DROP_DB, no
// longer used by clients) that are DDL whatever their argument.
var mysqlDDLCommands = map[string]bool{"Create DB": true, "Drop DB": true}

type mysqlLogReader struct {
	s *Server

	mu   sync.Mutex
	hint int64 // a row number known to be at or before the next fence
}

type generalLogRow struct {
	userHost string
	command  string
	argument []byte
}

// newMySQLLogReader checks that the general log goes to mysql.general_log.
// The local backend starts the server so; on docker and dsn servers it is
// turned on here with SET GLOBAL (the superuser needs SUPER or
// SYSTEM_VARIABLES_ADMIN), and on dsn servers the previous settings are put
// back by Stop.
func (s *Server) newMySQLLogReader(ctx context.Context) (statementLogReader, error) {
	db, err := s.SuperDB("")
	if err != nil {
		return nil, err
	}
	var on int
	var output string
	if err := db.QueryRowContext(ctx, "SELECT @@global.general_log, @@global.log_output").Scan(&on, &output); err != nil {
		return nil, fmt.Errorf("read general_log settings: %w", err)
	}
	hasTable := false
	for _, o := range strings.Split(output, ",") {
		if strings.EqualFold(strings.TrimSpace(o), "TABLE") {
			hasTable = true
		}
	}
	if on != 1 || !hasTable {
		if s.Backend == BackendLocal {
			return nil, fmt.Errorf("general_log = %d, log_output = %q: the local server should have been started with --general-log=1 --log-output=TABLE", on, output)
		}
		newOutput := "TABLE"
		if !hasTable && output != "" && !strings.EqualFold(output, "NONE") {
			newOutput = output + ",TABLE"
		} else if hasTable {
			newOutput = output
		}
		enable := []string{"SET GLOBAL log_output = " + mysqlString(newOutput), "SET GLOBAL general_log = 1"}
		if err := execAll(ctx, db, enable); err != nil {
			return nil, fmt.Errorf("the general query log is off (general_log = %d, log_output = %q) and the superuser %q cannot turn it on "+
				"(needs SUPER or SYSTEM_VARIABLES_ADMIN): %w; turn it on yourself with SET GLOBAL log_output = 'TABLE' and SET GLOBAL general_log = 1",
				on, output, s.Super.Username, err)
		}
		if s.Backend == BackendDSN && !s.logRestored {
			// Not our server: put the settings back at Stop. (A parallel
			// run on the same server that still needs the log then fails
			// its fence with a clear error rather than passing.)
			restore := []string{"SET GLOBAL general_log = " + strconv.Itoa(on), "SET GLOBAL log_output = " + mysqlString(output)}
			if on == 1 {
				restore = restore[1:]
			}
			s.mu.Lock()
			s.dropSQL = append(s.dropSQL, restore...)
			s.mu.Unlock()
			s.logRestored = true
		}
	}
	return &mysqlLogReader{s: s}, nil
}

// read returns the rows of mysql.general_log from row number from on, in log order.
func (r *mysqlLogReader) read(ctx context.Context, from int64) ([]generalLogRow, error) {
	db, err := r.s.SuperDB("")
	if err != nil {
		return nil, err
	}
	// Numbers inlined (no placeholders): one Query row per read, instead of
	// Prepare/Execute/Close stmt.
	rows, err := db.QueryContext(ctx, mysqlLogReadPrefix+"18446744073709551615 OFFSET "+strconv.FormatInt(from, 10))
	if err != nil {
		return nil, fmt.Errorf("read mysql.general_log: %w", err)
	}
	defer rows.Close()
	var out []generalLogRow
	for rows.Next() {
		var row generalLogRow
		if err := rows.Scan(&row.userHost, &row.command, &row.argument); err != nil {
			return nil, fmt.Errorf("read mysql.general_log: %w", err)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read mysql.general_log: %w", err)
	}
	return out, nil
}

func (r *mysqlLogReader) isFence(row generalLogRow, fence string) bool {
	return row.command == "Query" && string(row.argument) == fence && generalLogLogin(row.userHost) == r.s.Super.Username
}

func (r *mysqlLogReader) setHint(pos int64) {
	r.mu.Lock()
	if pos > r.hint {
		r.hint = pos
	}
	r.mu.Unlock()
}

func (r *mysqlLogReader) mark(ctx context.Context) (LogMark, error) {
	fence := newFence()
	if err := r.s.runFence(ctx, fence); err != nil {
		return LogMark{}, err
	}
	r.mu.Lock()
	from := r.hint
	r.mu.Unlock()
	pos := int64(-1)
	err := pollLog(ctx, "fence "+fence, func() (bool, error) {
		rows, err := r.read(ctx, from)
		if err != nil {
			return false, err
		}
		if len(rows) == 0 && from > 0 {
			from = 0 // fewer rows than before: the table was emptied, look again from the start
			return false, nil
		}
		for i, row := range rows {
			if r.isFence(row, fence) {
				pos = from + int64(i)
				return true, nil
			}
		}
		// The server writes the row before it runs the fence, so a miss
		// means the hint is off (the table was emptied and refilled):
		// look from the start next time.
		from = 0
		return false, nil
	})
	if err != nil {
		return LogMark{}, err
	}
	r.setHint(pos)
	return LogMark{srv: r.s, fence: fence, pos: pos}, nil
}

func (r *mysqlLogReader) since(ctx context.Context, m LogMark) ([]logEntry, error) {
	fence := newFence()
	if err := r.s.runFence(ctx, fence); err != nil {
		return nil, err
	}
	var entries []logEntry
	err := pollLog(ctx, "fence "+fence, func() (bool, error) {
		rows, err := r.read(ctx, m.pos)
		if err != nil {
			return false, err
		}
		if len(rows) == 0 || !r.isFence(rows[0], m.fence) {
			return false, errors.New("mysql.general_log no longer holds the mark's fence in the mark's row: " +
				"the table was emptied (TRUNCATE) or rewritten since the mark")
		}
		for j := 1; j < len(rows); j++ {
			if !r.isFence(rows[j], fence) {
				continue
			}
			for _, row := range rows[1:j] {
				if mysqlLogNoise[row.command] {
					continue
				}
				entries = append(entries, logEntry{
					user: generalLogLogin(row.userHost),
					stmt: Statement{Kind: row.command, Text: string(row.argument)},
				})
			}
			r.setHint(m.pos + int64(j))
			return true, nil
		}
		return false, nil
	})
	return entries, err
}

// generalLogLogin returns the login name from a general log user_host,
// "priv_user[user] @ host [ip]" (priv_user is the matched account's user
// name, the same as user except for anonymous and proxied accounts, and
// empty on Connect rows). Names containing "[" or "] @ " may be misread.
func generalLogLogin(userHost string) string {
	i := strings.Index(userHost, "] @ ")
	if i < 0 {
		return ""
	}
	left := userHost[:i] // priv_user[user
	if l := len(left); l%2 == 1 {
		h := l / 2
		if left[h] == '[' && left[:h] == left[h+1:] {
			return left[h+1:]
		}
	}
	if j := strings.IndexByte(left, '['); j >= 0 {
		return left[j+1:]
	}
	return ""
}
