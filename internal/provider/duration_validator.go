// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationValidator accepts a Go duration ("30s", "2m") within [min, max].
type durationValidator struct{ min, max time.Duration }

func (v durationValidator) Description(context.Context) string {
	return fmt.Sprintf("a duration such as \"30s\" or \"2m\", between %s and %s", v.min, v.max)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < v.min || d > v.max {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not %s.", req.ConfigValue.ValueString(), v.Description(context.Background())))
	}
}
