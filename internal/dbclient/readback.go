// SPDX-License-Identifier: MPL-2.0

package dbclient

import "context"

// readBackContext is for the reads that record what an operation's
// statements did once they committed: the operation's deadline may have
// passed in between (a cancel that reached the server after COMMIT finds
// nothing to stop), and an error then would leave a finished object that
// state does not record and no apply may adopt. So the read outlives the
// deadline, bounded by cancelWait like the cancel itself. Before the
// deadline, ctx is used as it is.
func readBackContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
}
