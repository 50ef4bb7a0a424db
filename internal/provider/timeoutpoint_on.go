// SPDX-License-Identifier: MPL-2.0

//go:build killpoints

package provider

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
)

// withTimeoutPoint records the operation's cancel for the kill-point
// suite's timeout points (dbclient/session/killpoint_on.go): only a provider built
// with -tags killpoints has this file.
func withTimeoutPoint(ctx context.Context, cancel context.CancelFunc) context.Context {
	return faultpoint.WithOperationCancel(ctx, cancel)
}
