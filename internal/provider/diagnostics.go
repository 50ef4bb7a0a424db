// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// addError reports err: a refusal keeps its reason word first in the
// summary; any other error is reported under what was being done. Errors
// from ddl and dbclient never carry secrets.
func addError(diags *diag.Diagnostics, doing string, err error) {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		diags.AddError(refusal.Summary(), refusal.Detail()+"\n\n(while trying to "+doing+")")
		return
	}
	diags.AddError(fmt.Sprintf("Could not %s", doing), err.Error())
}

func addAttributeError(diags *diag.Diagnostics, p path.Path, err error) {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		diags.AddAttributeError(p, refusal.Summary(), refusal.Detail())
		return
	}
	diags.AddAttributeError(p, "Invalid value", err.Error())
}

// warningPhrases are the fixed summaries of the pinned warnings. Terraform
// folds warnings with one summary into a single block ("and 499 more
// similar warnings"), so the object goes in the detail, never the summary:
// destroying 500 retained tenants prints one warning, not 500.
var warningPhrases = map[ddl.Reason]string{
	ddl.DatabaseRetained:    "the database stays on the server",
	ddl.DatabaseDropSkipped: "the database was not dropped",
	ddl.DriftDetected:       "the server no longer matches state",
}

// addWarning adds a pinned warning: "<Reason>: <fixed phrase>", with the
// object named first in the detail.
func addWarning(diags *diag.Diagnostics, reason ddl.Reason, object, detail string) {
	diags.AddWarning(fmt.Sprintf("%s: %s", reason, warningPhrases[reason]), fmt.Sprintf("%s: %s", object, detail))
}

// immutable refuses a planned change of an attribute that identifies what a
// resource manages. RequiresReplace would be worse: a replace under
// deletion_policy = "delete" drops data, and a rename is a migration.
type immutable struct{ what string }

func immutableString(what string) planmodifier.String { return immutable{what} }

func (m immutable) Description(context.Context) string {
	return fmt.Sprintf("Changing %s is refused (ImmutableAttribute).", m.what)
}

func (m immutable) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m immutable) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || req.StateValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	if req.PlanValue.Equal(req.StateValue) {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path,
		fmt.Sprintf("%s: %s", ddl.ImmutableAttribute, m.what),
		fmt.Sprintf("The plan changes %s from %s to %s. Renaming or moving a tenant is a migration, not an edit: "+
			"tenantdb neither renames nor replaces it (a replace could drop data). Put the old value back; to migrate, "+
			"create the new object alongside, move the data, then remove the old resource.",
			m.what, req.StateValue, req.PlanValue))
}

// addOldLoginPendingWarning: a rotated-out login could not be dropped yet.
// The summary is fixed (Terraform folds repeats); the detail names it.
func addOldLoginPendingWarning(diags *diag.Diagnostics, old ddl.Username, t ownerTarget, err error) {
	diags.AddWarning("Old owner login not dropped yet",
		fmt.Sprintf("Old login %q of the owner of database %q on server %q: dropping it failed, so it stays recorded in "+
			"previous_username and the next apply (or destroy) retries the drop. Until then it keeps its password; on "+
			"MySQL/MariaDB it keeps its privileges on the database, on PostgreSQL the database and everything it owned "+
			"there already belong to login %q, so it can no longer reach the tenant's data.\n\n%v", old, t.db, t.ref.Name, t.user, err))
}
