// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// PostgreSQL statement log: log_statement = 'all' written by the logging
// collector as jsonlog (PostgreSQL 15+): one JSON object per line, newlines
// inside statements escaped, each naming the session's login ("user") and
// backend ("pid"). A statement is logged after it is parsed and before it
// runs, so statements the server refuses (permission denied, object exists)
// are there too; a statement that fails to parse is not logged as run, but
// its error report names it ("statement"), which is kept as Kind "error". A
// mark is the byte offset just past a fence's line (record).
//
// A local server of PostgreSQL 14 or older has no jsonlog: it writes the
// same messages as csvlog, one CSV record per message (quoted fields may
// span lines), read by scanCSVLog into the same entries.

// pgLogSource reads the jsonlog from a byte offset to its current end.
type pgLogSource interface {
	// read returns the log file's name and its bytes from offset off on.
	read(ctx context.Context, off int64) (file string, data []byte, err error)
}

// pgFileSource reads a local server's jsonlog file directly.
type pgFileSource struct{ path string }

func (f pgFileSource) read(_ context.Context, off int64) (string, []byte, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return "", nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", nil, err
	}
	if st.Size() < off {
		return "", nil, fmt.Errorf("%s is %d bytes, shorter than the mark's offset %d: it was truncated", f.path, st.Size(), off)
	}
	if _, err := fh.Seek(off, io.SeekStart); err != nil {
		return "", nil, err
	}
	data, err := io.ReadAll(fh)
	return f.path, data, err
}

// pgSQLSource reads the jsonlog through the superuser with
// pg_read_binary_file (dsn backend: the log is on another machine).
type pgSQLSource struct{ s *Server }

func (q pgSQLSource) read(ctx context.Context, off int64) (string, []byte, error) {
	db, err := q.s.SuperDB("")
	if err != nil {
		return "", nil, err
	}
	const chunk = 16 << 20
	var file sql.NullString
	var out []byte
	for {
		var data []byte
		// Numbers inlined: the simple protocol, one logged statement per read.
		err := db.QueryRowContext(ctx, pgLogReadPrefix+strconv.FormatInt(off, 10)+", "+strconv.Itoa(chunk)+
			") FROM pg_current_logfile('jsonlog') AS f").Scan(&file, &data)
		if err != nil {
			return "", nil, fmt.Errorf("read the server's jsonlog with pg_read_binary_file as %q (needs superuser or pg_read_server_files): %w", q.s.Super.Username, err)
		}
		if !file.Valid {
			return "", nil, fmt.Errorf("pg_current_logfile('jsonlog') is NULL: the server writes no jsonlog " +
				"(it needs logging_collector = on and jsonlog in log_destination, PostgreSQL 15+)")
		}
		out = append(out, data...)
		if len(data) < chunk {
			return file.String, out, nil
		}
		off += int64(len(data))
	}
}

type pgLogReader struct {
	s    *Server
	src  pgLogSource
	scan pgLogScanner // scanJSONLog, or scanCSVLog for a csvlog

	mu       sync.Mutex
	hintFile string
	hint     int64 // an offset in hintFile known to be at or before the next fence
}

// pgLogScanner decodes the complete entries of data (read from offset base)
// and calls fn with each entry and the offset just past it, until fn says
// stop. An incomplete last entry is left for the next read.
type pgLogScanner func(data []byte, base int64, fn func(e *pgJSONEntry, end int64) (stop bool)) (bool, error)

// pgJSONEntry holds the jsonlog fields read here (scanCSVLog fills the same
// fields from a csvlog record).
type pgJSONEntry struct {
	User      string `json:"user"`
	DBName    string `json:"dbname"`
	Pid       int    `json:"pid"`
	Severity  string `json:"error_severity"`
	Message   string `json:"message"`
	Statement string `json:"statement"`
	Vxid      string `json:"vxid"`
}

