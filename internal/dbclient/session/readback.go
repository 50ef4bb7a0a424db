// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"time"
)

// ReadBackContext is for the reads that record what an operation's
// statements did once they committed: the operation's deadline may pass
// before or during them (a cancel that reaches the server after COMMIT
// finds nothing to stop), and an error then would leave a finished object
// that state does not record and no apply may adopt. So the read keeps
// the operation's deadline, or cancelWait from now when that is later,
// and is not ended by the operation's cancel.
func ReadBackContext(ctx context.Context) (context.Context, context.CancelFunc) {
	until := time.Now().Add(cancelWait)
	if d, ok := ctx.Deadline(); ok && d.After(until) {
		until = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), until)
}
