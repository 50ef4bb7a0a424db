// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// catalogTTL bounds how stale a snapshot may be. Terraform starts a new
// provider process for every plan and apply walk, so in practice one
// snapshot serves one walk: a refresh of N tenant databases costs one query
// instead of N.
const catalogTTL = 30 * time.Second

// catalog is a snapshot of every database on the server, taken on the first
// read. A database this process changes is marked dirty and read directly
// from then on, so a write is never hidden by the snapshot.
type catalog struct {
	mu       sync.Mutex
	loadedAt time.Time
	dbs      map[string]DatabaseState
	dirty    map[string]bool
}

// catalogDatabase serves one database from the snapshot, loading it when
// missing or expired. ok is false when the database must be read directly.
func (s *Server) catalogDatabase(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, bool, error) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty[name.String()] {
		return nil, false, nil
	}
	if c.dbs == nil || time.Since(c.loadedAt) > catalogTTL {
		dbs, err := s.loadCatalog(ctx)
		if err != nil {
			return nil, true, s.readError("read the database catalog", err)
		}
		c.dbs, c.loadedAt, c.dirty = dbs, time.Now(), map[string]bool{}
	}
	st, found := c.dbs[name.String()]
	if !found {
		return nil, true, nil
	}
	return &st, true, nil
}

func (s *Server) loadCatalog(ctx context.Context) (map[string]DatabaseState, error) {
	out := map[string]DatabaseState{}
	err := s.query(ctx, func(ctx context.Context, db queryer) error {
		clear(out)
		var rows *sql.Rows
		var err error
		if s.spec.Engine == ddl.EnginePostgres {
			rows, err = db.QueryContext(ctx, `SELECT datname, pg_encoding_to_char(encoding), datcollate, pg_get_userbyid(datdba) FROM pg_database`)
		} else {
			rows, err = db.QueryContext(ctx, `SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, '' FROM information_schema.SCHEMATA`)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st DatabaseState
			if err := rows.Scan(&st.Name, &st.Charset, &st.Collation, &st.Owner); err != nil {
				return err
			}
			out[st.Name] = st
		}
		return rows.Err()
	})
	return out, err
}

// invalidateDatabase makes later reads of db go to the server.
func (s *Server) invalidateDatabase(db ddl.DatabaseName) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty == nil {
		c.dirty = map[string]bool{}
	}
	c.dirty[db.String()] = true
}

// invalidateCatalog drops the whole snapshot.
func (s *Server) invalidateCatalog() {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dbs = nil
}
