// SPDX-License-Identifier: MPL-2.0

// Package provider is the Terraform glue of tenantdb: schemas, validators,
// plan modifiers and CRUD that call internal/ddl and internal/dbclient.
package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	_ provider.Provider                  = &tenantdbProvider{}
	_ provider.ProviderWithListResources = &tenantdbProvider{}
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/tenantdb/tenantdb"

// New returns a provider factory for pluginserver.Serve and tests.
func New(version string) func() provider.Provider {
	// Statements are logged redacted at DEBUG (TF_LOG=DEBUG shows the SQL,
	// never a password or verifier).
	registry := dbclient.NewRegistryWithLogger(func(ctx context.Context, msg string, fields map[string]any) {
		tflog.Debug(ctx, msg, fields)
	})
	return func() provider.Provider { return &tenantdbProvider{version: version, registry: registry} }
}

type tenantdbProvider struct {
	version string
	// registry is shared by every Configure of this process: one bounded
	// pool per server per provider process.
	registry *dbclient.Registry
	// destroying says whether the terraform command served plans a
	// destroy; nil asks the parent process (terraform_command.go). A test
	// that serves the provider in-process for one command of its own sets
	// it from that command's arguments.
	destroying func() bool
}

type providerModel struct {
	AdminPasswords   types.Map    `tfsdk:"admin_passwords"`
	CACerts          types.Map    `tfsdk:"ca_certs"`
	ClientCerts      types.Map    `tfsdk:"client_certs"`
	SSHBastions      types.Map    `tfsdk:"ssh_bastions"`
	SOCKS5Proxies    types.Map    `tfsdk:"socks5_proxies"`
	LockTimeout      types.String `tfsdk:"lock_timeout"`
	OperationTimeout types.String `tfsdk:"operation_timeout"`
	GrantRefresh     types.String `tfsdk:"postgres_grant_refresh"`
}

func (p *tenantdbProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "tenantdb"
	resp.Version = p.version
}

func (p *tenantdbProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Provisions tenant databases on shared MySQL 8, MariaDB and PostgreSQL servers: " +
			"one database per tenant, the one login that owns it, and grants for principals that already exist. " +
			"Safe by default: nothing is dropped unless configured and created by this provider, and no password " +
			"is ever written to state.",
		Attributes: map[string]schema.Attribute{
			"admin_passwords": schema.MapAttribute{
				MarkdownDescription: "Admin passwords keyed by `tenantdb_db_server` name (each key must be a valid " +
					"server name, `^[a-z][a-z0-9_-]{0,62}$`). Provider configuration is never written to state, so " +
					"values may come from variables or ephemeral resources. A server missing here falls back to the " +
					"environment variable `TENANTDB_ADMIN_PASSWORD_<NAME>`, NAME being the server name upper-cased " +
					"(`main` reads `TENANTDB_ADMIN_PASSWORD_MAIN`, `eu_west` reads `TENANTDB_ADMIN_PASSWORD_EU_WEST`). " +
					"A name containing `-` has no environment fallback and must be listed here: `a-b` and `a_b` would " +
					"otherwise share one variable, and one server's password could be sent to the other's host. " +
					"A server whose `auth` is a cloud IAM method has no password: an entry here (or the variable) for it is refused.",
				Validators:  []validator.Map{mapvalidator.KeysAre(identifierValidator{kind: "server name"})},
				ElementType: types.StringType,
				Optional:    true,
				Sensitive:   true,
			},
			"ca_certs": schema.MapAttribute{
				MarkdownDescription: "CA certificates (PEM: one certificate or a bundle) keyed by `tenantdb_db_server` " +
					"name, used to verify the server certificate under `tls = \"verify-ca\"` or `\"verify-full\"`. " +
					"A server without an entry is verified against the system roots. Like the passwords, this is " +
					"never written to state: a bundle of a hundred certificates costs nothing per tenant, and " +
					"rotating it plans no change on any tenant resource (the server's `ca_fingerprint` shows it " +
					"once). For example `ca_certs = { main = file(\"${path.module}/ca-bundle.pem\") }`. " +
					"Replaces `tenantdb_db_server.ca_cert` of earlier versions (a configuration that still sets it gets an error saying so).",
				Validators: []validator.Map{
					mapvalidator.KeysAre(identifierValidator{kind: "server name"}),
					mapvalidator.ValueStringsAre(pemBundleValidator{}),
				},
				ElementType: types.StringType,
				Optional:    true,
			},
			"client_certs":   clientCertsAttribute(),
			"ssh_bastions":   sshBastionsAttribute(),
			"socks5_proxies": socks5ProxiesAttribute(),
			"postgres_grant_refresh": schema.StringAttribute{
				MarkdownDescription: "How deep a refresh reads a PostgreSQL `tenantdb_tenant_grant`. `\"tables\"` (the " +
					"default) reads everything the grant means, from inside each tenant database: `CONNECT`, `USAGE` on " +
					"the tenant's schemas, the privileges on every table and in the owner's default privileges. " +
					"`\"database\"` reads from one catalog snapshot of the server only and opens no connection into " +
					"any tenant database: it still sees a dropped or re-created principal and database-level drift " +
					"(`CONNECT`, `CREATE`, `TEMPORARY`), but not table-level drift (a `REVOKE` on one table, a changed " +
					"default privilege, a schema the owner created later); the next apply after such a change does " +
					"not correct it unless the grant's privileges change. Choose it for hundreds of tenants per " +
					"server, or a connection-limited proxy in front. Apply always sets everything, whatever the setting; " +
					"MySQL/MariaDB grants are one row and always read whole.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf("tables", "database")},
			},
			"lock_timeout": schema.StringAttribute{
				MarkdownDescription: "How long any one statement may wait for a lock held by someone else, as a " +
					"duration (`\"30s\"`, `\"2m\"`; default `\"30s\"`, between `1s` and `1h`). PostgreSQL " +
					"`lock_timeout`, MySQL/MariaDB `lock_wait_timeout` and `innodb_lock_wait_timeout`. A statement that " +
					"waits longer fails with an error naming the sessions that hold locks on the tenant database " +
					"(PostgreSQL: process ID, user and application; MySQL/MariaDB: the threads the admin can see), and " +
					"what the operation had done is undone: a forgotten session can no longer hang an apply until the " +
					"CI job's own timeout.",
				Optional:   true,
				Validators: []validator.String{durationValidator{min: time.Second, max: time.Hour}},
			},
			"operation_timeout": schema.StringAttribute{
				MarkdownDescription: "How long one create, read, update or delete of a resource may take in all, " +
					"as a duration (default `\"5m\"`, between `10s` and `24h`): lock waits, retries of an " +
					"unavailable primary and a server that never answers all count. When it passes, the statement in " +
					"flight is cancelled, what the operation had done is undone, and the error says so.",
				Optional:   true,
				Validators: []validator.String{durationValidator{min: 10 * time.Second, max: 24 * time.Hour}},
			},
		},
	}
}

