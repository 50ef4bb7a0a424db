// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	_ resource.ResourceWithConfigure      = &dbServerResource{}
	_ resource.ResourceWithImportState    = &dbServerResource{}
	_ resource.ResourceWithUpgradeState   = &dbServerResource{}
	_ resource.ResourceWithModifyPlan     = &dbServerResource{}
	_ resource.ResourceWithValidateConfig = &dbServerResource{}
)

// NewDBServerResource is the tenantdb_db_server resource: a saved server
// that has been tested (connects, supported version, admin rights).
func NewDBServerResource() resource.Resource { return &dbServerResource{} }

type dbServerResource struct{ data *providerData }

type dbServerModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Engine            types.String `tfsdk:"engine"`
	Host              types.String `tfsdk:"host"`
	Port              types.Int64  `tfsdk:"port"`
	Username          types.String `tfsdk:"username"`
	TLS               types.String `tfsdk:"tls"`
	CACert            types.String `tfsdk:"ca_cert"` // always null: refused at validate time (ca_certs.go)
	ReservedUsernames types.Set    `tfsdk:"reserved_usernames"`
	Flavor            types.String `tfsdk:"flavor"`
	Version           types.String `tfsdk:"version"`
	Ref               types.String `tfsdk:"ref"`
	CAFingerprint     types.String `tfsdk:"ca_fingerprint"`
	// auth and its settings (iam_auth.go)
	iamAuthModel
	// ClientCertFingerprint: client_certs.go.
	ClientCertFingerprint types.String `tfsdk:"client_cert_fingerprint"`
	// SSHBastion: bastion.go.
	SSHBastion types.Object `tfsdk:"ssh_bastion"`
	// SOCKS5Proxy: socks5.go.
	SOCKS5Proxy types.String `tfsdk:"socks5_proxy"`
}

func (r *dbServerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_db_server"
}

