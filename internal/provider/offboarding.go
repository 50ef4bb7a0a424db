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
			diags.AddWarning(summaryConnectionLimitReset, fmt.Sprintf("Database %q on server %q: its CONNECTION LIMIT was %d, "+
				"which its sessions had reached, so the admin could not connect to offboard the tenant. tenantdb set it to -1 "+
				"(no limit). If the database should keep a limit, set it again (ALTER DATABASE ... CONNECTION LIMIT).",
				r.Database, server, r.Limit))
		}
	}
}
