// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	_ resource.ResourceWithConfigure      = &tenantOwnerResource{}
	_ resource.ResourceWithImportState    = &tenantOwnerResource{}
	_ resource.ResourceWithUpgradeState   = &tenantOwnerResource{}
	_ resource.ResourceWithModifyPlan     = &tenantOwnerResource{}
	_ resource.ResourceWithValidateConfig = &tenantOwnerResource{}
)

// NewTenantOwnerResource is the tenantdb_tenant_owner resource: the one
// login that owns a tenant database. It is the only principal tenantdb ever
// creates, and only because the caller supplies its password.
func NewTenantOwnerResource() resource.Resource { return &tenantOwnerResource{} }

type tenantOwnerResource struct{ data *providerData }

type tenantOwnerModel struct {
	ID                types.String `tfsdk:"id"`
	Server            types.String `tfsdk:"server"`
	Database          types.String `tfsdk:"database"`
	Username          types.String `tfsdk:"username"`
	Host              types.String `tfsdk:"host"`
	PasswordWO        types.String `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64  `tfsdk:"password_wo_version"`
	RetainPrevious    types.Bool   `tfsdk:"retain_previous_password"`
	PreviousRetained  types.Bool   `tfsdk:"previous_password_retained"`
	Privileges        types.Set    `tfsdk:"privileges"`
	UserCreated       types.Bool   `tfsdk:"user_created"`
	PreviousUsername  types.String `tfsdk:"previous_username"`
	ConnectionLimit   types.Int64  `tfsdk:"connection_limit"`
}

func (r *tenantOwnerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_owner"
}

func (r *tenantOwnerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "The one login that owns a tenant database. Create is a claim: `CREATE USER`/`CREATE ROLE` " +
			"without `IF NOT EXISTS`, so an existing login is refused (`PreExistingOwnerUser`) and its password is never " +
			"touched. On PostgreSQL the login becomes the database's owner (which implies every privilege on it); on " +
			"MySQL/MariaDB it is granted `privileges` on that database only. The password is write-only: it is never " +
			"stored, hashed or logged, and PostgreSQL receives a SCRAM-SHA-256 verifier computed by the provider. " +
			"Changing `username` rotates the login create-before-drop, in place. Destroy drops the login only if this " +
			"resource created it (`user_created`) and it is still that login; the database and its data stay. On " +
			"PostgreSQL the login is locked out first (`NOLOGIN`, its sessions ended), then the database and everything " +
			"in it go to the database's keeper role (`tenantdb_claim_k` and 16 hex digits, `NOLOGIN`, no attribute, held " +
			"by the admin alone), never to the admin, so no tenant code runs with the admin's rights: the tenant can no " +
			"longer log in or own anything, and its `SECURITY DEFINER` functions, views, rules, triggers, defaults, " +
			"policies, expression indexes and materialized views run, for a grantee, `PUBLIC` or maintenance, with at " +
			"most the keeper's rights in that one database (no role, database, password or server file reached; the " +
			"offboarding guide lists each kind); a new owner " +
			"declared for the database later takes everything from the keeper, which is dropped. Usernames starting " +
			"with `tenantdb_claim_` are reserved. " +
			"The login's identity (PostgreSQL: its OID; MariaDB: when its password was last set, to the second; MySQL " +
			"8.0.21+: a claim mark recorded in tenantdb's ledger, with the user ATTRIBUTE as a hint) is recorded in private state and checked before every " +
			"change or drop: a login re-created by someone else is never altered or dropped (on MariaDB, one re-created " +
			"within the same second as the original cannot be told apart; an out-of-band password reset there makes " +
			"the login look replaced, so tenantdb then leaves it alone until it is imported again).\n\n" +
			"**MySQL logins that define views, routines, triggers or events.** MySQL 8.0.22+ refuses to drop such a " +
			"login without `SET_ANY_DEFINER`, which the admin must not hold. Destroy then revokes every privilege it " +
			"held on the database, locks it (`ACCOUNT LOCK`) and removes the resource from state with a warning that " +
			"lists what it defines and gives the `DROP USER` for once it defines nothing (a `DROP DATABASE` removes " +
			"what it defines there). A username rotation keeps the old login in `previous_username`, locked but " +
			"holding its privileges (so the tenant's definer-rights objects keep working), until its objects are " +
			"re-created as the new owner.\n\n" +
			"**MySQL/MariaDB owner mark.** These engines have no database owner, so the login is created with its " +
			"database's owner mark: `WITH MAX_UPDATES_PER_HOUR <n>`, n between 4,000,000,000 and 4,268,435,455, derived " +
			"from the database name (a limit no workload reaches). No login can change its own limits and a " +
			"`tenantdb_tenant_grant` never sets one, so the mark, not what a login holds, tells the owner from a grantee: " +
			"a grant to the owner's login is refused whatever the owner's `privileges`, and a grantee of `ALL PRIVILEGES` " +
			"is never taken for a second owner (`OwnerConflict` names only a login carrying the mark). A DBA who resets " +
			"the limit removes the mark; an imported owner, or one made by an earlier version, carries none.\n\n" +
			"**A database re-created under its name (MySQL/MariaDB).** The owner records its database's identity. When " +
			"the database there is another one, the login's privilege rows for the name (which the new database " +
			"inherited) are shown in the plan as held on nothing, and the apply revokes them and refuses " +
			"(`IdentityMismatch`), after revoking every other account's rows on the name as well (a grant that depends on " +
			"the owner does not run after the refusal; the refusal names them); a destroy that does not drop the login " +
			"(imported) revokes them too.\n\n" +
			"**A login MySQL kept as a definer, declared again.** `CREATE USER` of a login that defines objects " +
			"fails with 4006: it is refused as `PreExistingOwnerUser`, saying it is a kept definer, with the import " +
			"block and the `DROP USER`. The apply after its import sets its password and unlocks it (`ACCOUNT " +
			"UNLOCK`): the configuration declares a login the tenant logs in with.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<server name>/<database>/<username>`, with `@<host>` when `host` is not `%`.",
			},
			"server": serverAttribute(),
			"database": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The tenant database (`tenantdb_tenant_database.<name>.name`). Cannot change " +
					"(`ImmutableAttribute`): moving an owner to another database is a migration.",
				Validators:    []validator.String{identifierValidator{kind: "database name"}},
				PlanModifiers: []planmodifier.String{immutableString("the owner's database")},
			},
			"username": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The owner login, `^[A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}$` (MySQL/MariaDB: the account `'username'@'host'`, see `host`). " +
					"Not a system account, the server's admin login or one of its `reserved_usernames` (`OwnerUserReserved`). " +
					"Changing it rotates the login in place, create-before-drop: the new login is created with the current " +
					"password and granted (on PostgreSQL it takes over the database, what the old login owns there, and its " +
					"default privileges of every kind), then the old login is dropped. A failure before the drop undoes the " +
					"handover: the old login owns and connects as before. If only the drop fails, the old name stays in " +
					"`previous_username` and every later apply (and destroy) retries it; until then the old login keeps its " +
					"password, and on MySQL/MariaDB its privileges (on PostgreSQL the database already belongs to the new " +
					"login, so the old one cannot reach it).",
				Validators: []validator.String{identifierValidator{kind: "username"}},
			},
			"host": hostAttribute("Changing it moves the login to the new host create-before-drop, as a `username` " +
				"change does (the new account is created with the current password and granted, then the old one is " +
				"dropped; kill-safe in the same way), so the tenant keeps working throughout."),
			"password_wo": schema.StringAttribute{
				Required: true, WriteOnly: true, Sensitive: true,
				MarkdownDescription: "The owner's password, write-only: never stored in state or plans. Pass it from an " +
					"ephemeral resource (e.g. `ephemeral.random_password.x.result`) or an `ephemeral = true` variable. " +
					"Changing only this value changes nothing: bump `password_wo_version` to set the new password.",
			},
			"password_wo_version": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Bump to rotate the password: each change runs exactly one password change with the " +
					"current `password_wo`. The version is the only fingerprint of the password in state.",
			},
			"retain_previous_password": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "MySQL 8.0.14+ only (ignored on MariaDB and PostgreSQL, which have no dual " +
					"passwords): a `password_wo_version` bump keeps the old password valid too (`RETAIN CURRENT PASSWORD`) " +
					"so clients can switch without an outage; the next apply discards it (`DISCARD OLD PASSWORD`). See " +
					"`previous_password_retained`.",
			},
			"previous_password_retained": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "True while an old password is still valid after a rotation with " +
					"`retain_previous_password` (MySQL 8.0.14+); the next apply discards it and sets this to false.",
			},
			"privileges": schema.SetAttribute{
				Optional: true, Computed: true, ElementType: types.StringType,
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType, []attr.Value{types.StringValue(string(ddl.AllPrivileges))})),
				MarkdownDescription: "Database-level privileges on the tenant database only; default `[\"ALL PRIVILEGES\"]`. " +
					"Desired state: widening grants first, narrowing grants the new set then revokes the surplus, and an " +
					"out-of-band change shows as drift and is corrected. On PostgreSQL it must be `[\"ALL PRIVILEGES\"]`: " +
					"the owner owns the database, which implies every privilege (use `tenantdb_tenant_grant` for narrower " +
					"access). Never granted `WITH GRANT OPTION`.",
				Validators: []validator.Set{privilegesValidator{}},
			},
			"connection_limit": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "How many sessions the owner login may hold at once, set on the login itself, where the " +
					"tenant cannot lift it: PostgreSQL `ALTER ROLE … CONNECTION LIMIT n` (changing it needs `CREATEROLE`); " +
					"MySQL/MariaDB `ALTER USER … WITH MAX_USER_CONNECTIONS n` on the owner's account at its `host` (needs " +
					"`CREATE USER`, even bundled with the login's own password change). Between 1 and 2147483647. Null (the " +
					"default) is no limit of the login's own: PostgreSQL `-1`, MySQL/MariaDB `0` (the server's " +
					"`max_user_connections`); 0 is refused because it means opposite things on the engines (PostgreSQL: no " +
					"connection at all). Desired state in both directions: a limit changed outside Terraform shows in the plan " +
					"and the apply restores the declared one (null restores none). A `username` or `host` change creates the " +
					"new login with the limit before the old one is dropped; an import reads it. It never shares a field with " +
					"tenantdb's marks (the MySQL/MariaDB owner mark is `MAX_UPDATES_PER_HOUR`), and offboarding does not " +
					"depend on it: the admin never connects as the owner, so sessions at the limit stop no destroy. A " +
					"PostgreSQL database's own `CONNECTION LIMIT` is not offered: the database's owner, the tenant, may " +
					"change it.",
				Validators: []validator.Int64{connectionLimitValidator{}},
			},
			"user_created": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "True when this resource created the login. Imported owners have `false` and are " +
					"never dropped: on MySQL/MariaDB their destroy revokes every privilege the login holds on the " +
					"database (what this resource declared for it) and leaves the login, with a warning that gives its " +
					"`DROP USER`; on PostgreSQL the imported login keeps owning the database (no SQL runs), with a warning that " +
					"gives the statements handing it to the admin.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"previous_username": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Old logins this resource created whose drop after a username rotation has not " +
					"succeeded yet, oldest first, separated by `, `: each stays recorded (with its identity) through any " +
					"number of further rotations until an apply or destroy really drops it. Null otherwise.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *tenantOwnerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig requires password_wo_version with password_wo, as the
