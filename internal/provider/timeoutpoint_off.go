// SPDX-License-Identifier: MPL-2.0

//go:build !killpoints

package provider

import "context"

// withTimeoutPoint is the kill-point suite's hook (timeoutpoint_on.go,
// built only with -tags killpoints); in the provider users run it does
// nothing.
func withTimeoutPoint(ctx context.Context, _ context.CancelFunc) context.Context { return ctx }
