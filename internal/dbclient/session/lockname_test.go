// SPDX-License-Identifier: MPL-2.0

package session

import (
	"strings"
	"testing"
)

// TestLockName: lock names stay within MySQL 8's 64 characters (error 3057
// beyond), short names are unchanged, long ones stay distinct and stable.
func TestLockName(t *testing.T) {
	t.Parallel()
	short := "tenantdb:acme_wms"
	if got := LockName(short); got != short {
		t.Fatalf("lockName(%q) = %q, want it unchanged", short, got)
	}
	a, b := "tenantdb:"+strings.Repeat("a", 64), "tenantdb:"+strings.Repeat("a", 63)+"b"
	la, lb := LockName(a), LockName(b)
	if len(la) > MaxLockName || len(lb) > MaxLockName {
		t.Fatalf("long lock names are %d and %d characters, want at most %d", len(la), len(lb), MaxLockName)
	}
	if la == lb || la != LockName(a) {
		t.Fatalf("long lock names must be distinct and stable: %q %q", la, lb)
	}
}
