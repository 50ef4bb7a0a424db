// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Cancelling a MySQL/MariaDB statement. Closing the client connection does
// not stop a statement on these servers: a CREATE USER waiting for a lock
// completes when the lock goes, after the operation reported it cancelled
// (an orphan login, an ALTER USER landing after its refresh). So the
// statement is sent with a context the driver does not cancel, and when
// the operation's context ends, KILL QUERY of the statement's connection
// goes over a connection of its own; then the statement's own answer is
// awaited, so the error says what really happened: it was interrupted (it
// did not take effect), it finished first (it did, and the operation goes
// on to find its context ended at the next step), or no answer came within
// cancelWait (outcome unknown, said so). The connection stays open, so a
// GET_LOCK it holds still guards the undo. A statement marked
// uncancellable (DROP DATABASE) gets no KILL QUERY at the deadline
// (uncancellable.go).

// cancelWait bounds the wait for KILL QUERY and the interrupted statement's
// answer.
var cancelWait = 30 * time.Second

// connIDKey holds, in an operation's context, the MySQL session of the
// connection that holds its lock (read once, when first needed).
type connIDKey struct{}

type connID struct{ ConnSession }

// ConnSession names a MySQL/MariaDB connSession: its connection id, and when the
// server it runs on started (unix seconds, 0 when unknown). A connection id
// is unique only while the server runs: a restarted server numbers its
// connections from 1 again, so after a restart the id of a statement's
// ConnSession may belong to another connSession of the same admin (another
// tenant's apply), which KILL QUERY would interrupt. The start time tells
// the two apart (killQuery).
type ConnSession struct{ ID, Start int64 }

// SessionQuery reads the session of the connection it runs on; the start
// is the time now less the server's Uptime (MariaDB keeps it in
// information_schema, MySQL 5.7+ in performance_schema, which MariaDB
// leaves off by default).
func SessionQuery(f ddl.Flavor) string {
	status := "performance_schema.global_status"
	if f == ddl.FlavorMariaDB {
		status = "information_schema.GLOBAL_STATUS"
	}
	return `SELECT CONNECTION_ID(), COALESCE(CAST(UNIX_TIMESTAMP() - (SELECT VARIABLE_VALUE FROM ` + status +
		` WHERE VARIABLE_NAME = 'Uptime') AS SIGNED), 0)`
}

// sameServerRun reports whether two start times can be one run of the
// server: Uptime counts whole seconds, so two readings of one run may
// differ by one. An unknown start (0) cannot prove a restart.
func sameServerRun(a, b int64) bool {
	return a == 0 || b == 0 || (a-b <= 1 && b-a <= 1)
}

// withConnIDCache gives ctx a place for its locked connection's id.
func withConnIDCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, connIDKey{}, &connID{})
}

// sampleBlockersMySQL reads, while the statement on connection id runs
// longer than blockerSampleAfter, who blocks it (blockers_mysql.go),
// every blockerSampleEvery. stop ends the sampling and returns the last
// reading that named anyone.
func (s *Session) sampleBlockersMySQL(ctx context.Context, id int64) (stop func() []string) {
	var got []string
	quit := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		wait := blockerSampleAfter
		for {
			select {
			case <-quit:
				return
			case <-time.After(wait):
			}
			wait = blockerSampleEvery
			if b := s.blockersMySQL(ctx, id); len(b) > 0 {
				got = b
			}
		}
	}()
	return func() []string {
		close(quit)
		<-sampled
		return got
	}
}

