// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// Cloud IAM login of the admin (issue 45): a db_server's `auth` and its
// non-secret settings. They are part of the ref (so tenant resources reach
// the server with state alone), left out of it entirely under password
// login, so refs written before them stay byte-identical. They are not part
// of reach (server_ref_address.go): how the admin logs in says nothing
// about which server the address leads to, so a change of method plans an
// update of the db_server (which tests the new login) and of each tenant's
// `server` in place, with no SQL.

// iamAuthModel is the Terraform shape of the settings, embedded in the
// db_server's model and in serverRefModel.
type iamAuthModel struct {
	Auth           types.String `tfsdk:"auth"`
	AWSRegion      types.String `tfsdk:"aws_region"`
	AWSProfile     types.String `tfsdk:"aws_profile"`
	AWSRoleARN     types.String `tfsdk:"aws_role_arn"`
	AzureTenantID  types.String `tfsdk:"azure_tenant_id"`
	AzureScope     types.String `tfsdk:"azure_scope"`
	GCPImpersonate types.String `tfsdk:"gcp_impersonate_service_account"`
}

// iamAuthJSON is the JSON form, embedded in refJSON and in the db_server's
// import ID (every field optional; omitted under password login).
type iamAuthJSON struct {
	Auth           string `json:"auth,omitempty"`
	AWSRegion      string `json:"aws_region,omitempty"`
	AWSProfile     string `json:"aws_profile,omitempty"`
	AWSRoleARN     string `json:"aws_role_arn,omitempty"`
	AzureTenantID  string `json:"azure_tenant_id,omitempty"`
	AzureScope     string `json:"azure_scope,omitempty"`
	GCPImpersonate string `json:"gcp_impersonate_service_account,omitempty"`
}

// authFields pairs each setting's attribute (and ref query field) name with
// its place in dbclient.CloudAuth, in the order the ref writes them.
func authFields(a *dbclient.CloudAuth) []struct {
	name string
	v    *string
} {
	m := (*string)(&a.Method)
	return []struct {
		name string
		v    *string
	}{
		{"auth", m}, {"aws_region", &a.AWSRegion}, {"aws_profile", &a.AWSProfile}, {"aws_role_arn", &a.AWSRoleARN},
		{"azure_tenant_id", &a.AzureTenantID}, {"azure_scope", &a.AzureScope},
		{"gcp_impersonate_service_account", &a.GCPImpersonate},
	}
}

func (m iamAuthModel) unknown() bool {
	for _, v := range m.values() {
		if v.IsUnknown() {
			return true
		}
	}
	return false
}

func (m iamAuthModel) values() []types.String {
	return []types.String{m.Auth, m.AWSRegion, m.AWSProfile, m.AWSRoleARN, m.AzureTenantID, m.AzureScope, m.GCPImpersonate}
}

// cloudAuth reads the settings; "password" (the default) is the zero value.
func (m iamAuthModel) cloudAuth() dbclient.CloudAuth {
	var a dbclient.CloudAuth
	for i, f := range authFields(&a) {
		*f.v = m.values()[i].ValueString()
	}
	return normalAuth(a)
}

func (j iamAuthJSON) cloudAuth() dbclient.CloudAuth {
	return normalAuth(dbclient.CloudAuth{Method: dbclient.AuthMethod(j.Auth), AWSRegion: j.AWSRegion, AWSProfile: j.AWSProfile,
		AWSRoleARN: j.AWSRoleARN, AzureTenantID: j.AzureTenantID, AzureScope: j.AzureScope, GCPImpersonate: j.GCPImpersonate})
}

func normalAuth(a dbclient.CloudAuth) dbclient.CloudAuth {
	if a.Method == dbclient.AuthPassword {
		a.Method = ""
	}
	return a
}

// modelOfAuth is the Terraform shape of a (for import).
func modelOfAuth(a dbclient.CloudAuth) iamAuthModel {
	s := func(v string) types.String {
		if v == "" {
			return types.StringNull()
		}
		return types.StringValue(v)
	}
	return iamAuthModel{Auth: s(string(a.Method)), AWSRegion: s(a.AWSRegion), AWSProfile: s(a.AWSProfile), AWSRoleARN: s(a.AWSRoleARN),
		AzureTenantID: s(a.AzureTenantID), AzureScope: s(a.AzureScope), GCPImpersonate: s(a.GCPImpersonate)}
}

