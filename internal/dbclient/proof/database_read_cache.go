// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"sync"
)

// One operation reads a tenant database's catalog row several times before
// it changes anything (the owner conflict check, the owner mark's database
// identity, the default-privilege handovers): under the tenant's lock
// (withLock) the first reading serves the others, until a statement of the
// operation runs (exec forgets every reading, whatever it touched). A
// round trip less per owner create; what others change out of band in that
// moment is what a reading a moment earlier would have missed as well.

type databaseReadsKey struct{}

type databaseReads struct {
	mu sync.Mutex
	m  map[string]*DatabaseState // nil value: read, not found
}

// withDatabaseReads gives the reads under ctx (one locked operation) a
// cache of database rows.
func withDatabaseReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, databaseReadsKey{}, &databaseReads{m: map[string]*DatabaseState{}})
}

// cachedDatabase is the row read earlier in this operation, if any (a
// copy: callers may change theirs).
func cachedDatabase(ctx context.Context, name string) (st *DatabaseState, ok bool) {
	r, _ := ctx.Value(databaseReadsKey{}).(*databaseReads)
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	got, ok := r.m[name]
	if got != nil {
		c := *got
		got = &c
	}
	return got, ok
}

// rememberDatabase keeps a row (nil: not found) for the rest of the
// operation's reads.
func rememberDatabase(ctx context.Context, name string, st *DatabaseState) {
	if r, _ := ctx.Value(databaseReadsKey{}).(*databaseReads); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		if st != nil {
			c := *st
			st = &c
		}
		r.m[name] = st
	}
}

// forgetDatabaseReads drops every reading: a statement is about to run.
func forgetDatabaseReads(ctx context.Context) {
	if r, _ := ctx.Value(databaseReadsKey{}).(*databaseReads); r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		clear(r.m)
	}
}
