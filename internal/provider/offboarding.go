// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// offboarding marks ctx as an owner's or a grant's destroy, which may reset
// what a tenant set on its database to keep the admin out (PostgreSQL's
// CONNECTION LIMIT; DESIGN.md: nothing the tenant sets stops an
// offboarding). The returned func adds one warning per reset: call it when
// the destroy is done, whatever its outcome (a reset that ran stays).
func offboarding(ctx context.Context, server string, diags *diag.Diagnostics) (context.Context, func()) {
	ctx, notes := dbclient.Offboarding(ctx)
	return ctx, func() {
		for _, r := range notes.ConnectionLimitResets() {
			addConnectionLimitResetWarning(diags, fmt.Sprintf("Database %q on server %q", r.Database, server), r.Limit)
		}
		for _, r := range notes.FlagResets() {
			diags.AddWarning(summaryFlagReset, fmt.Sprintf("Database %q on server %q: the tenant's setting kept tenantdb from "+
				"its work, so it was reset (%s) for this destroy. Set it again by hand if the database should keep it.",
				r.Database, server, r.Flag))
		}
		for _, r := range notes.Removed() {
			diags.AddWarning(summaryOffboardRemoved, fmt.Sprintf("Server %q: %s. Nothing a tenant makes or is given "+
				"outside its database stops its offboarding.", server, r))
		}
		for _, s := range notes.Skipped() {
			diags.AddWarning(summaryOffboardSkipped, fmt.Sprintf("Server %q: %s.", server, s))
		}
	}
}
