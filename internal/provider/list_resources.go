// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// List resources (Terraform 1.14+, `terraform query`): find the tenant
// databases and owners on a server that a configuration could adopt, each
// result with its identity (what an import block needs) and, with
// include_resource, the resource as an import would read it. Listing runs
// only reads; an imported object is never dropped (database_created and
// user_created are false).

var (
	_ list.ListResourceWithConfigure = &tenantDatabaseList{}
	_ list.ListResourceWithConfigure = &tenantOwnerList{}
)

// NewTenantDatabaseList lists tenant databases.
func NewTenantDatabaseList() list.ListResource { return &tenantDatabaseList{} }

// NewTenantOwnerList lists tenant owner logins.
func NewTenantOwnerList() list.ListResource { return &tenantOwnerList{} }

type tenantDatabaseList struct{ data *providerData }
type tenantOwnerList struct{ data *providerData }

type listConfigModel struct {
	Server    types.String `tfsdk:"server"`
	NameRegex types.String `tfsdk:"name_regex"`
}

func listConfigSchema(what string) schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lists the " + what + " on one server that a configuration could adopt (system schemas " +
			"never), each with its identity for an `import` block. Reads only.",
		Attributes: map[string]schema.Attribute{
			"server": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The server's settings as a JSON object, e.g. " +
					"`jsonencode({ name = \"main\", engine = \"mysql\", host = \"db.internal\", username = \"tenantdb_admin\" })` " +
					"(fields left out take the `tenantdb_db_server` defaults), or the string a `tenantdb_db_server.<name>.ref` " +
					"holds. Its admin password and CA come from the " +
					"provider configuration, as for the resources.",
			},
			"name_regex": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only databases whose name matches this RE2 regular expression (e.g. `^acme_`).",
			},
		},
	}
}

func (l *tenantDatabaseList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_database"
}

func (l *tenantOwnerList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_owner"
}

func (l *tenantDatabaseList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("tenant databases")
}

func (l *tenantOwnerList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listConfigSchema("tenant owner logins (PostgreSQL: each database's owner role; MySQL/MariaDB: an " +
		"account holding every database-level privilege on a database)")
}

func (l *tenantDatabaseList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d, ok := req.ProviderData.(*providerData); ok {
		l.data = d
	}
}

func (l *tenantOwnerList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if d, ok := req.ProviderData.(*providerData); ok {
		l.data = d
	}
}

// listTarget reads a list block's config, connects, and lists the
// databases it selects.
func listTarget(ctx context.Context, data *providerData, req list.ListRequest) (serverRef, *dbclient.Server, []dbclient.DatabaseState, diag.Diagnostics) {
	var diags diag.Diagnostics
	var cfg listConfigModel
	diags.Append(req.Config.Get(ctx, &cfg)...)
	if diags.HasError() {
		return serverRef{}, nil, nil, diags
	}
	ref, err := parseRef([]byte(cfg.Server.ValueString()))
	if err == nil {
		err = ref.validate()
	}
	if err != nil {
		addError(&diags, "read the list's server", err)
		return ref, nil, nil, diags
	}
	var re *regexp.Regexp
	if !cfg.NameRegex.IsNull() {
		if re, err = regexp.Compile(cfg.NameRegex.ValueString()); err != nil {
			diags.AddError("Invalid name_regex", fmt.Sprintf("name_regex is not an RE2 regular expression: %v", err))
			return ref, nil, nil, diags
		}
	}
	if data == nil {
		diags.AddError("The provider is not configured", "List resources need the provider's configuration.")
		return ref, nil, nil, diags
	}
	srv, err := data.connect(ctx, ref)
	var dbs []dbclient.DatabaseState
	if err == nil {
		dbs, err = srv.ListDatabases(ctx)
	}
	if err != nil {
		addError(&diags, fmt.Sprintf("list the databases of server %q", ref.Name), err)
		return ref, nil, nil, diags
	}
	selected := dbs[:0]
	for _, d := range dbs {
		if re == nil || re.MatchString(d.Name) {
			selected = append(selected, d)
		}
	}
	return ref, srv, selected, diags
}

func (l *tenantDatabaseList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ref, _, dbs, diags := listTarget(ctx, l.data, req)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, d := range dbs {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			r := req.NewListResult(ctx)
			r.DisplayName = d.Name
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("server"), types.StringValue(ref.encode()))...)
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("name"), types.StringValue(d.Name))...)
			if req.IncludeResource {
				m := tenantDatabaseModel{
					ID: types.StringValue(ref.Name + "/" + d.Name), Server: types.StringValue(ref.encode()),
					Name: types.StringValue(d.Name), CharacterSet: types.StringValue(d.Charset),
					Collation: types.StringValue(d.Collation), DeletionPolicy: types.StringValue("retain"),
					DatabaseCreated: types.BoolValue(false),
				}
				r.Diagnostics.Append(r.Resource.Set(ctx, &m)...)
			}
			if !push(r) {
				return
			}
		}
	}
}

func (l *tenantOwnerList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ref, srv, dbs, diags := listTarget(ctx, l.data, req)
	var owners []dbclient.OwnerCandidate
	if !diags.HasError() {
		var err error
		if owners, err = srv.ListOwners(ctx, dbs); err != nil {
			addError(&diags, fmt.Sprintf("list the owners on server %q", ref.Name), err)
		}
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	stream.Results = func(push func(list.ListResult) bool) {
		for i, o := range owners {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			r := req.NewListResult(ctx)
			host := listedHost(o.Host)
			r.DisplayName = o.Username + " (owner of " + o.Database + ")"
			if !host.IsNull() {
				r.DisplayName = "'" + o.Username + "'@'" + o.Host + "' (owner of " + o.Database + ")"
			}
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("server"), types.StringValue(ref.encode()))...)
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("database"), types.StringValue(o.Database))...)
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("username"), types.StringValue(o.Username))...)
			r.Diagnostics.Append(r.Identity.SetAttribute(ctx, path.Root("host"), host)...)
			if req.IncludeResource {
				m := tenantOwnerModel{
					ID: types.StringValue(loginID(ref, o.Database, o.Username, host)), Server: types.StringValue(ref.encode()),
					Database: types.StringValue(o.Database), Username: types.StringValue(o.Username), Host: host,
					PasswordWO: types.StringNull(), PasswordWOVersion: types.Int64Null(),
					RetainPrevious: types.BoolValue(false), PreviousRetained: types.BoolValue(false),
					Privileges:  types.SetValueMust(types.StringType, []attr.Value{types.StringValue(string(ddl.AllPrivileges))}),
					UserCreated: types.BoolValue(false), PreviousUsername: types.StringNull(),
				}
				r.Diagnostics.Append(r.Resource.Set(ctx, &m)...)
			}
			if !push(r) {
				return
			}
		}
	}
}

// listedHost is the host attribute of a listed account: null for "%" and
// on PostgreSQL (as a configuration without host), the host otherwise.
func listedHost(h string) types.String {
	if h == "" || h == ddl.AnyHost {
		return types.StringNull()
	}
	return types.StringValue(h)
}