// AWS and TFE providers require the pair: a write-only value is never in
// state, so changing password_wo alone plans nothing, and without a version
// there is nothing to bump when the password must change.
func (r *tenantOwnerResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var version types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo_version"), &version)...)
	if resp.Diagnostics.HasError() || !version.IsNull() {
		return
	}
	resp.Diagnostics.AddAttributeError(path.Root("password_wo_version"), "Missing password_wo_version",
		"password_wo is write-only: it is never stored, so changing it alone plans nothing. Set password_wo_version "+
			"(for example 1) and bump it whenever the password must change; each bump sets the current password_wo once.")
}

// ownerTarget is what every CRUD call of an owner is about, validated.
type ownerTarget struct {
	ref   serverRef
	db    ddl.DatabaseName
	user  ddl.Username
	privs ddl.PrivilegeSet
	limit ddl.ConnectionLimit // none when null
}

// ownerRules validates names, privileges and reserved accounts for a known
// server: the same rules at plan time and again before any SQL.
func ownerRules(ctx context.Context, ref serverRef, m tenantOwnerModel) (ownerTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	t := ownerTarget{ref: ref}
	e := ref.engine()
	var err error
	if !m.Database.IsUnknown() {
		if t.db, err = ddl.NewDatabaseName(e, m.Database.ValueString()); err != nil {
			addAttributeError(&diags, path.Root("database"), err)
		}
	}
	if !m.Username.IsUnknown() {
		if t.user, err = ddl.NewUsername(e, m.Username.ValueString()); err != nil {
			addAttributeError(&diags, path.Root("username"), err)
		} else if err = ref.reserved().CheckOwner(t.user.String()); err != nil {
			// Reserved by user name, at any host.
			addAttributeError(&diags, path.Root("username"), err)
		}
		t.user = withHost(e, t.user, m.Host, &diags)
	}
	if !m.Privileges.IsUnknown() && !m.Privileges.IsNull() {
		var names []string
		diags.Append(m.Privileges.ElementsAs(ctx, &names, false)...)
		if t.privs, err = ddl.ParsePrivileges(e, names); err != nil {
			addAttributeError(&diags, path.Root("privileges"), err)
		} else if e == ddl.EnginePostgres && !t.privs.IsAll() {
			addAttributeError(&diags, path.Root("privileges"), ddl.ErrPostgresOwnerPrivileges(names))
		}
	}
	if !m.ConnectionLimit.IsUnknown() && !m.ConnectionLimit.IsNull() {
		if t.limit, err = ddl.NewConnectionLimit(m.ConnectionLimit.ValueInt64()); err != nil {
			addAttributeError(&diags, path.Root("connection_limit"), err)
		}
	}
	return t, diags
}

