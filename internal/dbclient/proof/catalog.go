// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
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

	// accounts: logins and grant rows, for refreshes (catalog_accounts.go).
	accounts accountsSnapshot

	// serverID is the server-level part of identities (PostgreSQL's system
	// identifier, MySQL 8's server_uuid), read once per process; idRead
	// makes the callers of a burst (Terraform's first ten refreshes) wait
	// for one read instead of each taking an admin connection for its own.
	serverID string
	idRead   sync.Mutex

	// ledgerReady: this process has made sure the ledger exists
	// (ledger_mysql.go).
	ledgerReady bool
}

// catalogDatabase serves one database from the snapshot, loading it when
// missing or expired. ok is false when the database must be read directly.
func (s *Server) catalogDatabase(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, bool, error) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty[s.lookupKey(name.String())] {
		return nil, false, nil
	}
	if c.dbs == nil || time.Since(c.loadedAt) > catalogTTL {
		dbs, err := s.loadCatalog(ctx)
		if err != nil {
			return nil, true, s.sess.ReadError("read the database catalog", err)
		}
		c.dbs, c.loadedAt, c.dirty = dbs, time.Now(), map[string]bool{}
	}
	st, found := c.dbs[s.lookupKey(name.String())]
	if !found {
		return nil, true, nil
	}
	return &st, true, nil
}

func (s *Server) loadCatalog(ctx context.Context) (map[string]DatabaseState, error) {
	out := map[string]DatabaseState{}
	err := s.withLedgerMarks("", func(q string) error {
		return s.queryEach(ctx, q, func() { clear(out) }, func(rows *sql.Rows) error {
			var st DatabaseState
			if err := rows.Scan(&st.Name, &st.Charset, &st.Collation, &st.Owner, &st.Marker, &st.Invalid); err != nil {
				return err
			}
			out[s.lookupKey(st.Name)] = st
			return nil
		})
	})
	return out, err
}

// queryEach runs a read of many rows on the admin pool with retries:
// reset runs before each attempt, row for each row.
func (s *Server) queryEach(ctx context.Context, q string, reset func(), row func(*sql.Rows) error) error {
	return s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		reset()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := row(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// InvalidateDatabase makes later reads of db go to the server.
func (s *Server) InvalidateDatabase(db ddl.DatabaseName) {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty == nil {
		c.dirty = map[string]bool{}
	}
	c.dirty[s.lookupKey(db.String())] = true
}

// InvalidateCatalog drops the whole snapshot.
func (s *Server) InvalidateCatalog() {
	c := &s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dbs = nil
}
