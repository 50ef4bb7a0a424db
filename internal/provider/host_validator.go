// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// hostValidator applies ddl.ValidateHost at plan time: a host name, an IPv4
// address or a bare IPv6 address (::1), without port, brackets or spaces.
// serverRef.validate applies the same rule to a ref, and dbclient again
// before dialling.
type hostValidator struct{}

var _ validator.String = hostValidator{}

func (hostValidator) Description(context.Context) string {
	return "must be a host name, an IPv4 address or a bare IPv6 address such as ::1, without port (InvalidIdentifier)"
}

func (v hostValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (hostValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := ddl.ValidateHost(req.ConfigValue.ValueString()); err != nil {
		addAttributeError(&resp.Diagnostics, req.Path, err)
	}
}