// ModifyPlan applies the engine's rules as soon as the server is known,
// refuses what cannot change in place, and plans the computed values.
func (r *tenantOwnerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan tenantOwnerModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, ok := planRef(plan.Server, &resp.Diagnostics)
	if !ok {
		return
	}
	t, diags := ownerRules(ctx, ref, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Database.IsUnknown() && !plan.Username.IsUnknown() && !plan.Host.IsUnknown() {
		plan.ID = types.StringValue(loginID(ref, plan.Database.ValueString(), plan.Username.ValueString(), plan.Host))
	}
	if req.State.Raw.IsNull() {
		if !plan.Host.IsUnknown() {
			r.data.preflightOwner(ctx, t, &resp.Diagnostics)
			r.data.preflightPassword(ctx, t, req.Config, &resp.Diagnostics)
		}
		plan.UserCreated = types.BoolUnknown()
		plan.PreviousUsername = types.StringNull()
		plan.PreviousRetained = types.BoolValue(false)
		resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.Plan.Raw)...)
		return
	}
	var state tenantOwnerModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	stateRef, _, diags := refFromString(state.Server)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	refuseServerMove(&resp.Diagnostics, "login", state.Username.ValueString(), stateRef, ref)
	// An import recorded a role the admin must join: the apply joins it,
	// even when nothing else changes (import_join.go).
	if _, pending, d := joinPending(ctx, req.Private); pending && !d.HasError() {
		plan.UserCreated = types.BoolUnknown()
	}
	if ledgerPending(ctx, req.Private) {
		plan.UserCreated = types.BoolUnknown()
		addLedgerPlannedWarning(&resp.Diagnostics, fmt.Sprintf("login %q on server %q", state.Username.ValueString(), ref.Name))
	}
	// A retained old password is discarded by the next apply; a bump with
	// retain_previous_password may retain one again (MySQL 8.0.14+ only).
	plan.PreviousRetained = types.BoolValue(false)
	if !plan.PasswordWOVersion.Equal(state.PasswordWOVersion) && plan.RetainPrevious.ValueBool() {
		plan.PreviousRetained = types.BoolUnknown()
	}
	// A rotation, or a pending drop of a rotated-out login, decides
	// previous_username only when applied.
	moved := !plan.Username.Equal(state.Username) || !sameHost(plan.Host, state.Host)
	if (moved || !plan.PasswordWOVersion.Equal(state.PasswordWOVersion)) && !plan.Host.IsUnknown() {
		r.data.preflightPassword(ctx, t, req.Config, &resp.Diagnostics) // a rotation sets the password
	}
	if moved || !state.PreviousUsername.IsNull() {
		plan.PreviousUsername = types.StringUnknown()
		if moved {
			plan.UserCreated = types.BoolUnknown()
		}
	}
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.Plan.Raw)...)
}

