// SPDX-License-Identifier: MPL-2.0

// Command benchfloor is the measuring stick of `make bench`
// (cmd/tenantdb-bench, internal/bench), never a product and never in the
// released binary: a terraform-plugin-framework provider "tenantdbfloor"
// with the graph shape of a tenantdb configuration that does nothing.
//
//	tenantdbfloor_server   name, ref (ref = name, known at plan time)
//	tenantdbfloor_database server, name      one per tenant
//	tenantdbfloor_owner    server, name      one per tenant
//	tenantdbfloor_grant    server, name      one per tenant
//
// Each tenant resource has two string attributes and no Read, Create,
// Update or Delete work: state is the plan. A run of N tenants of it is
// what Terraform core, the plugin protocol and the framework cost for this
// shape; the bench reports the real provider against it.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	// pluginserver, not the provider: the floor must not link the provider.
	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
)

// Address is the floor's registry address (dev_overrides only).
const Address = "registry.terraform.io/tenantdb/tenantdbfloor"

func main() {
	pluginserver.QuietSDKLogs() // as tenantdb's main: no SDK TRACE logging unless TF_LOG* asks
	if err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{Address: Address}); err != nil {
		log.Fatal(err)
	}
}

func newProvider() provider.Provider { return floorProvider{} }

type floorProvider struct{}

func (floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tenantdbfloor"
}

func (floorProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return serverResource{} },
		func() resource.Resource { return tenantResource{kind: "database"} },
		func() resource.Resource { return tenantResource{kind: "owner"} },
		func() resource.Resource { return tenantResource{kind: "grant"} },
	}
}

func (floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// tenantResource is one of the three per-tenant resources: two required
// strings, state = plan.
type tenantResource struct{ kind string }

var _ resource.Resource = tenantResource{}

func (r tenantResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind
}

func (tenantResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Does nothing (bench floor).",
		Attributes: map[string]schema.Attribute{
			"server": schema.StringAttribute{MarkdownDescription: "Passed through.", Required: true},
			"name":   schema.StringAttribute{MarkdownDescription: "Passed through.", Required: true},
		},
	}
}

func (tenantResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (tenantResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (tenantResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (tenantResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// serverResource stands in for tenantdb_db_server: a name and a computed
// ref that is known at plan time (ref = name), as tenantdb's ref is.
type serverResource struct{}

var (
	_ resource.Resource               = serverResource{}
	_ resource.ResourceWithModifyPlan = serverResource{}
)

func (serverResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_server"
}

func (serverResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Does nothing (bench floor).",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{MarkdownDescription: "Passed through.", Required: true},
			"ref":  schema.StringAttribute{MarkdownDescription: "The name, known at plan time.", Computed: true},
		},
	}
}

func (serverResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if !name.IsUnknown() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ref"), name)...)
	}
}

func (serverResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (serverResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (serverResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (serverResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
