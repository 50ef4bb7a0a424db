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
			addFlagResetWarning(diags, fmt.Sprintf("Database %q on server %q", r.Database, server), r.Flag)
		}
		for _, r := range notes.Removed() {
			addOffboardRemovedWarning(diags, fmt.Sprintf("Server %q", server), r)
		}
		for _, s := range notes.Skipped() {
			addOffboardSkippedWarning(diags, fmt.Sprintf("Server %q", server), s)
		}
	}
}
