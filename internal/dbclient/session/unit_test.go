// SPDX-License-Identifier: MPL-2.0

package session

import (
	"testing"
)

// TestPgDisplayMS: lock_timeout is sent in milliseconds and read back as
// current_setting shows it.
func TestPgDisplayMS(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"0": "0", "5000": "5s", "1500": "1500ms", "60000": "1min", "7200000": "2h", "86400000": "1d"} {
		if got := pgDisplayMS(in); got != want {
			t.Errorf("pgDisplayMS(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSameServerRun: start times read a second apart are one run; an
// unknown start proves no restart.
func TestSameServerRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b int64
		want bool
	}{{100, 100, true}, {100, 101, true}, {101, 100, true}, {100, 102, false}, {0, 500, true}, {500, 0, true}} {
		if got := sameServerRun(tc.a, tc.b); got != tc.want {
			t.Errorf("sameServerRun(%d, %d) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
