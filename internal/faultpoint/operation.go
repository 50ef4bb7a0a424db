// SPDX-License-Identifier: MPL-2.0

package faultpoint

import "context"

// The timeout points of the kill-point suite (dbclient/session/killpoint_on.go)
// end an operation's context right as a chosen statement runs, as
// operation_timeout would. The provider records, in each operation's
// context, the function that ends it; only a provider built with -tags
// killpoints does (provider/timeoutpoint_on.go), so in the one users run
// OperationCancel finds nothing.

type operationCancelKey struct{}

// WithOperationCancel records cancel as the function that ends the
// operation ctx belongs to.
func WithOperationCancel(ctx context.Context, cancel context.CancelFunc) context.Context {
	return context.WithValue(ctx, operationCancelKey{}, cancel)
}

// OperationCancel is the function that ends the operation ctx belongs to,
// if it was recorded.
func OperationCancel(ctx context.Context) (context.CancelFunc, bool) {
	cancel, ok := ctx.Value(operationCancelKey{}).(context.CancelFunc)
	return cancel, ok
}
