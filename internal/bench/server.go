// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// benchServer is the throwaway server and the superuser's view of it: the
// per-login counters the report needs.
type benchServer struct {
	srv    *testserver.Server
	engine string // "mysql" or "postgres"
	super  *sql.DB
	poll   *sql.DB // one connection, for the peak-connections poller

	peerPassword string

	// PostgreSQL: connections are counted from the server's own log
	// (log_connections = on): "connection authorized: user=<login>" lines
	// in the jsonlog, read incrementally.
	pgMu     sync.Mutex
	pgLog    string // path of the jsonlog file ("" when it cannot be read here)
	pgOff    int64
	pgConns  map[string]int
	pgReason string // why connections cannot be counted, when pgLog is ""
}

// startServer starts a throwaway server with internal/testserver (local
// binaries unless TENANTDB_TEST_BACKEND says otherwise) and prepares it:
// the grantee login every grant names, the peers' admin login, and the
// per-login connection counters.
func startServer(ctx context.Context, engine string) (*benchServer, error) {
	if os.Getenv(testserver.EnvBackend) == "" {
		// docker would measure a container's network path, and its
		// PostgreSQL has no readable statement log.
		os.Setenv(testserver.EnvBackend, testserver.BackendLocal)
	}
	srv, err := testserver.Start(ctx, engine)
	if err != nil {
		return nil, err
	}
	s := &benchServer{srv: srv, engine: engine, pgConns: map[string]int{}}
	if err := s.setup(ctx); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return s, nil
}

func (s *benchServer) stop() error {
	if s.poll != nil {
		_ = s.poll.Close()
	}
	return s.srv.Stop()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *benchServer) setup(ctx context.Context) error {
	var err error
	if s.super, err = s.srv.SuperDB(""); err != nil {
		return err
	}
	if s.poll, err = s.srv.Open(s.srv.Super, ""); err != nil {
		return err
	}
	s.poll.SetMaxOpenConns(1)
	s.poll.SetMaxIdleConns(1)
	s.poll.SetConnMaxLifetime(0)
	s.peerPassword = "Pw-" + randomHex(12)
	readerPassword := "Pw-" + randomHex(12)

	info, err := serverInfo(s.srv)
	if err != nil {
		return err
	}
	var stmts []string
	if s.engine == testserver.EngineMySQL {
		stmts = []string{
			fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", readerLogin, readerPassword),
			fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", peerLogin, s.peerPassword),
		}
		// The peer gets exactly tenantdb's admin rights.
		stmts = append(stmts, ddl.MySQLAdminGrants(info, ddl.AdminAccount{User: peerLogin, Host: "%"})...)
		// Per-login counters (information_schema.USER_STATISTICS).
		stmts = append(stmts, "SET GLOBAL userstat = 1")
	} else {
		stmts = []string{
			fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, readerLogin, readerPassword),
			fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, peerLogin, s.peerPassword),
		}
		stmts = append(stmts, ddl.PostgresAdminGrants(ddl.AdminAccount{User: peerLogin})...)
		// Connections are counted from the server's log.
		stmts = append(stmts, "ALTER SYSTEM SET log_connections = on", "SELECT pg_reload_conf()")
	}
	for _, st := range stmts {
		if _, err := s.super.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("bench setup: %s: %w", testserver.RedactSecrets(st), err)
		}
	}
	if s.engine == testserver.EnginePostgres {
		var path sql.NullString
		if err := s.super.QueryRowContext(ctx, "SELECT pg_current_logfile('jsonlog')").Scan(&path); err != nil || !path.Valid {
			s.pgReason = fmt.Sprintf("no jsonlog (%v)", err)
		} else if fi, err := os.Stat(path.String); err != nil {
			s.pgReason = fmt.Sprintf("the server's log %s is not readable here: %v", path.String, err)
		} else {
			s.pgLog, s.pgOff = path.String, fi.Size()
		}
	}
	return nil
}

func serverInfo(srv *testserver.Server) (ddl.ServerInfo, error) {
	v, err := ddl.ParseVersion(srv.Version())
	if err != nil {
		return ddl.ServerInfo{}, err
	}
	flavor := ddl.Flavor(srv.Flavor)
	return ddl.ServerInfo{Flavor: flavor, Version: v}, nil
}