func (r *tenantOwnerResource) target(ctx context.Context, m tenantOwnerModel) (ownerTarget, diag.Diagnostics) {
	ref, diags := applyRef(m.Server)
	if diags.HasError() {
		return ownerTarget{}, diags
	}
	t, d := ownerRules(ctx, ref, m)
	diags.Append(d...)
	return t, diags
}

// password reads the write-only password from the configuration.
func ownerPassword(ctx context.Context, cfg interface {
	GetAttribute(context.Context, path.Path, interface{}) diag.Diagnostics
}, diags *diag.Diagnostics) (ddl.Password, bool) {
	var pw types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("password_wo"), &pw)...)
	if diags.HasError() {
		return ddl.Password{}, false
	}
	if pw.IsNull() || pw.IsUnknown() {
		diags.AddAttributeError(path.Root("password_wo"), "The owner's password is not known",
			"password_wo must be known at apply time (an ephemeral resource or variable is fine).")
		return ddl.Password{}, false
	}
	p, err := ddl.NewPassword(pw.ValueString())
	if err != nil {
		addAttributeError(diags, path.Root("password_wo"), err)
		return ddl.Password{}, false
	}
	return p, true
}

func (r *tenantOwnerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tenantOwnerModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	pw, ok := ownerPassword(ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	srv, ok := r.data.connectOrReport(ctx, t.ref, &resp.Diagnostics)
	if !ok {
		return
	}
	id, err := srv.ClaimOwner(ctx, t.db, t.user, pw, t.privs, t.limit)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("create owner login %q for database %q", t.user, t.db), err)
		return
	}
	warnHostNeverMatches(&resp.Diagnostics, srv.Info(), t.user, fmt.Sprintf("Owner of database %q", t.db))
	plan.ID = types.StringValue(loginID(t.ref, t.db.String(), t.user.String(), plan.Host))
	plan.UserCreated = types.BoolValue(true)
	plan.PreviousUsername = types.StringNull()
	plan.PreviousRetained = types.BoolValue(false)
	resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, id)...)
	resp.Diagnostics.Append(recordOwnerDatabase(ctx, srv, t.db, resp.Private)...)
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
}

