// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The `host` of a tenant owner or grant (issue 46): the host part of a
// MySQL/MariaDB account, 'user'@'host'. Null and "%" mean the same
// account, so state written before the attribute existed (null) plans no
// change, whatever the configuration says of "%". PostgreSQL roles have
// no host: a configured one is refused at plan time.

// hostAttribute is the schema of `host`; what is the description's
// resource-specific part.
func hostAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "MySQL/MariaDB only: the host part of the account, `'username'@'host'`; default `%` (any " +
			"host). " + what + " Accepted as the server reads it: `localhost`, an IP address (`10.0.0.5`), an IPv4 " +
			"pattern with `%`/`_` wildcards (`10.20.%`), an IPv4 netmask (`10.20.0.0/255.255.0.0`), a CIDR block " +
			"(`10.20.0.0/16`: MySQL 8.0.23+ only, refused on MariaDB and older MySQL with the server's version named), or a " +
			"host name pattern (`app%.internal`); compared without regard to case, and a host name ending in a dot is " +
			"refused (it would match no client). `'u'@'10.%'` is another account than `'u'@'%'`: nothing done for one " +
			"touches the other. Refused on PostgreSQL (`InvalidIdentifier`): roles have no host.",
		Validators:    []validator.String{identifierValidator{kind: "host"}},
		PlanModifiers: []planmodifier.String{hostPlan{}},
	}
}

// accountHost is the login's host from a model value (null: "%"); ok is
// false when the value is unknown.
func accountHost(v types.String) (h ddl.AccountHost, ok bool, err error) {
	if v.IsUnknown() {
		return h, false, nil
	}
	s := ddl.AnyHost
	if !v.IsNull() {
		s = v.ValueString()
	}
	h, err = ddl.NewAccountHost(s)
	return h, err == nil, err
}

// withHost scopes user to the model's host, refusing a host on PostgreSQL.
func withHost(e ddl.Engine, user ddl.Username, host types.String, diags *diag.Diagnostics) ddl.Username {
	if e == ddl.EnginePostgres {
		if !host.IsNull() && !host.IsUnknown() {
			addAttributeError(diags, path.Root("host"), ddl.ErrHostOnPostgres(host.ValueString()))
		}
		return user
	}
	h, ok, err := accountHost(host)
	if err != nil {
		addAttributeError(diags, path.Root("host"), err)
	}
	if !ok {
		return user
	}
	return user.WithHost(h)
}

// sameHost reports whether two host values name the same account host.
func sameHost(a, b types.String) bool {
	ha, okA, _ := accountHost(a)
	hb, okB, _ := accountHost(b)
	return okA && okB && ha == hb
}

// hostPlan plans, when the configuration leaves host out, "%" as state
// has it (null, or "%"; null on a create), so the computed value never
// shows as a change by itself: state written before the attribute existed
// has null, and plans no change. A state at another host plans "%" (the
// configuration went back to the default: a host change). A configured
// host is planned as written (the protocol requires it): "%" over a null
// state is an update that runs nothing, and the apply compares hosts as
// the server does (ddl).
type hostPlan struct{}

func (hostPlan) Description(context.Context) string {
	return "the state's host when the configuration leaves it out"
}

func (m hostPlan) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (hostPlan) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	switch h, ok, _ := accountHost(req.StateValue); {
	case req.StateValue.IsNull() || req.StateValue.IsUnknown():
		resp.PlanValue = types.StringNull()
	case ok && h.String() == ddl.AnyHost:
		resp.PlanValue = req.StateValue
	default:
		resp.PlanValue = types.StringValue(ddl.AnyHost)
	}
}

// warnHostNeverMatches: an account was made or granted at a host name
// pattern on a server that skips name resolution, so no client can log in
// as it there. What was declared is done all the same (a DBA may turn
// resolution on); the warning says so and what to write instead.
func warnHostNeverMatches(diags *diag.Diagnostics, info ddl.ServerInfo, user ddl.Username, object string) {
	if ddl.HostNeverMatches(info, user.AccountHost()) {
		addHostNeverMatchesWarning(diags, object, user)
	}
}