// connections returns how many connections the login has opened since the
// server started, as the server counts them (MariaDB/MySQL:
// USER_STATISTICS.TOTAL_CONNECTIONS with userstat on; PostgreSQL:
// "connection authorized" lines in its log). ok is false when this server
// cannot say.
func (s *benchServer) connections(ctx context.Context, login string) (n int, ok bool, err error) {
	if s.engine == testserver.EngineMySQL {
		err := s.super.QueryRowContext(ctx,
			"SELECT TOTAL_CONNECTIONS FROM information_schema.USER_STATISTICS WHERE USER = '"+login+"'").Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, true, nil
		}
		return n, err == nil, err
	}
	s.pgMu.Lock()
	defer s.pgMu.Unlock()
	if s.pgLog == "" {
		return 0, false, nil
	}
	f, err := os.Open(s.pgLog)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	if _, err := f.Seek(s.pgOff, io.SeekStart); err != nil {
		return 0, false, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	marker := []byte("connection authorized: user=")
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a partial last line is read again next time
		}
		if err != nil {
			return 0, false, err
		}
		s.pgOff += int64(len(line))
		if !bytes.Contains(line, marker) {
			continue
		}
		var rec struct {
			User    string `json:"user"`
			Message string `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		rest, ok := strings.CutPrefix(rec.Message, "connection authorized: user=")
		if !ok {
			continue
		}
		user, _, _ := strings.Cut(rest, " ")
		s.pgConns[user]++
	}
	return s.pgConns[login], true, nil
}

// peakWatch polls the number of sessions the login has open.
type peakWatch struct {
	stop, done chan struct{}
	peak       int
	err        error
}

// sessionsQuery counts the login's open sessions (bench logins are
// plain identifiers the bench chose).
func (s *benchServer) sessionsQuery(login string) string {
	if s.engine == testserver.EnginePostgres {
		return "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + login + "'"
	}
	return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '" + login + "'"
}

// openAfter is how many sessions the login still has open once terraform
// has exited, waiting up to grace for the server to notice closed
// sockets: anything left is a connection the provider never closed.
func (s *benchServer) openAfter(ctx context.Context, login string, grace time.Duration) (int, error) {
	deadline := time.Now().Add(grace)
	for {
		var n int
		if err := s.poll.QueryRowContext(ctx, s.sessionsQuery(login)).Scan(&n); err != nil {
			return 0, err
		}
		if n == 0 || time.Now().After(deadline) {
			return n, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *benchServer) watchPeak(login string, every time.Duration) *peakWatch {
	q := s.sessionsQuery(login)
	w := &peakWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var n int
			err := s.poll.QueryRowContext(ctx, q).Scan(&n)
			cancel()
			if err != nil && w.err == nil {
				w.err = err
			}
			w.peak = max(w.peak, n)
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *peakWatch) finish() (int, error) {
	close(w.stop)
	<-w.done
	return w.peak, w.err
}

// leftovers counts databases and logins whose names start with prefix: what
// a destroy left behind.
func (s *benchServer) leftovers(ctx context.Context, prefix string) (dbs, logins int, err error) {
	like := strings.ReplaceAll(prefix, "_", `\_`) + "%"
	var qdb, qlogin string
	if s.engine == testserver.EngineMySQL {
		qdb = "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE '" + like + "'"
		qlogin = "SELECT COUNT(*) FROM mysql.user WHERE User LIKE '" + like + "'"
	} else {
		qdb = "SELECT count(*) FROM pg_database WHERE datname LIKE '" + like + "'"
		qlogin = "SELECT count(*) FROM pg_roles WHERE rolname LIKE '" + like + "'"
	}
	if err := s.super.QueryRowContext(ctx, qdb).Scan(&dbs); err != nil {
		return 0, 0, err
	}
	if err := s.super.QueryRowContext(ctx, qlogin).Scan(&logins); err != nil {
		return 0, 0, err
	}
	return dbs, logins, nil
}

// trimLog empties MariaDB's mysql.general_log between phases (the
// statement log of internal/testserver copes: a mark taken after it looks
// from the start), so that reading a phase's statements never scans the
// statements of every earlier phase. PostgreSQL's log is read from an
// offset and needs nothing.
func (s *benchServer) trimLog(ctx context.Context) {
	if s.engine == testserver.EngineMySQL {
		_, _ = s.super.ExecContext(ctx, "TRUNCATE TABLE mysql.general_log")
	}
}

// StatementCounts are a login's statements in one phase, by kind.
type StatementCounts struct {
	DDL      int // DDL/DCL by testserver.IsDDL (CREATE, ALTER, DROP, GRANT, REVOKE, ...)
	Reads    int // SELECT, SHOW, WITH, ... (catalog reads, lock functions)
	Other    int // SET, BEGIN, COMMIT, USE, ...
	Prepares int // MariaDB/MySQL: server-side prepares (binary protocol), not counted above
}

// Total is every statement run (prepares excluded).
func (c StatementCounts) Total() int { return c.DDL + c.Reads + c.Other }

// classify counts statements as the server logged them.
func classify(engine string, stmts []testserver.Statement) StatementCounts {
	var c StatementCounts
	for _, st := range stmts {
		switch {
		case engine == testserver.EngineMySQL && st.Kind == "Prepare":
			c.Prepares++
		case engine == testserver.EngineMySQL && st.Kind != "Query" && st.Kind != "Execute":
			c.Other++ // Init DB, Field List, ...
		case testserver.IsDDL(engine, st.Text):
			c.DDL++
		case isRead(st.Text):
			c.Reads++
		default:
			c.Other++
		}
	}
	return c
}

var readWords = map[string]bool{
	"SELECT": true, "SHOW": true, "WITH": true, "TABLE": true, "VALUES": true,
	"EXPLAIN": true, "DESCRIBE": true, "DESC": true,
}

// isRead: the first keyword (after whitespace, comments and parentheses)
// is a reading one.
func isRead(text string) bool {
	s := text
	for {
		s = strings.TrimLeft(s, " \t\r\n(")
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
				continue
			}
			return false
		case strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/*!") && !strings.HasPrefix(s, "/*M!"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = s[i+2:]
				continue
			}
			return false
		}
		break
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') })
	if end < 0 {
		end = len(s)
	}
	return readWords[strings.ToUpper(s[:end])]
}