func (r *tenantOwnerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state tenantOwnerModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	names := state
	names.Privileges = types.SetNull(types.StringType)
	t, diags := r.target(ctx, names)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	object := fmt.Sprintf("login %q on server %q", t.user, t.ref.Name)
	importing, diags := takeImporting(ctx, req.Private, resp.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	srv, err := r.data.connect(ctx, t.ref)
	var st *dbclient.OwnerState
	if err == nil {
		st, err = srv.Owner(ctx, t.db, t.user)
	}
	if err != nil {
		if importing {
			addError(&resp.Diagnostics, fmt.Sprintf("import %s (the server must be reachable to import)", object), err)
			return
		}
		addRefreshWarning(&resp.Diagnostics, object, "Its attributes are kept as last read; it stays in state.", err)
		return
	}
	if st != nil && st.DatabaseInvalid {
		if importing {
			addError(&resp.Diagnostics, "import "+object, ddl.ErrDatabaseInvalid(t.ref.Name, t.db))
			return
		}
		addDatabaseInvalidWarning(&resp.Diagnostics, object, t.db)
		return
	}
	if st == nil && !importing {
		if succ, user := rotationSuccessor(ctx, srv, t, recorded, &state, &resp.Diagnostics); succ != nil {
			st, t.user, recorded = succ, user, succ.Identity
			object = fmt.Sprintf("login %q on server %q", t.user, t.ref.Name)
		}
	}
	if st == nil {
		if importing {
			addImportNotFoundError(&resp.Diagnostics, object, "No login of that name exists on the server.")
			return
		}
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object,
			"The login no longer exists on the server (dropped outside Terraform). It is removed from state; the next "+
				"apply creates it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	if recorded != "" {
		v := dbclient.HintedVerdict(dbclient.CompareLogins(recorded, st.Identity), st.Hint)
		if v == dbclient.Unproven {
			// Its password was set since; its owner mark may still prove it ours.
			if proven, err := srv.OwnerMarkProves(ctx, t.db, t.user); err == nil && proven {
				v = dbclient.Same
			}
		}
		switch v {
		case dbclient.Replaced:
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object,
				"A login of that name exists, but it is not the one this resource created or imported (dropped and "+
					"re-created outside Terraform, or on MariaDB its password was reset by someone else). It is removed "+
					"from state and will never be altered or dropped by this resource; the next apply refuses it "+
					"(PreExistingOwnerUser) unless you adopt it with terraform import.")
			resp.State.RemoveResource(ctx)
			return
		case dbclient.OtherServer:
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.MismatchWhy(v)+
				" State is kept as last read; nothing will be altered or dropped there.")
			return
		case dbclient.Unproven:
			// Nothing is forgotten before it is revoked: it stays in state,
			// so destroy still revokes what this resource granted it.
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.LoginUnprovenWhy+fmt.Sprintf(" It stays "+
				"in state as last read: its password and privileges are not changed by this resource until it is "+
				"adopted again (terraform state rm, then import), and destroy revokes its privileges on database %q "+
				"and leaves the login, with the statement that drops it for you to judge.", t.db))
			return
		}
	}
	state.Privileges = ownerPrivilegesValue(srv.Info(), state.Privileges, st)
	state.ConnectionLimit = types.Int64PointerValue(st.ConnectionLimit)
	if st.LockedOut && state.UserCreated.ValueBool() {
		// An offboarding interrupted after its lock-out, the owner
		// declared again: drift, so the next apply lets it in
		// (SyncOwnerPrivileges).
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object, "The login may not log in (NOLOGIN), as an "+
			"offboarding that was interrupted leaves it (or someone set it outside Terraform). The configuration "+
			"declares it, so the next apply lets it log in again.")
		state.Privileges = types.SetValueMust(types.StringType, nil)
	}
	readOwnerDatabase(ctx, srv, t, req.Private, resp.Private, object, &resp.Diagnostics)
	pending, diags := readPendingLogins(ctx, req.Private, state.PreviousUsername)
	resp.Diagnostics.Append(diags...)
	pending = pending.withHalfMade(st.HalfMade)
	if len(pending) > 0 {
		for _, p := range pending {
			if prev, err := ddl.ParseAccountKey(t.ref.engine(), p.Name); err == nil {
				if _, found, err := srv.LoginIdentity(ctx, prev); err == nil && !found {
					pending = pending.without(p.Name)
				}
			}
		}
		state.PreviousUsername = pending.value()
		resp.Diagnostics.Append(pending.record(ctx, resp.Private)...)
	}
	if importing {
		state.UserCreated = types.BoolValue(false)
		// The admin manages the imported tenant as its owner (PostgreSQL),
		// as the owner's create gives it; an import only reads, so the role
		// to join is recorded and the apply that follows joins it
		// (import_join.go). 16+: an owner the admin does not administer is
		// refused here, by a read.
		toJoin, err := srv.DatabaseOwnerToJoin(ctx, t.db)
		if err != nil {
			addError(&resp.Diagnostics, fmt.Sprintf("import %s (the admin must act as the owner of database %q)", object, t.db), err)
			return
		}
		if toJoin == t.user.String() {
			resp.Diagnostics.Append(recordJoinPending(ctx, resp.Private, toJoin)...)
		}
	}
	warnUnescapedGrant(ctx, srv, t.db, t.user, &resp.Diagnostics)
	// A login an earlier version made, still as recorded: the next apply
	// writes its ledger row (owner_ledger_pending.go).
	resp.Diagnostics.Append(recordLedgerPending(ctx, resp.Private,
		st.Hint && !importing && state.UserCreated.ValueBool() && st.Identity == recorded)...)
	resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, st.Identity)...)
	resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
}

