// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccLockTimeout_blockerNamedWhileWaiting (PostgreSQL): a superuser's
// open transaction that ran ALTER DATABASE ... CONNECTION LIMIT holds the
// pg_database row, so a username rotation's handover waits for it; no
// relation or object lock shows that blocker once the wait is over (the
// error used to say "No session visible to the admin holds a lock on it
// now"). The blocker is read while the statement waits
// (pg_blocking_pids), so the error names its pid and user (and says which
// right would show how long its transaction has been open), and the
// rotation is undone.
func TestAccLockTimeout_blockerNamedWhileWaiting(t *testing.T) {
	s := testAccServer(t, "postgres")
	w, db, a, b, pw, cfg := s.blockedRotation(t, "lkb", "3s")
	release := s.holdLock(t, "", fmt.Sprintf(`ALTER DATABASE %q CONNECTION LIMIT 50`, db))

	w.write(cfg(b))
	r := w.run("apply", "-auto-approve").mustFail(t, "rotation blocked by the pg_database row")
	var detail string
	for _, d := range r.Diagnostics {
		if d.Severity == "error" && strings.Contains(d.Detail, "lock_timeout") {
			detail = d.Detail
		}
	}
	// The minimal admin sees the blocker's user; its transaction's age
	// shows only to pg_read_all_stats, which the error names.
	for _, want := range []string{"blocked by", fmt.Sprintf("user %q", s.Super.Username), "pg_read_all_stats"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the lock-timeout error lacks %q:\n%s", want, detail)
		}
	}
	if s.loginExists(t, b) {
		t.Fatal("the new login was left behind after the undo")
	}
	if err := s.as(a, pw, db, "SELECT v FROM t"); err != nil {
		t.Fatalf("the old login does not work after the undo: %v", err)
	}
	release()
	w.run("apply", "-auto-approve").mustSucceed(t, "rotation once the transaction ended")
}
