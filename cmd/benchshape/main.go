// SPDX-License-Identifier: MPL-2.0

// Command benchshape is the second measuring stick of `make bench SHAPE=1`
// (cmd/tenantdb-bench, internal/bench), never a product and never in the
// released binary: a provider "tenantdbshape" whose four resources have
// tenantdb's exact schemas (taken from the real provider at start-up, so
// they cannot drift) and do nothing.
//
// The floor provider (cmd/benchfloor) answers "what do Terraform core,
// the plugin protocol and the framework cost for this graph"; this one
// answers "what do they cost for this graph with tenantdb's attributes":
// every attribute, type, default, sensitivity and write-only flag of
// tenantdb, the same `ref` string in every tenant resource (so the same
// state size), and none of tenantdb's code: no validators, no plan
// modifiers, no ModifyPlan beyond computing ref, no SQL, no connection.
// The gap between tenantdb and this provider is what tenantdb's own code
// costs; the gap between this provider and the floor is what the schema
// costs.
package main

import (
	"context"
	"log"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
	tenantdb "github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

// Address is the shape floor's registry address (dev_overrides only).
const Address = "registry.terraform.io/tenantdb/tenantdbshape"

const (
	realPrefix  = "tenantdb"
	shapePrefix = "tenantdbshape"
)

func main() {
	pluginserver.QuietSDKLogs() // as tenantdb's main: no SDK TRACE logging unless TF_LOG* asks
	if err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{Address: Address}); err != nil {
		log.Fatal(err)
	}
}

func newProvider() provider.Provider { return shapeProvider{real: tenantdb.New("bench")()} }

type shapeProvider struct{ real provider.Provider }

func (shapeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = shapePrefix
}

// Schema is tenantdb's provider schema minus its validators.
func (p shapeProvider) Schema(ctx context.Context, req provider.SchemaRequest, resp *provider.SchemaResponse) {
	p.real.Schema(ctx, req, resp)
	for name, a := range resp.Schema.Attributes {
		if m, ok := a.(pschema.MapAttribute); ok {
			m.Validators = nil
			resp.Schema.Attributes[name] = m
		}
	}
}

func (shapeProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p shapeProvider) Resources(ctx context.Context) []func() resource.Resource {
	var out []func() resource.Resource
	for _, newReal := range p.real.Resources(ctx) {
		r := newShapeResource(ctx, newReal())
		out = append(out, func() resource.Resource { return r })
	}
	return out
}

func (shapeProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// shapeResource has a tenantdb resource's type name (with the shape
// prefix) and schema, and does nothing: state is the plan, with computed
// values the plan left unknown filled in.
type shapeResource struct {
	typeName string
	schema   schema.Schema
	isServer bool              // tenantdb_db_server: ref is computed at plan time, as tenantdb does
	private  map[string]string // private state of the same size as tenantdb keeps
}

var (
	_ resource.Resource               = shapeResource{}
	_ resource.ResourceWithModifyPlan = shapeResource{}
)

func newShapeResource(ctx context.Context, real resource.Resource) shapeResource {
	var md resource.MetadataResponse
	real.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: realPrefix}, &md)
	var sr resource.SchemaResponse
	real.Schema(ctx, resource.SchemaRequest{}, &sr)
	if sr.Diagnostics.HasError() {
		log.Fatalf("schema of %s: %v", md.TypeName, sr.Diagnostics)
	}
	s := sr.Schema
	attrs := make(map[string]schema.Attribute, len(s.Attributes))
	for name, a := range s.Attributes {
		attrs[name] = withoutCode(a)
	}
	s.Attributes = attrs
	kind := strings.TrimPrefix(md.TypeName, realPrefix)
	return shapeResource{
		typeName: shapePrefix + kind,
		schema:   s,
		isServer: kind == "_db_server",
		private:  privateLike[kind],
	}
}

// privateLike is what tenantdb keeps in a resource's private state on
// MariaDB (the identities internal/dbclient records: a database's marker,
// a login's), with values of the same length, so the state file is as
// large as tenantdb's.
var privateLike = map[string]map[string]string{
	"_tenant_database": {"i": dbIdentity},
	"_tenant_owner":    {"i": loginIdentity},
	"_tenant_grant":    {"i": dbIdentity, "p": loginIdentity},
}

