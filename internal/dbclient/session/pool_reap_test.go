// SPDX-License-Identifier: MPL-2.0

package session

import (
	"database/sql"
	"slices"
	"testing"
	"time"
)

// TestReapClosesLeastRecentlyUsed: when more tenant pools are idle than
// may stay open, the ones closed are those idle longest, never the one an
// operation released a moment ago and is about to take again; pools in use
// and pools idle past tenantPoolIdleClose are handled as such; a pool an
// operation still running used last is closed after every other idle one.
func TestReapClosesLeastRecentlyUsed(t *testing.T) {
	now := time.Now()
	type pool struct {
		name   string
		idle   time.Duration // since last use
		inUse  int
		liveOp bool // used last by an operation that still runs
	}
	tests := []struct {
		name  string
		pools []pool
		keep  int
		want  []string // open afterwards, sorted
	}{
		{"keeps the most recent idle ones", []pool{{"a", 900 * time.Millisecond, 0, false}, {"b", 10 * time.Millisecond, 0, false}, {"c", 500 * time.Millisecond, 0, false}, {"d", time.Millisecond, 0, false}}, 2, []string{"b", "d"}},
		{"pools in use stay and do not count", []pool{{"a", time.Hour, 1, false}, {"b", 10 * time.Millisecond, 0, false}, {"c", 20 * time.Millisecond, 0, false}, {"d", 30 * time.Millisecond, 2, false}}, 1, []string{"a", "b", "d"}},
		{"idle past tenantPoolIdleClose closes whatever keep allows", []pool{{"a", TenantPoolIdleClose + time.Second, 0, false}, {"b", time.Millisecond, 0, false}}, 2, []string{"b"}},
		{"keep below zero is zero", []pool{{"a", time.Millisecond, 0, false}, {"b", time.Millisecond, 1, false}}, -1, []string{"b"}},
		{"nothing to close", []pool{{"a", time.Millisecond, 0, false}}, 2, []string{"a"}},
		{"a running operation's pool closes after the others", []pool{{"a", 900 * time.Millisecond, 0, true}, {"b", 10 * time.Millisecond, 0, false}, {"c", time.Millisecond, 0, false}}, 1, []string{"a"}},
		{"among running operations' pools, the least recently used first", []pool{{"a", 900 * time.Millisecond, 0, true}, {"b", 10 * time.Millisecond, 0, true}, {"c", time.Millisecond, 0, false}}, 1, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Session{TenantPools: map[string]*TenantPool{}, liveOps: map[*sql.Conn]bool{}}
			for _, p := range tt.pools {
				db, err := sql.Open("pgx", "postgres://unused.invalid/x") // never connects
				if err != nil {
					t.Fatal(err)
				}
				tp := &TenantPool{DB: db, LastUsed: now.Add(-p.idle), InUse: p.inUse, PIDs: map[int]bool{}}
				if p.liveOp {
					tp.op = &sql.Conn{}
					s.liveOps[tp.op] = true
				}
				s.TenantPools[p.name] = tp
			}
			s.reapLocked(tt.keep)
			var open []string
			for name := range s.TenantPools {
				open = append(open, name)
			}
			slices.Sort(open)
			if !slices.Equal(open, tt.want) {
				t.Fatalf("open after reapLocked(%d): %v, want %v", tt.keep, open, tt.want)
			}
		})
	}
}
