// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The kill-point suite's timeout dimension (issue 34): for every
// operation of the kill-point suite, the operation's context ends right as
// its k-th statement runs (a provider built with -tags killpoints, see
// dbclient/session/timeoutpoint_on.go: BEGIN, COMMIT, savepoints and undo steps
// count), as operation_timeout would, so the server gets the KILL QUERY
// (MySQL/MariaDB) or cancel request (PostgreSQL) of that statement, or,
// when it already finished, the next step finds the context ended. The
// apply ends on its own (it saves state), then the next apply runs with
// the same configuration ("forward") and, where the previous one declares
// the resource, with that one ("back"), and everything the kill-point
// suite checks is checked: convergence in at most two applies or a pinned
// refusal whose recovery is run as written, the server's state, the
// owner's table, the grantee's reads, an empty plan, a clean destroy.
//
// `make test` runs the first and the last statement of each operation;
// TENANTDB_KILLPOINTS=all (`make test-faults`) every one.
func TestAccFaults_timeoutPoints(t *testing.T) {
	runInterruptPoints(t, "timeout", func(s accServer) func(*testing.T, *cliWorkspace, int) ([]string, bool) {
		return s.applyTimedOutAt
	})
}

// holdDropPastTimeout (issue 48) makes a timeout point at DROP DATABASE db
// land while the drop is still running, on every run however fast the
// server (through Docker the drop was slower than locally, and only there
// did the cancel cut it in half): as the superuser it holds a lock the drop
// waits for before it removes anything, and releases it once the admin's
// DROP DATABASE has been seen waiting for a while (the operation's context
// ended as it was sent), so the drop, never cancelled, finishes after the
// operation's deadline. PostgreSQL: an open transaction that commented on
// the database (a lock on the database object, its pg_database row left
// alone for the revokes before the drop); MySQL/MariaDB: LOCK TABLES on
// the owner's table t. The lock is released at the latest when the
// returned func is called (after the apply ended), which reports whether
// the drop was seen waiting. The caller checks that the drop finished (the
// database is gone); on the code before issue 48 the cancel stopped it at
// once and the database stayed.
func (s accServer) holdDropPastTimeout(t *testing.T, db string) (released func() (waited bool)) {
	t.Helper()
	super := s.super(t, "")
	release := s.holdDropBlocker(t, db, "t")
	stop, done := make(chan struct{}), make(chan struct{})
	waited := false
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if s.dropWaiting(super) {
				waited = true
				select {
				case <-stop:
				case <-time.After(3 * time.Second):
				}
				release()
				return
			}
		}
	}()
	return func() bool {
		close(stop)
		<-done
		release()
		if waited {
			t.Logf("the DROP DATABASE of %s waited for the held lock past the timeout point (released 3 s after it was seen)", db)
		}
		return waited
	}
}

// applyTimedOutAt runs terraform apply with the kill-point provider, whose
// operation ends as its k-th statement runs (k = 0: only counts), and
// waits for it to end on its own. It returns every statement sent and
// whether the k-th was reached.
func (s accServer) applyTimedOutAt(t *testing.T, w *cliWorkspace, k int) ([]string, bool) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sent")
	_, out, done := w.startApplyInGroup(t, "TENANTDB_TIMEOUTPOINT_FILE="+file, fmt.Sprintf("TENANTDB_TIMEOUTPOINT_AT=%d", k))
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the apply with a timeout at statement %d did not end within 3 minutes:\n%s", k, out.String())
	}
	if k == 0 && err != nil {
		t.Fatalf("the counting apply failed: %v\n%s", err, out.String())
	}
	raw, _ := os.ReadFile(file)
	var stmts []string
	reached := false
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		switch {
		case line == "timeout":
			reached = true
		case line == "no operation to end":
			t.Errorf("statement %d ran outside an operation's context: the timeout point could not end it", k)
		case line != "":
			_, text, _ := strings.Cut(line, " ")
			stmts = append(stmts, text)
		}
	}
	if k > 0 && err != nil {
		t.Logf("the apply with a timeout at statement %d (%s) failed, as it may:\n%s", k, statementAt(stmts, k), lastLines(out.String(), 12))
	}
	if k > 0 && reached {
		tallyKill(fmt.Sprintf("timeout/%s/stopped/%s", s.Engine, timeoutLanded(err, out.String())))
	}
	return stmts, reached
}

// statementAt is the k-th statement (1-based) of stmts, or "none".
func statementAt(stmts []string, k int) string {
	if k < 1 || k > len(stmts) {
		return "none"
	}
	return stmts[k-1]
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// timeoutLanded says where a timeout point's cancel landed, from the
// apply's output: the server stopped the statement ("on the server":
// MySQL/MariaDB KILL QUERY, PostgreSQL's cancel request), the statement
// had finished and a later step found the context ended ("after the
// statement"), or the apply succeeded (the statement was the operation's
// last and what followed read its outcome back).
func timeoutLanded(err error, out string) string {
	switch {
	case err == nil:
		return "apply_succeeded"
	case strings.Contains(out, "KILL QUERY") || strings.Contains(out, "canceling statement due to user request"):
		return "on_the_server"
	}
	return "after_the_statement"
}
