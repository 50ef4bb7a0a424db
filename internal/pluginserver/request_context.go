// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"context"
	"sync/atomic"
	"time"
)

// requestContext is the context one RPC hands to the framework. It behaves
// exactly like its parent until release, which the server wrapper calls as
// the RPC returns; from then on it no longer refers to the parent, so the
// parent's chain (terraform-plugin-go's per-request loggers, the gRPC
// stream) can be collected even though the framework keeps a reference to
// this context until the provider stops (see releasingServer).
//
// After release, Value finds nothing (a log call on a finished request's
// context is dropped), Done is still the parent's channel and Err and
// Deadline still agree with it.
type requestContext struct {
	parent      atomic.Pointer[context.Context]
	done        <-chan struct{}
	deadline    time.Time
	hasDeadline bool
	// releasedErr is the parent's Err at release, when it was already done.
	releasedErr error
}

var _ context.Context = (*requestContext)(nil)

func newRequestContext(parent context.Context) *requestContext {
	c := &requestContext{done: parent.Done()}
	c.deadline, c.hasDeadline = parent.Deadline()
	c.parent.Store(&parent)
	return c
}

// release drops the reference to the parent. Call it once, when the RPC
// has returned and nothing may use the context any more.
func (c *requestContext) release() {
	if p := c.parent.Load(); p != nil {
		c.releasedErr = (*p).Err()
		c.parent.Store(nil)
	}
}

func (c *requestContext) Deadline() (time.Time, bool) { return c.deadline, c.hasDeadline }

// Done is the parent's channel, also after release: the context package
// relies on it to link children to the parent's cancellation, and a
// context's Done must not change.
func (c *requestContext) Done() <-chan struct{} { return c.done }

func (c *requestContext) Err() error {
	if p := c.parent.Load(); p != nil {
		return (*p).Err()
	}
	if c.releasedErr != nil {
		return c.releasedErr
	}
	select {
	case <-c.done:
		if c.hasDeadline && !time.Now().Before(c.deadline) {
			return context.DeadlineExceeded
		}
		return context.Canceled
	default:
		return nil
	}
}

func (c *requestContext) Value(key any) any {
	if p := c.parent.Load(); p != nil {
		return (*p).Value(key)
	}
	return nil
}