func (s *Server) newPostgresLogReader(ctx context.Context) (statementLogReader, error) {
	switch s.Backend {
	case BackendLocal:
		if s.pgCSVLogFile != "" {
			return &pgLogReader{s: s, src: pgFileSource{s.pgCSVLogFile}, scan: scanCSVLog}, nil
		}
		if s.pgJSONLogFile == "" {
			return nil, fmt.Errorf("the local server was started without a jsonlog file")
		}
		return &pgLogReader{s: s, src: pgFileSource{s.pgJSONLogFile}, scan: scanJSONLog}, nil
	case BackendDSN:
		db, err := s.SuperDB("")
		if err != nil {
			return nil, err
		}
		var logStatement string
		if err := db.QueryRowContext(ctx, "SHOW log_statement").Scan(&logStatement); err != nil {
			return nil, err
		}
		if logStatement != "all" {
			return nil, fmt.Errorf("log_statement = %q; the statement log needs the server to run with log_statement = 'all', "+
				"logging_collector = on and jsonlog in log_destination (this package does not change another server's configuration)", logStatement)
		}
		return &pgLogReader{s: s, src: pgSQLSource{s}, scan: scanJSONLog}, nil
	case BackendDocker:
		if s.pgLogSrc == nil {
			return nil, fmt.Errorf("the container was started without a jsonlog")
		}
		return &pgLogReader{s: s, src: s.pgLogSrc, scan: scanJSONLog}, nil
	default:
		return nil, fmt.Errorf("no statement log on the %s backend", s.Backend)
	}
}

func (r *pgLogReader) isFence(e *pgJSONEntry, fence string) bool {
	return e.Severity == "LOG" && e.User == r.s.Super.Username && e.Message == "statement: "+fence
}

// scanJSONLog decodes the complete lines of data (read from offset base) and
// calls fn with each entry and the offset just past its line, until fn says stop.
func scanJSONLog(data []byte, base int64, fn func(e *pgJSONEntry, end int64) (stop bool)) (bool, error) {
	off := 0
	for {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return false, nil // an incomplete last line is read again next time
		}
		line := data[off : off+nl]
		start := base + int64(off)
		off += nl + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e pgJSONEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return false, fmt.Errorf("jsonlog line at byte %d: %w", start, err)
		}
		if fn(&e, base+int64(off)) {
			return true, nil
		}
	}
}

// csvlog columns used here, by position (PostgreSQL 14 manual, "Using
// CSV-Format Log Output": log_time, user_name, database_name, process_id,
// connection_from, session_id, session_line_num, command_tag,
// session_start_time, virtual_transaction_id, transaction_id,
// error_severity, sql_state_code, message, detail, hint, internal_query,
// internal_query_pos, context, query, query_pos, location,
// application_name, backend_type, leader_pid, query_id). Columns are only
// ever added at the end, so a record needs at least csvQuery+1 fields.
const (
	csvUser     = 1
	csvDB       = 2
	csvPid      = 3
	csvVxid     = 9
	csvSeverity = 11
	csvMessage  = 13
	csvQuery    = 19 // the statement an error report names (jsonlog "statement")
)

// scanCSVLog is scanJSONLog for a csvlog. A record ends at a newline outside
// double quotes: text fields are always quoted, with quotes inside doubled,
// so counting quotes finds the end of each record even when a statement
// spans lines. Each complete record is then parsed with encoding/csv.
func scanCSVLog(data []byte, base int64, fn func(e *pgJSONEntry, end int64) (stop bool)) (bool, error) {
	start, inQuotes := 0, false
	for i, c := range data {
		switch {
		case c == '"':
			inQuotes = !inQuotes
			continue
		case c != '\n' || inQuotes:
			continue
		}
		rec := data[start : i+1]
		recStart := base + int64(start)
		start = i + 1
		if len(bytes.TrimSpace(rec)) == 0 {
			continue
		}
		cr := csv.NewReader(bytes.NewReader(rec))
		cr.FieldsPerRecord = -1
		fields, err := cr.Read()
		if err != nil {
			return false, fmt.Errorf("csvlog record at byte %d: %w", recStart, err)
		}
		if len(fields) <= csvQuery {
			return false, fmt.Errorf("csvlog record at byte %d has %d fields, want at least %d", recStart, len(fields), csvQuery+1)
		}
		pid, err := strconv.Atoi(fields[csvPid])
		if err != nil {
			return false, fmt.Errorf("csvlog record at byte %d: process_id %q: %w", recStart, fields[csvPid], err)
		}
		e := pgJSONEntry{
			User:      fields[csvUser],
			DBName:    fields[csvDB],
			Pid:       pid,
			Severity:  fields[csvSeverity],
			Message:   fields[csvMessage],
			Statement: fields[csvQuery],
			Vxid:      fields[csvVxid],
		}
		if fn(&e, base+int64(start)) {
			return true, nil
		}
	}
	return false, nil // an incomplete last record is read again next time
}

