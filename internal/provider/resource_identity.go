// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12+): every resource has an identity
// schema, so `import { to = ..., identity = { ... } }` works beside the
// pinned JSON import ID, and list resources (Terraform 1.14+) return each
// result's identity. An identity is exactly the fields of the JSON import
// ID, taken from state after every Create, Read, Update and import; an
// import by identity is turned into that JSON ID and imported the one way
// there is. Older Terraform never asks for identities and ignores them.
//
// The identities live in wrappers around the resources, so the CRUD code of
// each resource stays as it is.

// identityField is one attribute of an identity: a state attribute of the
// same name (a string, or a number when isInt).
type identityField struct {
	name           string
	isInt          bool
	requiredImport bool
	description    string
}

var (
	serverIdentity = []identityField{
		{name: "name", requiredImport: true, description: "The server's `name`."},
		{name: "engine", requiredImport: true, description: "`mysql` or `postgres`."},
		{name: "host", requiredImport: true, description: "The server's host."},
		{name: "username", requiredImport: true, description: "The admin login."},
		{name: "port", isInt: true, description: "The port (default 3306 / 5432)."},
		{name: "tls", description: "The TLS mode (default `require`)."},
	}
	databaseIdentity = []identityField{
		{name: "server", requiredImport: true, description: "`tenantdb_db_server.<name>.ref`."},
		{name: "name", requiredImport: true, description: "The tenant database's name."},
	}
	loginIdentity = []identityField{
		{name: "server", requiredImport: true, description: "`tenantdb_db_server.<name>.ref`."},
		{name: "database", requiredImport: true, description: "The tenant database."},
		{name: "username", requiredImport: true, description: "The login."},
		{name: "host", description: "MySQL/MariaDB: the account's host (absent: `%`)."},
	}
)

func identitySchemaOf(fields []identityField) identityschema.Schema {
	attrs := map[string]identityschema.Attribute{}
	for _, f := range fields {
		if f.isInt {
			attrs[f.name] = identityschema.Int64Attribute{RequiredForImport: f.requiredImport, OptionalForImport: !f.requiredImport, Description: f.description}
		} else {
			attrs[f.name] = identityschema.StringAttribute{RequiredForImport: f.requiredImport, OptionalForImport: !f.requiredImport, Description: f.description}
		}
	}
	return identityschema.Schema{Attributes: attrs}
}

// setIdentity copies the identity's attributes from state.
func setIdentity(ctx context.Context, fields []identityField, state tfsdk.State, identity *tfsdk.ResourceIdentity) diag.Diagnostics {
	var diags diag.Diagnostics
	if identity == nil || state.Raw.IsNull() {
		return diags
	}
	for _, f := range fields {
		var v attr.Value
		if f.isInt {
			var i types.Int64
			diags.Append(state.GetAttribute(ctx, path.Root(f.name), &i)...)
			v = i
		} else {
			var s types.String
			diags.Append(state.GetAttribute(ctx, path.Root(f.name), &s)...)
			v = s
		}
		diags.Append(identity.SetAttribute(ctx, path.Root(f.name), v)...)
	}
	return diags
}

// importIDFromIdentity is the pinned JSON import ID an identity stands for.
func importIDFromIdentity(ctx context.Context, fields []identityField, identity *tfsdk.ResourceIdentity) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	id := map[string]any{}
	for _, f := range fields {
		if f.isInt {
			var i types.Int64
			diags.Append(identity.GetAttribute(ctx, path.Root(f.name), &i)...)
			if !i.IsNull() && !i.IsUnknown() {
				id[f.name] = i.ValueInt64()
			}
			continue
		}
		var s types.String
		diags.Append(identity.GetAttribute(ctx, path.Root(f.name), &s)...)
		if !s.IsNull() && !s.IsUnknown() {
			id[f.name] = s.ValueString()
		}
	}
	raw, _ := json.Marshal(id)
	return string(raw), diags
}

