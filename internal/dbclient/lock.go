// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

const lockWait = 60 * time.Second

// WithLock runs fn while holding a server-wide advisory lock named after one
// tenant, so two concurrent applies never interleave their statements on it.
// The lock lives on a dedicated connection (both locks are per session) and
// is released when fn returns, or by the server if the connection dies.
func (s *Server) WithLock(ctx context.Context, tenant ddl.DatabaseName, fn func(context.Context) error) error {
	name := "tenantdb:" + tenant.String()
	if _, held := ctx.Value(lockedConnKey{}).(*sql.Conn); held {
		return fn(ctx) // already inside a lock of this operation
	}
	var conn *sql.Conn
	err := retry(ctx, s.spec, func(ctx context.Context) error {
		var err error
		conn, err = s.db.Conn(ctx)
		return err
	})
	if err != nil {
		return s.readError("lock "+name, err)
	}
	defer conn.Close()
	var got sql.NullInt64
	if s.spec.Engine == ddl.EnginePostgres {
		// Advisory lock keys are per database: this connection is on the
		// maintenance database, like every other process's.
		lctx, cancel := context.WithTimeout(ctx, lockWait)
		defer cancel()
		if _, err := conn.ExecContext(lctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, name); err != nil {
			return s.readError("lock "+name, err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, name)
	} else {
		if err := conn.QueryRowContext(ctx, `SELECT GET_LOCK(?, ?)`, name, int(lockWait.Seconds())).Scan(&got); err != nil {
			return s.readError("lock "+name, err)
		}
		if !got.Valid || got.Int64 != 1 {
			return fmt.Errorf("%s: another apply holds the lock %q for more than %s; try again", s.spec.describe(), name, lockWait)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT RELEASE_LOCK(?)`, name)
	}
	return fn(context.WithValue(ctx, lockedConnKey{}, conn))
}
