// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// revokeImportedOwner is the destroy of an imported owner (user_created =
// false) on MySQL/MariaDB: the login stays, what the resource managed on
// the tenant database is revoked (dbclient.RevokeImportedOwner), and a
// warning says what is left. A failure is an error: the owner stays in
// state, so nothing it may still hold is forgotten.
func revokeImportedOwner(ctx context.Context, srv *dbclient.Server, t ownerTarget, recorded dbclient.Identity, diags *diag.Diagnostics) {
	out, err := srv.RevokeImportedOwner(ctx, t.db, t.user, recorded)
	if err != nil {
		addError(diags, fmt.Sprintf("revoke what tenantdb granted imported owner login %q on database %q (it stays in state)", t.user, t.db), err)
		return
	}
	switch out.Outcome {
	case dbclient.RevokedOnly:
		revoked := "tenantdb had granted it nothing there to revoke"
		if len(out.Own.Revoked) > 0 {
			revoked = "what tenantdb granted it there since the import (" + privilegeNames(out.Own.Revoked) + ") was revoked"
		}
		addImportedLoginKeptWarning(diags, t.user, fmt.Sprintf("It was imported (user_created = false), so it is never "+
			"dropped, and on database %q %s. The login itself remains on server %q, with whatever it holds elsewhere. "+
			"If nothing else needs it, drop it:\n\n  %s", t.db, revoked, t.ref.Name, ddl.DropUserStatement(t.user)))
		addNeverGrantedKeptWarning(diags, fmt.Sprintf("Imported owner login %q on server %q", t.user, t.ref.Name),
			out.Own, srv.Info(), t.db, t.user)
	case dbclient.NotOurs:
		addLoginNotDroppedWarning(diags, t.user,
			dbclient.MismatchWhy(out.Check.Verdict)+" Nothing was revoked or dropped; the resource is removed from state.")
	}
}