// StatementConn is the connection st runs on and its session: the one
// holding the operation's lock, or one taken from the pool for this
// statement.
func (s *Session) StatementConn(ctx context.Context) (conn *sql.Conn, sess ConnSession, done func(), err error) {
	if c, ok := ctx.Value(LockedConnKey{}).(*sql.Conn); ok {
		cache, _ := ctx.Value(connIDKey{}).(*connID)
		if cache != nil && cache.ID != 0 {
			return c, cache.ConnSession, func() {}, nil
		}
		if err := c.QueryRowContext(ctx, SessionQuery(s.info.Flavor)).Scan(&sess.ID, &sess.Start); err != nil {
			return nil, ConnSession{}, nil, err
		}
		if cache != nil {
			cache.ConnSession = sess
		}
		return c, sess, func() {}, nil
	}
	if conn, err = s.db.Conn(ctx); err != nil {
		return nil, ConnSession{}, nil, err
	}
	if err := conn.QueryRowContext(ctx, SessionQuery(s.info.Flavor)).Scan(&sess.ID, &sess.Start); err != nil {
		conn.Close()
		return nil, ConnSession{}, nil, err
	}
	return conn, sess, func() { conn.Close() }, nil
}

// killAndWait sends KILL QUERY over a new connection (never the pool,
// whose connections may all hold locks) and waits for the statement's
// answer. A server that restarted since the statement started is not sent
// the kill: the statement's session went with the restart.
func (s *Session) killAndWait(ctx context.Context, sess ConnSession, answer <-chan error) error {
	id := sess.ID
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
	defer cancel()
	killErr := s.KillQuery(kctx, sess)
	if errors.Is(killErr, ErrServerRestarted) {
		return &cancelUnconfirmedError{cause: ctx.Err(), id: id, killErr: killErr}
	}
	select {
	case err := <-answer:
		switch {
		case err == nil:
			// It finished before the kill reached it: it took effect, and
			// the next step sees the ended context.
			return nil
		case CodeOf(err) == "mysql:1317": // ER_QUERY_INTERRUPTED
			return &CancelledError{cause: ctx.Err(), id: id}
		}
		return err
	case <-kctx.Done():
		if killErr == nil {
			killErr = kctx.Err()
		}
		return &cancelUnconfirmedError{cause: ctx.Err(), id: id, killErr: killErr}
	}
}

// errServerRestarted: the kill was not sent (see session).
var ErrServerRestarted = errors.New("the server restarted since the statement started (its session ended with it, and " +
	"its connection id may now be another session's), so no KILL QUERY was sent")

// KillQuery runs KILL QUERY on sess's connection id, from a connection of
// its own (a login may kill its own statements without any privilege),
// after reading on that same connection that the server is still the run
// sess started on: a restart in between would also have ended this
// connection, so the kill reaches the statement's session or nothing.
func (s *Session) KillQuery(ctx context.Context, sess ConnSession) error {
	cfg, err := s.spec.MySQLConfig("")
	if err != nil {
		return err
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var now ConnSession
	if err := conn.QueryRowContext(ctx, SessionQuery(s.info.Flavor)).Scan(&now.ID, &now.Start); err != nil {
		return err
	}
	if !sameServerRun(sess.Start, now.Start) {
		return ErrServerRestarted
	}
	_, err = conn.ExecContext(ctx, ddl.MySQLKillQuery(sess.ID))
	return err
}

// cancelledError: the server interrupted the statement at the operation's
// deadline; it did not take effect.
type CancelledError struct {
	cause error
	id    int64
}

func (e *CancelledError) Error() string {
	return fmt.Sprintf("cancelled on the server (KILL QUERY %d) before it took effect: %v", e.id, e.cause)
}
func (e *CancelledError) Unwrap() error { return e.cause }

// cancelUnconfirmedError: no answer came after KILL QUERY; the statement
// may still complete on the server.
type cancelUnconfirmedError struct {
	cause   error
	id      int64
	killErr error
}

func (e *cancelUnconfirmedError) Error() string {
	return fmt.Sprintf("the operation's time ran out and KILL QUERY %d was sent, but the server did not confirm within %s "+
		"that the statement stopped (%v): it may still complete on the server; the next refresh reads what it did: %v",
		e.id, cancelWait, e.killErr, e.cause)
}
func (e *cancelUnconfirmedError) Unwrap() error { return e.cause }
