// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

const lockWait = 60 * time.Second

// WithLock runs fn while holding a server-wide advisory lock named after one
// tenant, so two concurrent applies never interleave their statements on it.
// The lock lives on a dedicated connection (both locks are per session) and
// is released when fn returns, or by the server if the connection dies.
// Inside a lock of the same operation, fn runs as it is (holdsLock).
func (s *Session) WithLock(ctx context.Context, tenant ddl.DatabaseName, fn func(context.Context) error) error {
	if s.HoldsLock(ctx) {
		return fn(ctx) // already inside a lock of this operation
	}
	conn, release, err := s.lockedConn(ctx, "tenantdb:"+tenant.String())
	if err != nil {
		return err
	}
	defer conn.Close()
	defer release()
	s.opStarted(conn)
	defer s.opEnded(conn)
	ctx = withConnIDCache(context.WithValue(ctx, tenantKey{}, tenant.String()))
	ctx = context.WithValue(ctx, LockedConnKey{}, conn)
	return fn(ctx)
}

// HoldsLock reports whether ctx runs inside a tenant lock of its operation.
func (s *Session) HoldsLock(ctx context.Context) bool {
	_, held := ctx.Value(LockedConnKey{}).(*sql.Conn)
	return held
}

// lockedConn takes a dedicated connection and the named lock on it. A
// pooled connection that died while idle (its SSH link given up after a
// silent bastion, the server restarted) fails its first statement with
// driver.ErrBadConn, before anything was sent: database/sql retries that
// for statements on the pool, not on a *sql.Conn, so the lock is tried
// again here on another connection (each bad one is discarded, so at most
// the pool's size of them).
func (s *Session) lockedConn(ctx context.Context, name string) (*sql.Conn, func(), error) {
	for attempt := 0; ; attempt++ {
		var conn *sql.Conn
		err := Retry(ctx, s.spec, func(ctx context.Context) error {
			var err error
			conn, err = s.db.Conn(ctx)
			return err
		})
		if err != nil {
			return nil, nil, s.ReadError("lock "+name, err)
		}
		release, err := s.LockOn(ctx, conn, name)
		if err == nil {
			return conn, release, nil
		}
		conn.Close()
		if !errors.Is(err, driver.ErrBadConn) || attempt >= AdminPoolMaxOpen {
			return nil, nil, err
		}
	}
}

// LockOn takes the named advisory lock on conn, waiting up to lockWait.
// PostgreSQL advisory lock keys are per database: conn is on the
// maintenance database, like every other process's.
func (s *Session) LockOn(ctx context.Context, conn *sql.Conn, name string) (release func(), err error) {
	name = LockName(name)
	if s.spec.Engine == ddl.EnginePostgres {
		lctx, cancel := context.WithTimeout(ctx, lockWait)
		defer cancel()
		// The session's lock_timeout bounds each wait; waiting for another
		// apply of the same tenant may take up to lockWait, so a timed-out
		// wait is simply taken up again (no extra round trip otherwise).
		for {
			_, err := conn.ExecContext(lctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, name)
			if err == nil {
				break
			}
			if CodeOf(err) != "pg:55P03" || lctx.Err() != nil {
				return nil, s.ReadError("lock "+name, err)
			}
		}
		return func() {
			// Best effort: the server releases it anyway when conn closes.
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, name)
		}, nil
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT GET_LOCK(?, ?)`, name, int(lockWait.Seconds())).Scan(&got); err != nil {
		return nil, s.ReadError("lock "+name, err)
	}
	if !got.Valid || got.Int64 != 1 {
		return nil, fmt.Errorf("%s: another apply holds the lock %q for more than %s; try again", s.spec.Describe(), name, lockWait)
	}
	return func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT RELEASE_LOCK(?)`, name) }, nil
}

// MaxLockName is MySQL 8's limit on GET_LOCK names (error 3057 beyond).
const MaxLockName = 64

// LockName keeps a lock name within maxLockName: a longer one (a 64-byte
// database name after the prefix) becomes its prefix and a digest, the same
// in every process, so it still excludes the same operations.
func LockName(name string) string {
	if len(name) <= MaxLockName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "tenantdb#" + hex.EncodeToString(sum[:])[:48]
}
