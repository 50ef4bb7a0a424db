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
// and pools idle past tenantPoolIdleClose are handled as such.
func TestReapClosesLeastRecentlyUsed(t *testing.T) {
	now := time.Now()
	type pool struct {
		name  string
		idle  time.Duration // since last use
		inUse int
	}
	tests := []struct {
		name  string
		pools []pool
		keep  int
		want  []string // open afterwards, sorted
	}{
		{"keeps the most recent idle ones", []pool{{"a", 900 * time.Millisecond, 0}, {"b", 10 * time.Millisecond, 0}, {"c", 500 * time.Millisecond, 0}, {"d", time.Millisecond, 0}}, 2, []string{"b", "d"}},
		{"pools in use stay and do not count", []pool{{"a", time.Hour, 1}, {"b", 10 * time.Millisecond, 0}, {"c", 20 * time.Millisecond, 0}, {"d", 30 * time.Millisecond, 2}}, 1, []string{"a", "b", "d"}},
		{"idle past tenantPoolIdleClose closes whatever keep allows", []pool{{"a", TenantPoolIdleClose + time.Second, 0}, {"b", time.Millisecond, 0}}, 2, []string{"b"}},
		{"keep below zero is zero", []pool{{"a", time.Millisecond, 0}, {"b", time.Millisecond, 1}}, -1, []string{"b"}},
		{"nothing to close", []pool{{"a", time.Millisecond, 0}}, 2, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Session{TenantPools: map[string]*TenantPool{}}
			for _, p := range tt.pools {
				db, err := sql.Open("pgx", "postgres://unused.invalid/x") // never connects
				if err != nil {
					t.Fatal(err)
				}
				s.TenantPools[p.name] = &TenantPool{DB: db, LastUsed: now.Add(-p.idle), InUse: p.inUse, PIDs: map[int]bool{}}
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