// ownerPrivilegesValue is what Read reports: the declared set when the
// server holds exactly that, otherwise what it really holds (drift).
func ownerPrivilegesValue(info ddl.ServerInfo, declared types.Set, st *dbclient.OwnerState) types.Set {
	if !declared.IsUnknown() && !declared.IsNull() {
		var names []string
		declared.ElementsAs(context.Background(), &names, false)
		if set, err := ddl.ParsePrivileges(info.Flavor.Engine(), names); err == nil && set.Equal(info, st.Privileges) {
			return declared
		}
	}
	names := ddl.FromActual(info, st.Privileges).Names()
	elems := make([]attr.Value, len(names))
	for i, n := range names {
		elems[i] = types.StringValue(n)
	}
	return types.SetValueMust(types.StringType, elems)
}

func (r *tenantOwnerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tenantOwnerModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	pending, diags := readPendingLogins(ctx, req.Private, state.PreviousUsername)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Privileges = types.SetNull(types.StringType) // as read, not as declared
	t, diags := r.target(ctx, state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(pending) == 0 && !state.UserCreated.ValueBool() && t.ref.engine() == ddl.EnginePostgres {
		// An imported owner is never dropped, and keeps the database it
		// owns: no connection, no SQL; the warning gives the hand-back.
		addImportedOwnerStillOwnsWarning(&resp.Diagnostics, t.ref.Name, t.user, t.db)
		return
	}
	ctx, reportResets := offboarding(ctx, t.ref.Name, &resp.Diagnostics)
	defer reportResets()
	srv, err := r.data.connect(ctx, t.ref)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("connect to server %q to destroy owner login %q (it stays in state; destroy again when the server is reachable)", t.ref.Name, t.user), err)
		return
	}
	if still := dropPendingLogins(ctx, srv, t, pending, true, &resp.Diagnostics); len(still) > 0 {
		addOldLoginsLeftError(&resp.Diagnostics, still.value().ValueString(), t.db)
		state.PreviousUsername = still.value()
		resp.Diagnostics.Append(still.record(ctx, resp.Private)...)
		resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
		return
	}
	if !state.UserCreated.ValueBool() {
		revokeImportedOwner(ctx, srv, t, recorded, &resp.Diagnostics) // never dropped
		return
	}
	out, err := srv.DropOwner(ctx, t.db, t.user, recorded, grantedByState(srv.Info(), t.privs, true))
	if k := definerKept(err); k != nil {
		addDefinerKeptWarning(&resp.Diagnostics, k) // revoked and locked: see its comment
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("drop login %q (it stays in state)", t.user), err)
		return
	}
	switch out.Outcome {
	case dbclient.RevokedOnly:
		why := dbclient.MismatchWhy(out.Check.Verdict)
		if out.Check.Verdict == dbclient.Unproven {
			why = dbclient.LoginUnprovenWhy
		}
		addLoginNotDroppedWarning(&resp.Diagnostics, t.user, fmt.Sprintf("%s So it was not dropped, but every "+
			"privilege tenantdb granted it on database %q was revoked. The login itself remains; the resource is "+
			"removed from state. If it is the tenant's own login, drop it:\n\n  %s",
			why, t.db, ddl.DropUserStatement(t.user)))
		addNeverGrantedKeptWarning(&resp.Diagnostics, fmt.Sprintf("Owner login %q on server %q", t.user, t.ref.Name),
			out.Own, srv.Info(), t.db, t.user)
	case dbclient.NotOurs:
		addLoginNotDroppedWarning(&resp.Diagnostics, t.user,
			dbclient.MismatchWhy(out.Check.Verdict)+" Nothing was dropped; the resource is removed from state.")
	}
}

