// SPDX-License-Identifier: MPL-2.0

// Command peerstandin stands in for petoju/mysql and cyrilgdn/postgresql
// in the migration guide's acceptance tests (migrate_peers_test.go), where
// no registry is reachable: built as terraform-provider-mysql or
// terraform-provider-postgresql (the name picks which) and installed with
// dev_overrides, it gives the guide's "before" configuration real peer
// resources in state, with the peers' type names and the attributes the
// guide uses, so the guide's `removed` blocks are exercised for real. It
// runs no SQL: the test runs the statements the peer would have run. Its
// Delete fails, naming what the peer would have dropped or revoked, so a
// peer resource the guide forgets to remove (destroy = false) fails the
// test. None of the peers' code is here.
package main

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// kinds of the stand-in attributes.
const (
	str = iota
	secret
	boolean
	strSet
	number
)

// peers are the resource types each peer has in a tenant fleet, with the
// attributes the guide's "before" configuration sets.
var peers = map[string]map[string]map[string]int{
	"mysql": {
		"mysql_database": {"name": str, "default_character_set": str, "default_collation": str},
		"mysql_user":     {"user": str, "host": str, "plaintext_password": secret, "max_user_connections": number},
		"mysql_grant":    {"user": str, "host": str, "database": str, "table": str, "privileges": strSet},
	},
	"postgresql": {
		"postgresql_role":               {"name": str, "login": boolean, "password": secret, "connection_limit": number},
		"postgresql_database":           {"name": str, "owner": str},
		"postgresql_grant":              {"database": str, "role": str, "schema": str, "object_type": str, "privileges": strSet},
		"postgresql_default_privileges": {"database": str, "role": str, "owner": str, "schema": str, "object_type": str, "privileges": strSet},
	},
}

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "terraform-provider-")
	kinds, ok := peers[name]
	if !ok {
		log.Fatalf("peerstandin: built as %q, want terraform-provider-mysql or terraform-provider-postgresql", os.Args[0])
	}
	owner := map[string]string{"mysql": "petoju", "postgresql": "cyrilgdn"}[name]
	err := providerserver.Serve(context.Background(), func() provider.Provider { return standin{name, kinds} },
		providerserver.ServeOpts{Address: "registry.terraform.io/" + owner + "/" + name})
	if err != nil {
		log.Fatal(err)
	}
}

type standin struct {
	name  string
	types map[string]map[string]int
}

func (p standin) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = p.name
}

// providerArgs are the arguments of each peer's provider block that the
// guide's configuration sets (the stand-in connects nowhere).
var providerArgs = map[string]map[string]int{
	"mysql":      {"endpoint": str, "username": str, "password": secret, "tls": str},
	"postgresql": {"host": str, "port": number, "username": str, "password": secret, "sslmode": str, "sslrootcert": str, "superuser": boolean},
}

func (p standin) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	attrs := map[string]pschema.Attribute{}
	for name, kind := range providerArgs[p.name] {
		switch kind {
		case str:
			attrs[name] = pschema.StringAttribute{Optional: true}
		case secret:
			attrs[name] = pschema.StringAttribute{Optional: true, Sensitive: true}
		case boolean:
			attrs[name] = pschema.BoolAttribute{Optional: true}
		case number:
			attrs[name] = pschema.Int64Attribute{Optional: true}
		}
	}
	resp.Schema = pschema.Schema{Attributes: attrs}
}

func (standin) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}

func (p standin) Resources(context.Context) []func() resource.Resource {
	var out []func() resource.Resource
	for typ, attrs := range p.types {
		out = append(out, func() resource.Resource { return peerResource{typ, attrs} })
	}
	return out
}

func (standin) DataSources(context.Context) []func() datasource.DataSource { return nil }

// peerResource keeps its configuration as its state.
type peerResource struct {
	typ   string
	attrs map[string]int
}

func (r peerResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typ
}

func (r peerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
	}
	for name, kind := range r.attrs {
		switch kind {
		case str:
			attrs[name] = schema.StringAttribute{Optional: true}
		case secret:
			attrs[name] = schema.StringAttribute{Optional: true, Sensitive: true}
		case boolean:
			attrs[name] = schema.BoolAttribute{Optional: true}
		case strSet:
			attrs[name] = schema.SetAttribute{Optional: true, ElementType: types.StringType}
		case number:
			attrs[name] = schema.Int64Attribute{Optional: true}
		}
	}
	resp.Schema = schema.Schema{Attributes: attrs}
}

func (r peerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), types.StringValue(r.typ+"-standin"))...)
}

func (peerResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (peerResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r peerResource) Delete(_ context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	resp.Diagnostics.AddError("peer stand-in: destroy of "+r.typ,
		"The real provider would drop or revoke this object now. A removed block with destroy = false must make "+
			"Terraform forget it instead.")
}
