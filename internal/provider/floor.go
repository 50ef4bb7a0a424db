// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewFloor is a measuring stick, not a product: a provider
// ("tenantdbfloor") whose one resource has tenantdb_tenant_database's exact
// schema and does nothing. A plan of N of them is what terraform-plugin-
// framework and Terraform cost for this schema; the scale measurement
// (make bench-plan) reports the real provider against it.
func NewFloor() provider.Provider { return floorProvider{} }

type floorProvider struct{}

func (floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tenantdbfloor"
}

func (floorProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return floorResource{} }}
}

func (floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type floorResource struct{}

func (floorResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_database"
}

func (floorResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	(&tenantDatabaseResource{}).Schema(ctx, req, resp)
}

func (floorResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m tenantDatabaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID, m.DatabaseCreated = types.StringValue(m.Name.ValueString()), types.BoolValue(true)
	if m.CharacterSet.IsUnknown() {
		m.CharacterSet = types.StringValue("utf8mb4")
	}
	if m.Collation.IsUnknown() {
		m.Collation = types.StringValue("utf8mb4_unicode_ci")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (floorResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (floorResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (floorResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
