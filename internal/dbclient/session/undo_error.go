// SPDX-License-Identifier: MPL-2.0

package session

import (
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// UndoError is an operation that failed and whose undo stopped at a step
// that failed too: the server is left between the two, and nothing after
// that step ran. Statements are quoted redacted.
type UndoError struct {
	server     string
	cause      error // why the operation failed
	plan       ddl.Plan
	failed     int // the statement that failed
	undoFailed int // the undo step that failed
	undoErr    error
}

func (e *UndoError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the operation failed and its undo stopped at a step that failed too, so the server is left "+
		"part way; nothing destructive ran after that step.\n\nDone: %s\nFailed: %s\nUndone: %s\nUndo step that failed: %s\n"+
		"Not undone (not run, on purpose): %s\n\nFind why the undo step failed (below; a lock held by another session is "+
		"the usual cause), then apply again: the next apply starts from what is on the server. Why the operation failed: %v\n"+
		"Why the undo stopped: %v",
		e.server, list(e.plan.Statements[:e.failed]), e.plan.Statements[e.failed].String(), list(e.plan.Undo[:e.undoFailed]),
		e.plan.Undo[e.undoFailed].String(), list(e.plan.Undo[e.undoFailed+1:]), e.cause, e.undoErr)
	return b.String()
}

// Unwrap is the operation's own error: its class, code and any refusal
// are the operation's, not the undo's.
func (e *UndoError) Unwrap() error { return e.cause }

func list(sts []ddl.Statement) string {
	if len(sts) == 0 {
		return "nothing"
	}
	out := make([]string, len(sts))
	for i, st := range sts {
		out[i] = st.String()
	}
	return strings.Join(out, "; ")
}