// withIdentity gives a resource its identity. The wrapper forwards every
// optional interface a tenantdb resource implements; one the inner
// resource lacks is a no-op.
func withIdentity(newResource func() resource.Resource, fields []identityField) func() resource.Resource {
	return func() resource.Resource { return &identifiedResource{inner: newResource(), fields: fields} }
}

// identifiedResource also runs every operation under the provider's
// operation_timeout (operation_timeout.go): it is the one place every
// create, read, update and delete passes through.
type identifiedResource struct {
	inner  resource.Resource
	fields []identityField
	data   *providerData // from Configure; nil before
}

var (
	_ resource.ResourceWithIdentity       = &identifiedResource{}
	_ resource.ResourceWithConfigure      = &identifiedResource{}
	_ resource.ResourceWithImportState    = &identifiedResource{}
	_ resource.ResourceWithModifyPlan     = &identifiedResource{}
	_ resource.ResourceWithUpgradeState   = &identifiedResource{}
	_ resource.ResourceWithValidateConfig = &identifiedResource{}
)

// Metadata: an identity may change during the resource's life (a username
// rotation, the server's host changing in its ref), so the framework's
// check that it never does is off.
func (w *identifiedResource) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	w.inner.Metadata(ctx, req, resp)
	resp.ResourceBehavior.MutableIdentity = true
}

func (w *identifiedResource) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	w.inner.Schema(ctx, req, resp)
}

func (w *identifiedResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identitySchemaOf(w.fields)
}

func (w *identifiedResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, cancel := operationContext(ctx, w.data)
	defer cancel()
	w.inner.Create(ctx, req, resp)
	explainTimeout(ctx, w.data, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(setIdentity(ctx, w.fields, resp.State, resp.Identity)...)
	}
}

// Read sets the identity from the state read, or, when the read removed
// the resource (gone, or replaced by someone else), from the state it
// started from: the framework requires an identity after every read that
// has no error, a removed resource included.
func (w *identifiedResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, cancel := operationContext(ctx, w.data)
	defer cancel()
	w.inner.Read(ctx, req, resp)
	explainTimeout(ctx, w.data, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	from := resp.State
	if from.Raw.IsNull() {
		from = req.State
	}
	resp.Diagnostics.Append(setIdentity(ctx, w.fields, from, resp.Identity)...)
}

func (w *identifiedResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, cancel := operationContext(ctx, w.data)
	defer cancel()
	w.inner.Update(ctx, req, resp)
	explainTimeout(ctx, w.data, &resp.Diagnostics)
	resp.Diagnostics.Append(setIdentity(ctx, w.fields, resp.State, resp.Identity)...)
}

func (w *identifiedResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, cancel := operationContext(ctx, w.data)
	defer cancel()
	w.inner.Delete(ctx, req, resp)
	explainTimeout(ctx, w.data, &resp.Diagnostics)
}

// ImportState imports by the JSON ID, or by an identity turned into it.
func (w *identifiedResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		id, diags := importIDFromIdentity(ctx, w.fields, req.Identity)
		resp.Diagnostics.Append(diags...)
		if diags.HasError() {
			return
		}
		req.ID = id
	}
	if r, ok := w.inner.(resource.ResourceWithImportState); ok {
		r.ImportState(ctx, req, resp)
	}
	if !resp.Diagnostics.HasError() {
		resp.Diagnostics.Append(setIdentity(ctx, w.fields, resp.State, resp.Identity)...)
	}
}

func (w *identifiedResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if data, ok := req.ProviderData.(*providerData); ok {
		w.data = data
	}
	if r, ok := w.inner.(resource.ResourceWithConfigure); ok {
		r.Configure(ctx, req, resp)
	}
}

func (w *identifiedResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r, ok := w.inner.(resource.ResourceWithModifyPlan); ok {
		r.ModifyPlan(ctx, req, resp)
	}
}

func (w *identifiedResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	if r, ok := w.inner.(resource.ResourceWithUpgradeState); ok {
		return r.UpgradeState(ctx)
	}
	return nil
}

func (w *identifiedResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if r, ok := w.inner.(resource.ResourceWithValidateConfig); ok {
		r.ValidateConfig(ctx, req, resp)
	}
}
