// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

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
	addImmutableRefusal(&resp.Diagnostics, req.Path, m.what, req.StateValue, req.PlanValue)
}
