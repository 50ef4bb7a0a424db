// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// serverRef is the non-secret settings of a tenantdb_db_server: its `ref`
// attribute, and the `server` attribute of every tenant resource, kept in
// their state so destroy and import reach the server with nothing else.
type serverRef struct {
	Name              string
	Engine            string
	Host              string
	Port              int64
	Username          string
	TLS               string
	CACert            string
	ReservedUsernames []string
}

// serverRefModel is the Terraform shape of serverRef.
type serverRefModel struct {
	Name              types.String `tfsdk:"name"`
	Engine            types.String `tfsdk:"engine"`
	Host              types.String `tfsdk:"host"`
	Port              types.Int64  `tfsdk:"port"`
	Username          types.String `tfsdk:"username"`
	TLS               types.String `tfsdk:"tls"`
	CACert            types.String `tfsdk:"ca_cert"`
	ReservedUsernames types.Set    `tfsdk:"reserved_usernames"`
}

var serverRefAttrTypes = map[string]attr.Type{
	"name":               types.StringType,
	"engine":             types.StringType,
	"host":               types.StringType,
	"port":               types.Int64Type,
	"username":           types.StringType,
	"tls":                types.StringType,
	"ca_cert":            types.StringType,
	"reserved_usernames": types.SetType{ElemType: types.StringType},
}

func defaultPort(engine string) int64 {
	if engine == string(ddl.EnginePostgres) {
		return 5432
	}
	return 3306
}

// hostDescription documents the one accepted form of a host.
const hostDescription = "Host name or IP address, without port: a DNS name (`db.internal`), an IPv4 address " +
	"(`10.0.0.5`) or an IPv6 address written bare (`::1`, not `[::1]`), for both engines. A port, brackets, " +
	"spaces or anything else is refused at plan time (`InvalidIdentifier`)."

// portValidator: 1-65535 when written; an omitted port is the engine's
// default, a written 0 is an error (never read as the default).
func portValidator() validator.Int64 { return int64validator.Between(1, 65535) }

// serverAttribute is the `server` argument of tenant resources.
func serverAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "The server to provision on: pass `tenantdb_db_server.<name>.ref`. Kept in state so " +
			"that destroy and import can reach the server. Changing its `name` or `engine` is refused " +
			"(`ImmutableAttribute`); other changes (host, port, TLS) update state in place and run no SQL.",
		Required: true,
		Attributes: map[string]schema.Attribute{
			"name":   schema.StringAttribute{Required: true, MarkdownDescription: "Server name; keys the admin password."},
			"engine": schema.StringAttribute{Required: true, MarkdownDescription: "`mysql` or `postgres`."},
			"host": schema.StringAttribute{
				Required: true, MarkdownDescription: hostDescription,
				Validators: []validator.String{hostValidator{}},
			},
			"port": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "TCP port, 1-65535; omit it for the default 3306 (mysql) or 5432 (postgres).",
				Validators: []validator.Int64{portValidator()},
			},
			"username": schema.StringAttribute{Required: true, MarkdownDescription: "The admin login."},
			"tls":      schema.StringAttribute{Optional: true, MarkdownDescription: "`disable`, `require` (default), `verify-ca` or `verify-full`."},
			"ca_cert":  schema.StringAttribute{Optional: true, MarkdownDescription: "PEM of the CA that signs the server certificate."},
			"reserved_usernames": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Group-level principals no tenant may own or be granted to.",
			},
		},
	}
}

// refFromModel reads a ref; ok is false when any part is unknown.
func refFromModel(ctx context.Context, m serverRefModel) (serverRef, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.Name.IsUnknown() || m.Engine.IsUnknown() || m.Host.IsUnknown() || m.Port.IsUnknown() ||
		m.Username.IsUnknown() || m.TLS.IsUnknown() || m.CACert.IsUnknown() || m.ReservedUsernames.IsUnknown() {
		return serverRef{}, false, diags
	}
	r := serverRef{
		Name: m.Name.ValueString(), Engine: m.Engine.ValueString(), Host: m.Host.ValueString(),
		Port: m.Port.ValueInt64(), Username: m.Username.ValueString(), TLS: m.TLS.ValueString(),
		CACert: m.CACert.ValueString(),
	}
	// Only an omitted port means the default: a written 0 stays 0 and
	// validate refuses it (it used to plan as 0 and connect to 3306).
	if m.Port.IsNull() {
		r.Port = defaultPort(r.Engine)
	}
	if r.TLS == "" {
		r.TLS = string(dbclient.TLSRequire)
	}
	if !m.ReservedUsernames.IsNull() {
		diags.Append(m.ReservedUsernames.ElementsAs(ctx, &r.ReservedUsernames, false)...)
	}
	return r, true, diags
}

// model renders the ref as its object value.
func (r serverRef) object() (types.Object, diag.Diagnostics) {
	reserved := types.SetNull(types.StringType)
	if r.ReservedUsernames != nil {
		elems := make([]attr.Value, len(r.ReservedUsernames))
		for i, u := range r.ReservedUsernames {
			elems[i] = types.StringValue(u)
		}
		reserved = types.SetValueMust(types.StringType, elems)
	}
	ca := types.StringNull()
	if r.CACert != "" {
		ca = types.StringValue(r.CACert)
	}
	return types.ObjectValue(serverRefAttrTypes, map[string]attr.Value{
		"name": types.StringValue(r.Name), "engine": types.StringValue(r.Engine),
		"host": types.StringValue(r.Host), "port": types.Int64Value(r.Port),
		"username": types.StringValue(r.Username), "tls": types.StringValue(r.TLS),
		"ca_cert": ca, "reserved_usernames": reserved,
	})
}

// validate checks a ref's values with the engine's rules. Tenant resources
// call it from ModifyPlan (plan time) and before any connection.
func (r serverRef) validate() error {
	if _, err := ddl.NewServerName(r.Name); err != nil {
		return err
	}
	if _, err := ddl.ParseEngine(r.Engine); err != nil {
		return err
	}
	if err := ddl.ValidateHost(r.Host); err != nil {
		return err
	}
	switch dbclient.TLSMode(r.TLS) {
	case dbclient.TLSDisable, dbclient.TLSRequire, dbclient.TLSVerifyCA, dbclient.TLSVerifyFull:
	default:
		return fmt.Errorf("tls must be one of disable, require, verify-ca, verify-full; got %q", r.TLS)
	}
	return ddl.ValidatePort(r.Port)
}

func (r serverRef) engine() ddl.Engine { return ddl.Engine(r.Engine) }

// reserved is the set of principals no tenant may own or be granted to.
func (r serverRef) reserved() ddl.ReservedNames {
	return ddl.NewReservedNames(r.Name, r.Username, r.ReservedUsernames)
}

func (r serverRef) spec() (dbclient.Spec, error) {
	if err := r.validate(); err != nil {
		return dbclient.Spec{}, err
	}
	return dbclient.Spec{
		Name: r.Name, Engine: r.engine(), Host: r.Host, Port: int(r.Port),
		Username: r.Username, TLS: dbclient.TLSMode(r.TLS), CAPEM: r.CACert,
	}, nil
}

// objectToRefModel converts an object value (state, plan, config) to the model.
func objectToRefModel(ctx context.Context, o basetypes.ObjectValue) (serverRefModel, diag.Diagnostics) {
	var m serverRefModel
	diags := o.As(ctx, &m, basetypes.ObjectAsOptions{})
	return m, diags
}