const (
	dbIdentity    = `"mariadb:tenantdb:00000000000000000000000000000000"`
	loginIdentity = `"mariadb-login:0000000000"`
)

// withoutCode drops an attribute's validators and plan modifiers (tenantdb's
// code) and keeps everything the schema itself says, defaults included.
func withoutCode(a schema.Attribute) schema.Attribute {
	switch a := a.(type) {
	case schema.StringAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.Int64Attribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.BoolAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.SetAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.ListAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.MapAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		return a
	case schema.SingleNestedAttribute:
		a.Validators, a.PlanModifiers = nil, nil
		attrs := make(map[string]schema.Attribute, len(a.Attributes))
		for name, inner := range a.Attributes {
			attrs[name] = withoutCode(inner)
		}
		a.Attributes = attrs
		return a
	default:
		log.Fatalf("benchshape: attribute type %T is not handled; add it to withoutCode", a)
		return nil
	}
}

func (r shapeResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.typeName
}

func (r shapeResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

// ModifyPlan computes the server's ref at plan time, as tenantdb does, so
// tenant resources plan with a known server; other resources plan as the
// framework alone would.
func (r shapeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !r.isServer || req.Plan.Raw.IsNull() {
		return
	}
	if ref, ok := refOf(ctx, req); ok {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ref"), types.StringValue(ref))...)
	}
}

// refOf renders the server's settings as tenantdb's ref does (its URL form,
// the same fields, reserved names sorted), so every tenant resource keeps a
// server string of the same length as tenantdb's.
func refOf(ctx context.Context, req resource.ModifyPlanRequest) (string, bool) {
	var m struct {
		Name, Engine, Host, Username, TLS types.String
		Port                              types.Int64
		Reserved                          types.Set
	}
	for _, f := range []struct {
		attr string
		dst  any
	}{
		{"name", &m.Name}, {"engine", &m.Engine}, {"host", &m.Host}, {"username", &m.Username},
		{"tls", &m.TLS}, {"port", &m.Port}, {"reserved_usernames", &m.Reserved},
	} {
		if d := req.Plan.GetAttribute(ctx, path.Root(f.attr), f.dst); d.HasError() {
			return "", false
		}
	}
	for _, v := range []interface{ IsUnknown() bool }{m.Name, m.Engine, m.Host, m.Username, m.TLS, m.Port, m.Reserved} {
		if v.IsUnknown() {
			return "", false
		}
	}
	var reserved []string
	for _, e := range m.Reserved.Elements() {
		if s, ok := e.(types.String); ok {
			reserved = append(reserved, s.ValueString())
		}
	}
	slices.Sort(reserved)
	// The fields tenantdb's ref has, in its form (serverRef.encode), so
	// the string is as long.
	u := url.URL{Scheme: m.Engine.ValueString(), User: url.User(m.Username.ValueString()),
		Host: net.JoinHostPort(m.Host.ValueString(), strconv.FormatInt(m.Port.ValueInt64(), 10)), Path: "/" + m.Name.ValueString()}
	tls := m.TLS.ValueString()
	if tls == "" {
		tls = "require"
	}
	u.RawQuery = "tls=" + url.QueryEscape(tls)
	if len(reserved) > 0 {
		u.RawQuery += "&reserved_usernames=" + strings.Join(reserved, ",")
	}
	return u.String(), true
}

func (r shapeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = filled(req.Plan.Raw)
	for k, v := range r.private {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, k, []byte(v))...)
	}
}

func (shapeResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (shapeResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = filled(req.Plan.Raw)
}

func (shapeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// filled replaces what the plan left unknown (computed values) with a
// value of the attribute's type: "shape", false, 0, an empty collection.
func filled(v tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		t := v.Type()
		switch {
		case t.Is(tftypes.String):
			return tftypes.NewValue(t, "shape"), nil
		case t.Is(tftypes.Bool):
			return tftypes.NewValue(t, false), nil
		case t.Is(tftypes.Number):
			return tftypes.NewValue(t, 0), nil
		case t.Is(tftypes.Set{}), t.Is(tftypes.List{}), t.Is(tftypes.Map{}):
			return tftypes.NewValue(t, nil), nil
		}
		return v, nil
	})
	if err != nil {
		log.Fatalf("benchshape: %v", err)
	}
	return out
}