func (r *dbServerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: schemaVersion,
		// Merged below: auth and its settings (iam_auth.go).
		MarkdownDescription: "A saved database server that tenant resources provision on. Create and update connect as " +
			"the admin login and test it: the server version must be supported (`UnsupportedServer`) and the admin " +
			"must hold the documented rights (`MissingAdminRights`, listing each missing right and the statements " +
			"that grant it). An admin holding more than those rights (a PostgreSQL superuser; on MySQL/MariaDB " +
			"`ALL PRIVILEGES` or any other global privilege such as `SUPER`) works, with a warning naming what is " +
			"held and the statements that narrow the login. PostgreSQL sessions take no setting from the `PG*` " +
			"environment variables (`PGOPTIONS`, `PGSSLMODE`, `PGTARGETSESSIONATTRS`, ...): only from this resource " +
			"and the provider's arguments. Destroying it touches nothing on the server.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "The server name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Server name, `^[a-z][a-z0-9_-]{0,62}$`. Keys the admin password in the provider's " +
					"`admin_passwords`; a name without `-` may instead use the environment variable " +
					"`TENANTDB_ADMIN_PASSWORD_<NAME>` (see the provider). Cannot change (`ImmutableAttribute`).",
				Validators:    []validator.String{identifierValidator{kind: "server name"}},
				PlanModifiers: []planmodifier.String{immutableString("the server's name")},
			},
			"engine": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "`mysql` (MySQL 8.0+, MariaDB 10.6+) or `postgres` (PostgreSQL 15+). Cannot change (`ImmutableAttribute`).",
				Validators:          []validator.String{engineValidator{}},
				PlanModifiers:       []planmodifier.String{immutableString("the server's engine")},
			},
			"host": schema.StringAttribute{
				Required: true, MarkdownDescription: hostDescription + " The primary's address.",
				Validators: []validator.String{hostValidator{}},
			},
			"port": schema.Int64Attribute{
				Optional: true, Computed: true,
				MarkdownDescription: "TCP port, 1-65535. Default 3306 for `mysql`, 5432 for `postgres` when omitted " +
					"(`0` is refused, not read as the default).",
				Validators:    []validator.Int64{portValidator()},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"username": schema.StringAttribute{
				Required: true, MarkdownDescription: "The admin login. See the provider docs for the rights it needs. It is reserved: no tenant may own it or be granted to it.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 128)},
			},
			"tls": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(dbclient.TLSRequire)),
				MarkdownDescription: "`disable`, `require` (default: encrypted, certificate not checked), `verify-ca` " +
					"(chain checked against the CA the provider's `ca_certs` gives this server, else the system roots) " +
					"or `verify-full` (chain and host name checked).",
				Validators: []validator.String{stringvalidator.OneOf(dbclient.TLSModes...)},
			},
			"ca_cert": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "**Removed**: set the CA in the provider's `ca_certs = { <name> = file(\"ca.pem\") }` " +
					"instead. Setting it is an error at validate time that gives the line to write; it stays in the " +
					"schema only so that the error can say where the CA went.",
			},
			"ca_fingerprint": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "SHA-256 (hex) of the certificates of the CA this server is verified against (the " +
					"provider's `ca_certs` entry for this name, DER of each certificate in order); null under " +
					"`disable`/`require` or with the system roots. A CA rotation shows here, as an update of this " +
					"resource that tests the connection with the new CA, and on no tenant resource.",
			},
			"ssh_bastion":  sshBastionAttribute(),
			"socks5_proxy": socks5ProxyAttribute(),
			"client_cert_fingerprint": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "SHA-256 (hex) of the DER of the client certificate the admin presents (the " +
					"provider's `client_certs` entry for this name); null without one. A rotation of the certificate " +
					"shows here, as an update of this resource that tests the connection with it, and on no tenant " +
					"resource. The key is never shown, nor any digest of it.",
			},
			"reserved_usernames": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Group-level principals (e.g. `app`, `replicator`) that no tenant may own (`OwnerUserReserved`) or be granted to (`GrantUserReserved`).",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(identifierValidator{kind: "username"})},
			},
			"flavor": schema.StringAttribute{
				Computed: true, MarkdownDescription: "What the server is: `mysql`, `mariadb` or `postgres`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"version": schema.StringAttribute{
				Computed: true, MarkdownDescription: "The server version, as `major.minor.patch`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"ref": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "The server's non-secret settings (name, engine, host, port, username, tls, " +
					"reserved_usernames, and ssh_bastion and socks5_proxy when set; never the CA, a key nor a password) as one short string, e.g. " +
					"`mysql://tenantdb_admin@db.internal:3306/main?tls=require`: pass it as `server` to tenant " +
					"resources, and inside `jsonencode` for import IDs. Known at plan time whenever the arguments are. " +
					"With a cloud IAM `auth`, it also holds the method and its settings (never a token).",
			},
		},
	}
	maps.Copy(resp.Schema.Attributes, iamAuthAttributes())
}