func (r *pgLogReader) mark(ctx context.Context) (LogMark, error) {
	fence := newFence()
	if err := r.s.runFence(ctx, fence); err != nil {
		return LogMark{}, err
	}
	r.mu.Lock()
	hintFile, from := r.hintFile, r.hint
	r.mu.Unlock()
	var m LogMark
	err := pollLog(ctx, "fence "+fence, func() (bool, error) {
		file, data, err := r.src.read(ctx, from)
		if err != nil {
			if from == 0 {
				return false, err
			}
			from = 0 // the hint no longer fits the file: read it all
			return false, nil
		}
		if file != hintFile && from != 0 {
			hintFile, from = file, 0 // another file: the hint is not for it
			return false, nil
		}
		hintFile = file
		found, err := r.scan(data, from, func(e *pgJSONEntry, end int64) bool {
			if r.isFence(e, fence) {
				m = LogMark{srv: r.s, fence: fence, pos: end, file: file}
				return true
			}
			return false
		})
		return found, err
	})
	if err != nil {
		return LogMark{}, err
	}
	r.setHint(m.file, m.pos)
	return m, nil
}

func (r *pgLogReader) setHint(file string, pos int64) {
	r.mu.Lock()
	if file != r.hintFile || pos > r.hint {
		r.hintFile, r.hint = file, pos
	}
	r.mu.Unlock()
}

func (r *pgLogReader) since(ctx context.Context, m LogMark) ([]logEntry, error) {
	fence := newFence()
	if err := r.s.runFence(ctx, fence); err != nil {
		return nil, err
	}
	var entries []logEntry
	err := pollLog(ctx, "fence "+fence, func() (bool, error) {
		file, data, err := r.src.read(ctx, m.pos)
		if err != nil {
			return false, err
		}
		if file != m.file {
			return false, fmt.Errorf("the server now logs to %s, not %s as at the mark: the log was rotated", file, m.file)
		}
		entries = entries[:0]
		// The last statement each backend logged as run, to tell an error
		// report about it from one about a statement that never got that far.
		type logged struct{ text, vxid string }
		last := map[int]logged{}
		var fenceEnd int64
		found, err := r.scan(data, m.pos, func(e *pgJSONEntry, end int64) bool {
			if r.isFence(e, fence) {
				fenceEnd = end
				return true
			}
			st, ok := pgStatement(e)
			if !ok {
				return false
			}
			if st.Kind == "error" {
				if l, seen := last[e.Pid]; seen && l.text == e.Statement && l.vxid == e.Vxid {
					return false // the statement that failed was logged before it ran
				}
			} else {
				last[e.Pid] = logged{st.Text, e.Vxid}
			}
			st.Database = e.DBName
			entries = append(entries, logEntry{user: e.User, stmt: st})
			return false
		})
		if found {
			r.setHint(file, fenceEnd)
		}
		return found, err
	})
	return entries, err
}

// pgStatement turns a jsonlog entry into a Statement: "statement: ..."
// (simple protocol), "execute <name>: ..." / "execute fetch from <name>:
// ..." (extended protocol), or an error report naming its statement. Other
// messages (connection setup, warnings, errors without a statement) are not
// statements.
func pgStatement(e *pgJSONEntry) (Statement, bool) {
	if e.Severity == "LOG" {
		if text, ok := strings.CutPrefix(e.Message, "statement: "); ok {
			return Statement{Kind: "statement", Text: text}, true
		}
		if rest, ok := strings.CutPrefix(e.Message, "execute "); ok {
			rest = strings.TrimPrefix(rest, "fetch from ")
			if _, text, ok := strings.Cut(rest, ": "); ok {
				return Statement{Kind: "execute", Text: text}, true
			}
		}
		return Statement{}, false
	}
	switch e.Severity {
	case "ERROR", "FATAL", "PANIC":
		if e.Statement != "" {
			return Statement{Kind: "error", Text: e.Statement}, true
		}
	}
	return Statement{}, false
}