func (p *tenantdbProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	data := &providerData{registry: p.registry, destroying: p.destroying, passwords: map[string]string{}, caCerts: map[string]string{}}
	if cfg.AdminPasswords.IsUnknown() {
		data.unknown = true
	} else if !cfg.AdminPasswords.IsNull() {
		for name, v := range cfg.AdminPasswords.Elements() {
			// The validator refused it already; checked again so no
			// password is ever filed under a name no server can have.
			if _, err := ddl.NewServerName(name); err != nil {
				addAttributeError(&resp.Diagnostics, path.Root("admin_passwords").AtMapKey(name), err)
				continue
			}
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				data.unknown = true
				continue
			}
			data.passwords[name] = s.ValueString()
		}
	}
	configureCACerts(cfg.CACerts, data, &resp.Diagnostics)
	configureClientCerts(cfg.ClientCerts, data, &resp.Diagnostics)
	configureSSHBastions(cfg.SSHBastions, data, &resp.Diagnostics)
	configureSOCKS5Proxies(cfg.SOCKS5Proxies, data, &resp.Diagnostics)
	data.shallowGrantRefresh = cfg.GrantRefresh.ValueString() == "database"
	if !cfg.LockTimeout.IsNull() && !cfg.LockTimeout.IsUnknown() {
		data.lockTimeout, _ = time.ParseDuration(cfg.LockTimeout.ValueString()) // validated above
	}
	if !cfg.OperationTimeout.IsNull() && !cfg.OperationTimeout.IsUnknown() {
		data.operationTimeout, _ = time.ParseDuration(cfg.OperationTimeout.ValueString()) // validated above
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.ResourceData = data
	resp.ListResourceData = data
	resp.DataSourceData = data
}

func (p *tenantdbProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		withIdentity(NewDBServerResource, serverIdentity),
		withIdentity(NewTenantDatabaseResource, databaseIdentity),
		withIdentity(NewTenantOwnerResource, loginIdentity),
		withIdentity(NewTenantGrantResource, loginIdentity),
	}
}

// ListResources: `terraform query` (Terraform 1.14+) finds what to adopt.
func (p *tenantdbProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{NewTenantDatabaseList, NewTenantOwnerList}
}

func (p *tenantdbProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return nil
}

// configureCACerts files the ca_certs entries by server name. An unknown
// map or entry is remembered, so a connection that needs it says so.
func configureCACerts(m types.Map, data *providerData, diags *diag.Diagnostics) {
	if m.IsUnknown() {
		data.caUnknown = true
		return
	}
	for name, v := range m.Elements() {
		if _, err := ddl.NewServerName(name); err != nil {
			addAttributeError(diags, path.Root("ca_certs").AtMapKey(name), err)
			continue
		}
		s, ok := v.(types.String)
		switch {
		case !ok || s.IsUnknown():
			data.caUnknownNames = append(data.caUnknownNames, name)
		case !s.IsNull():
			data.caCerts[name] = s.ValueString()
		}
	}
}