// encodeAuth is the ref's query fields for a (none under password login).
func encodeAuth(a dbclient.CloudAuth) string {
	var b strings.Builder
	for _, f := range authFields(&a) {
		if *f.v != "" {
			b.WriteString("&" + f.name + "=" + url.QueryEscape(*f.v))
		}
	}
	return b.String()
}

// parseAuthField sets one ref query field; false when key is not one.
func parseAuthField(a *dbclient.CloudAuth, key, v string) bool {
	for _, f := range authFields(a) {
		if f.name == key {
			*f.v = v
			return true
		}
	}
	return false
}

var (
	awsRegionPattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	// Compiled on first use: a counted repetition compiles into one state
	// per count, which every provider start would pay for at init (about a
	// millisecond each), and few configurations name a role or a tenant.
	awsRolePattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$`)
	})
	azureTenantID  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9.-]{1,256}$`) })
	gcpServiceAcct = regexp.MustCompile(`^[a-z][a-z0-9-]{4,29}@[a-z0-9.-]+\.iam\.gserviceaccount\.com$`)
)

// validateAuth checks a's settings against each other and the TLS mode.
// Tenant resources and the db_server run it at plan time.
func validateAuth(a dbclient.CloudAuth, tls string) error {
	only := map[dbclient.AuthMethod][]string{
		dbclient.AuthAWSRDSIAM:      {"aws_region", "aws_profile", "aws_role_arn"},
		dbclient.AuthAzureEntra:     {"azure_tenant_id", "azure_scope"},
		dbclient.AuthGCPCloudSQLIAM: {"gcp_impersonate_service_account"},
	}
	switch a.Method {
	case "", dbclient.AuthAWSRDSIAM, dbclient.AuthAzureEntra, dbclient.AuthGCPCloudSQLIAM:
	default:
		return fmt.Errorf("auth must be one of %s; got %q", strings.Join(dbclient.AuthMethods, ", "), a.Method)
	}
	for method, names := range only {
		for _, f := range authFields(&a) {
			if *f.v != "" && slices.Contains(names, f.name) && a.Method != method {
				return fmt.Errorf("%s is a setting of auth = %q, not of auth = %q", f.name, method, methodName(a.Method))
			}
		}
	}
	if !a.IAM() {
		return nil
	}
	if dbclient.TLSMode(tls) == dbclient.TLSDisable {
		return fmt.Errorf("auth = %q needs TLS: the login token is a bearer credential, and MySQL sends it with the "+
			"cleartext password plugin; set tls = \"require\", \"verify-ca\" or \"verify-full\" (the clouds' servers "+
			"accept a token only over TLS)", a.Method)
	}
	switch {
	case a.Method == dbclient.AuthAWSRDSIAM && a.AWSRegion == "":
		return fmt.Errorf("auth = %q needs aws_region, the region of the database the token is signed for (e.g. \"eu-west-1\")", a.Method)
	case a.AWSRegion != "" && !awsRegionPattern.MatchString(a.AWSRegion):
		return fmt.Errorf("aws_region %q is not an AWS region name (e.g. \"eu-west-1\")", a.AWSRegion)
	case a.AWSRoleARN != "" && !awsRolePattern().MatchString(a.AWSRoleARN):
		return fmt.Errorf("aws_role_arn %q is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)", a.AWSRoleARN)
	case a.AzureTenantID != "" && !azureTenantID().MatchString(a.AzureTenantID):
		return fmt.Errorf("azure_tenant_id %q is not an Entra tenant ID (a GUID or a domain)", a.AzureTenantID)
	case a.AzureScope != "" && (!strings.HasPrefix(a.AzureScope, "https://") || !strings.HasSuffix(a.AzureScope, "/.default")):
		return fmt.Errorf("azure_scope %q must be a resource's .default scope, e.g. %q", a.AzureScope, dbclient.AzureDefaultScope)
	case a.GCPImpersonate != "" && !gcpServiceAcct.MatchString(a.GCPImpersonate):
		return fmt.Errorf("gcp_impersonate_service_account %q is not a service account e-mail (name@project.iam.gserviceaccount.com)", a.GCPImpersonate)
	}
	return nil
}

func methodName(m dbclient.AuthMethod) string {
	if m == "" {
		return string(dbclient.AuthPassword)
	}
	return string(m)
}