func (r *tenantOwnerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, id, err := parseTenantImportID(req.ID)
	if err == nil {
		if _, err = ddl.NewDatabaseName(ref.engine(), id.Database); err == nil {
			_, err = ddl.NewUsername(ref.engine(), id.Username)
		}
	}
	host := id.hostValue()
	if err == nil {
		err = id.checkHost(ref)
	}
	if err != nil {
		addError(&resp.Diagnostics, "import tenantdb_tenant_owner", fmt.Errorf("%w\n\nThe import ID is "+
			"jsonencode({ server = tenantdb_db_server.main.ref, database = \"acme_wms\", username = \"acme_app\" }), "+
			"with host = \"10.20.%%\" for a MySQL/MariaDB account at another host than %%", err))
		return
	}
	m := tenantOwnerModel{
		ID:     types.StringValue(loginID(ref, id.Database, id.Username, host)),
		Server: types.StringValue(ref.encode()), Database: types.StringValue(id.Database), Username: types.StringValue(id.Username),
		Host:       host,
		PasswordWO: types.StringNull(), PasswordWOVersion: types.Int64Null(),
		RetainPrevious: types.BoolValue(false), PreviousRetained: types.BoolValue(false),
		Privileges: types.SetUnknown(types.StringType), UserCreated: types.BoolValue(false),
		PreviousUsername: types.StringNull(), ConnectionLimit: types.Int64Null(),
	}
	// resp.State.Set, not the model codec (model_codec.go): the codec is
	// for the paths run once per resource per plan; an import runs once.
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(markImporting(ctx, resp.Private)...)
}

// UpgradeState: see state_upgrade.go.
func (r *tenantOwnerResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return upgradeRefToString("server")
}
