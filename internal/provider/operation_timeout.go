// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// Every create, read, update and delete of a resource runs under a
// deadline (provider argument operation_timeout), whatever it waits on:
// locks (each statement also has lock_timeout), retries of an unavailable
// primary, a server that accepts connections and never answers. When it
// passes, the statement in flight is cancelled (except a DROP DATABASE,
// which is let finish: dbclient/session/uncancellable.go), what the operation had
// done is undone (the undo runs without the deadline), and the error says
// which limit was reached.

// defaultOperationTimeout is longer than any legitimate operation: a
// rotation waiting lock_timeout (30 s) on a statement, or retries that
// ride out a failover (about a minute).
const defaultOperationTimeout = 5 * time.Minute

// operationContext bounds one operation by the provider's
// operation_timeout (data may be nil before Configure).
func operationContext(ctx context.Context, data *providerData) (context.Context, context.CancelFunc) {
	limit := defaultOperationTimeout
	if data != nil && data.operationTimeout > 0 {
		limit = data.operationTimeout
	}
	ctx, cancel := context.WithTimeout(dbclient.WithOverruns(ctx), limit)
	return withTimeoutPoint(ctx, cancel), cancel
}

// explainTimeout adds, after an operation that failed because its deadline
// passed, which limit it was and what to do.
// A DROP DATABASE that was running at the deadline was let finish
// (dbclient/session/uncancellable.go): a warning says so and how long it ran,
// whether the operation then failed or not.
func explainTimeout(ctx context.Context, data *providerData, diags *diag.Diagnostics) {
	limit := defaultOperationTimeout
	if data != nil && data.operationTimeout > 0 {
		limit = data.operationTimeout
	}
	overran := dbclient.Overruns(ctx)
	for _, o := range overran {
		addRanPastTimeoutWarning(diags, o, limit)
	}
	if !diags.HasError() || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return
	}
	stopped := "the statement in flight was stopped on the server"
	if len(overran) > 0 {
		stopped = "a DROP DATABASE in flight was let finish (see the warning: stopping it part way would leave the " +
			"database half dropped)"
	}
	diags.AddError("Operation timed out",
		fmt.Sprintf("The operation did not finish within the provider's operation_timeout (%s); %s and what the "+
			"operation had done was undone, as far as the error above says (it says when the server did not confirm "+
			"the stop, or an undo step failed). Find what it waited on (a lock, an unreachable server), or raise "+
			"operation_timeout in the provider block, then apply again.", limit, stopped))
}