// refuseStoredPassword: a server whose admin logs in with a token has no
// stored password, neither in admin_passwords nor in the environment
// fallback; one there is refused (a leftover that would otherwise sit
// unused, or a sign the configuration means another server).
func (d *providerData) refuseStoredPassword(server string, a dbclient.CloudAuth) error {
	if !a.IAM() || d == nil {
		return nil
	}
	if _, ok := d.passwords[server]; ok {
		return fmt.Errorf("server %q logs in with auth = %q (a token per connection, no stored password), but the "+
			"provider's admin_passwords has an entry for it: remove admin_passwords[%q]", server, a.Method, server)
	}
	if env := AdminPasswordEnv(server); env != "" && os.Getenv(env) != "" {
		return fmt.Errorf("server %q logs in with auth = %q (a token per connection, no stored password), but the "+
			"environment variable %s is set: unset it", server, a.Method, env)
	}
	return nil
}

// iamAuthAttributes are the db_server's auth arguments.
func iamAuthAttributes() map[string]schema.Attribute {
	only := func(method, what string) string {
		return what + " Only with `auth = \"" + method + "\"`. Not secret: it is part of `ref`."
	}
	opt := func(desc string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: v}
	}
	return map[string]schema.Attribute{
		"auth": opt("How the admin login proves itself. `password` (the default when omitted): the provider's "+
			"`admin_passwords` (or `TENANTDB_ADMIN_PASSWORD_<NAME>`). Cloud IAM, a short-lived token fetched for every new "+
			"connection and never stored, logged or cached past its expiry: `aws_rds_iam` (RDS and Aurora, MySQL, MariaDB "+
			"and PostgreSQL; credentials from the standard AWS chain), `azure_entra` (Azure Database for PostgreSQL and "+
			"MySQL flexible server; azidentity's default chain), `gcp_cloudsql_iam` (Cloud SQL for PostgreSQL and MySQL; "+
			"Google's application default credentials). With a cloud method the server needs TLS (`tls = \"disable\"` is "+
			"refused at plan time: MySQL sends the token with the cleartext password plugin) and has no entry in "+
			"`admin_passwords` nor its environment variable (refused). A token that cannot be had fails with an error "+
			"naming the cloud and the credential step, never a database error. Changing it updates this resource (which "+
			"tests the new login) and each tenant's `server` in place, with no SQL.",
			stringvalidator.OneOf(dbclient.AuthMethods...)),
		"aws_region": opt(only("aws_rds_iam", "The AWS region of the database, which the token is signed for (required "+
			"with `aws_rds_iam`), e.g. `eu-west-1`.")),
		"aws_profile": opt(only("aws_rds_iam", "A profile of the shared AWS configuration files to take credentials "+
			"from; the default chain (environment, shared files, web identity, container and instance role) otherwise.")),
		"aws_role_arn": opt(only("aws_rds_iam", "An IAM role to assume (STS AssumeRole) with the chain's credentials "+
			"before signing; the role needs `rds-db:connect` on the admin user.")),
		"azure_tenant_id": opt(only("azure_entra", "The Microsoft Entra tenant to get the token from; the credential's "+
			"own tenant otherwise.")),
		"azure_scope": opt(only("azure_entra", "The token's scope. Default `"+dbclient.AzureDefaultScope+"` (Azure's "+
			"public cloud); a sovereign cloud names its own (e.g. `https://ossrdbms-aad.database.chinacloudapi.cn/.default`).")),
		"gcp_impersonate_service_account": opt(only("gcp_cloudsql_iam", "A service account (e-mail) to impersonate with "+
			"the application default credentials; the database login (`username`) is then that service account's IAM user (PostgreSQL: "+
			"the e-mail without `.gserviceaccount.com`; MySQL: the part before `@`).")),
	}
}

// validateAuthConfig is the db_server's plan-time check of its auth
// settings, as far as they are known.
func validateAuthConfig(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	var m iamAuthModel
	var tls types.String
	for name, v := range map[string]*types.String{"auth": &m.Auth, "aws_region": &m.AWSRegion, "aws_profile": &m.AWSProfile,
		"aws_role_arn": &m.AWSRoleARN, "azure_tenant_id": &m.AzureTenantID, "azure_scope": &m.AzureScope,
		"gcp_impersonate_service_account": &m.GCPImpersonate, "tls": &tls} {
		diags.Append(cfg.GetAttribute(ctx, path.Root(name), v)...)
	}
	if diags.HasError() || m.unknown() || tls.IsUnknown() {
		return
	}
	mode := tls.ValueString()
	if tls.IsNull() {
		mode = string(dbclient.TLSRequire)
	}
	if err := validateAuth(m.cloudAuth(), mode); err != nil {
		addAttributeError(diags, path.Root("auth"), err)
	}
}