func (r *dbServerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig refuses ca_cert, saying where the CA went, and auth
// settings that do not go together (iam_auth.go).
func (r *dbServerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateAuthConfig(ctx, req.Config, &resp.Diagnostics)
	var ca, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ca_cert"), &ca)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() || ca.IsNull() {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("ca_cert"), caCertMovedSummary, caCertMovedDetail(name.ValueString()))
}

// ModifyPlan fills the default port and computes ref from the planned
// arguments, so tenant resources see it at plan time, and ca_fingerprint
// from the provider's ca_certs, so a CA rotation plans an update here.
func (r *dbServerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan dbServerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var cfgPort types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("port"), &cfgPort)...)
	if cfgPort.IsNull() && !plan.Engine.IsUnknown() {
		plan.Port = types.Int64Value(defaultPort(plan.Engine.ValueString()))
	}
	plan.Ref = types.StringUnknown()
	if ref, ok, diags := refFromModel(ctx, plan.refModel()); ok {
		resp.Diagnostics.Append(diags...)
		plan.Ref = types.StringValue(ref.encode())
		if err := r.data.refuseStoredPassword(ref.Name, ref.Auth); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("auth"), err)
		}
	}
	plan.CAFingerprint = types.StringUnknown()
	if ca, known := r.data.caCert(plan.Name.ValueString()); known && !plan.Name.IsUnknown() && !plan.TLS.IsUnknown() {
		plan.CAFingerprint = caFingerprint(plan.TLS.ValueString(), ca)
	}
	planClientCert(&plan, r.data, &resp.Diagnostics)
	reached := req.State.Raw.IsNull()
	// A changed connection means flavor and version are read again.
	if !req.State.Raw.IsNull() {
		var state dbServerModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.Host.Equal(state.Host) || !plan.Port.Equal(state.Port) {
			plan.Flavor, plan.Version = types.StringUnknown(), types.StringUnknown()
		}
		reached = !plan.Ref.Equal(state.Ref)
	}
	// A new server, or one reached another way: the plan tests it as the
	// apply will (version, TLS, the admin's login and rights).
	if reached && !resp.Diagnostics.HasError() && !plan.Ref.IsUnknown() {
		if ref, ok, _ := refFromModel(ctx, plan.refModel()); ok {
			r.data.preflightAdmin(ctx, ref, &resp.Diagnostics)
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (m dbServerModel) refModel() serverRefModel {
	return serverRefModel{
		Name: m.Name, Engine: m.Engine, Host: m.Host, Port: m.Port, Username: m.Username,
		TLS: m.TLS, ReservedUsernames: m.ReservedUsernames, iamAuthModel: m.iamAuthModel, SSHBastion: m.SSHBastion,
		SOCKS5Proxy: m.SOCKS5Proxy,
	}
}

// Create and Update do the same: test the server as planned, then save it.
func (r *dbServerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.testAndSave(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *dbServerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.testAndSave(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *dbServerResource) testAndSave(ctx context.Context, planned tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var plan dbServerModel
	diags.Append(planned.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	diags.Append(r.test(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	diags.Append(state.Set(ctx, &plan)...)
}

// test connects, checks the version and the admin's rights, and fills the
// computed attributes (the reference guide's test-db-server).
func (r *dbServerResource) test(ctx context.Context, m *dbServerModel) (diags diag.Diagnostics) {
	ref, ok, diags := refFromModel(ctx, m.refModel())
	if diags.HasError() || !ok {
		addSettingsUnknownError(&diags, "All tenantdb_db_server arguments must be known at apply time.")
		return diags
	}
	srv, err := r.data.connect(ctx, ref)
	if err != nil {
		addError(&diags, fmt.Sprintf("connect to server %q", ref.Name), err)
		return diags
	}
	excess, err := srv.CheckAdminRights(ctx)
	if err != nil {
		addError(&diags, fmt.Sprintf("check the admin rights on server %q", ref.Name), err)
		return diags
	}
	if !excess.Empty() {
		addAdminOverPrivilegedWarning(&diags, ref.Name, excess.Detail(ddl.AdminAccount{User: ref.Username}))
	}
	m.ID = types.StringValue(ref.Name)
	m.Port = types.Int64Value(ref.Port)
	m.Flavor = types.StringValue(string(srv.Info().Flavor))
	m.Version = types.StringValue(srv.Info().Version.String())
	m.Ref = types.StringValue(ref.encode())
	ca, _ := r.data.caCert(ref.Name) // known: connect needed it
	m.CAFingerprint = caFingerprint(ref.TLS, ca)
	cc, _ := r.data.clientCert(ref.Name) // known: connect needed it
	m.ClientCertFingerprint = clientCertFingerprint(cc)
	return diags
}

func (r *dbServerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state dbServerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, ok, diags := refFromModel(ctx, state.refModel())
	resp.Diagnostics.Append(diags...)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	state.Ref = types.StringValue(ref.encode())
	if state.CAFingerprint.IsUnknown() { // imported while ca_certs was not known
		ca, _ := r.data.caCert(ref.Name)
		state.CAFingerprint = caFingerprint(ref.TLS, ca)
	}
	if state.ClientCertFingerprint.IsUnknown() { // imported while client_certs was not known
		cc, _ := r.data.clientCert(ref.Name)
		state.ClientCertFingerprint = clientCertFingerprint(cc)
	}
	// An unreachable server is a warning: a saved server is never removed
	// from state because the network is down.
	srv, err := r.data.connect(ctx, ref)
	if err != nil {
		addRefreshWarning(&resp.Diagnostics, fmt.Sprintf("server %q", ref.Name),
			"Flavor and version are kept as last read; the server stays in state.", err)
	} else {
		state.Flavor = types.StringValue(string(srv.Info().Flavor))
		state.Version = types.StringValue(srv.Info().Version.String())
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Delete forgets the server; nothing on the server changes.
func (r *dbServerResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// dbServerImportID is the pinned import ID: a JSON object of the arguments.
type dbServerImportID struct {
	Name              string   `json:"name"`
	Engine            string   `json:"engine"`
	Host              string   `json:"host"`
	Port              int64    `json:"port"`
	Username          string   `json:"username"`
	TLS               string   `json:"tls"`
	ReservedUsernames []string `json:"reserved_usernames"`
	// CACert is read only to refuse it, saying where the CA went.
	CACert *string `json:"ca_cert"`
	iamAuthJSON
}

func (r *dbServerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var id dbServerImportID
	if err := json.Unmarshal([]byte(req.ID), &id); err != nil || id.Name == "" || id.Engine == "" || id.Host == "" || id.Username == "" {
		addInvalidImportIDError(&resp.Diagnostics,
			`The import ID of tenantdb_db_server is a JSON object: jsonencode({ name = "main", engine = "mysql", host = "db.internal", username = "tenantdb_admin" }) `+
				`(port, tls and reserved_usernames optional; the CA is the provider's ca_certs).`)
		return
	}
	if id.CACert != nil {
		addError(&resp.Diagnostics, "import tenantdb_db_server", errCACertMoved(id.Name))
		return
	}
	ref := serverRef{Name: id.Name, Engine: id.Engine, Host: id.Host, Port: id.Port, Username: id.Username, TLS: id.TLS,
		ReservedUsernames: id.ReservedUsernames, Auth: id.cloudAuth()}
	if ref.Port == 0 {
		ref.Port = defaultPort(ref.Engine)
	}
	if ref.TLS == "" {
		ref.TLS = string(dbclient.TLSRequire)
	}
	if err := ref.validate(); err != nil {
		addError(&resp.Diagnostics, "import tenantdb_db_server", err)
		return
	}
	reserved := types.SetNull(types.StringType)
	if ref.ReservedUsernames != nil {
		var d diag.Diagnostics
		reserved, d = types.SetValueFrom(ctx, types.StringType, ref.ReservedUsernames)
		resp.Diagnostics.Append(d...)
	}
	m := dbServerModel{
		ID: types.StringValue(ref.Name), Name: types.StringValue(ref.Name), Engine: types.StringValue(ref.Engine),
		Host: types.StringValue(ref.Host), Port: types.Int64Value(ref.Port), Username: types.StringValue(ref.Username),
		TLS: types.StringValue(ref.TLS), CACert: types.StringNull(), ReservedUsernames: reserved,
		Flavor: types.StringUnknown(), Version: types.StringUnknown(), Ref: types.StringValue(ref.encode()),
		CAFingerprint: types.StringUnknown(), iamAuthModel: modelOfAuth(ref.Auth), ClientCertFingerprint: types.StringUnknown(),
		SSHBastion: types.ObjectNull(sshBastionType), SOCKS5Proxy: types.StringNull(),
	}
	if ca, known := r.data.caCert(ref.Name); known {
		m.CAFingerprint = caFingerprint(ref.TLS, ca)
	}
	if cc, known := r.data.clientCert(ref.Name); known {
		m.ClientCertFingerprint = clientCertFingerprint(cc)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// UpgradeState: see state_upgrade.go.
func (r *dbServerResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return upgradeServerState()
}
