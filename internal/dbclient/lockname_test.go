// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"strings"
	"testing"
)

// TestLockName: lock names stay within MySQL 8's 64 characters (error 3057
// beyond), short names are unchanged, long ones stay distinct and stable.
func TestLockName(t *testing.T) {
	t.Parallel()
	short := "tenantdb:acme_wms"
	if got := lockName(short); got != short {
		t.Fatalf("lockName(%q) = %q, want it unchanged", short, got)
	}
	a, b := "tenantdb:"+strings.Repeat("a", 64), "tenantdb:"+strings.Repeat("a", 63)+"b"
	la, lb := lockName(a), lockName(b)
	if len(la) > maxLockName || len(lb) > maxLockName {
		t.Fatalf("long lock names are %d and %d characters, want at most %d", len(la), len(lb), maxLockName)
	}
	if la == lb || la != lockName(a) {
		t.Fatalf("long lock names must be distinct and stable: %q %q", la, lb)
	}
}
