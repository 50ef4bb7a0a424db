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
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	_ resource.ResourceWithConfigure    = &tenantGrantResource{}
	_ resource.ResourceWithImportState  = &tenantGrantResource{}
	_ resource.ResourceWithUpgradeState = &tenantGrantResource{}
	_ resource.ResourceWithModifyPlan   = &tenantGrantResource{}
)

// NewTenantGrantResource is the tenantdb_tenant_grant resource: privileges
// on one tenant database for a principal that already exists. It never
// creates, alters or drops a principal.
func NewTenantGrantResource() resource.Resource { return &tenantGrantResource{} }

type tenantGrantResource struct{ data *providerData }

type tenantGrantModel struct {
	ID         types.String `tfsdk:"id"`
	Server     types.String `tfsdk:"server"`
	Database   types.String `tfsdk:"database"`
	Username   types.String `tfsdk:"username"`
	Host       types.String `tfsdk:"host"`
	Privileges types.Set    `tfsdk:"privileges"`
}

// principalIdentityKey keeps the identity of the principal in private
// state; identityKey keeps the database's.
const principalIdentityKey = "p"

func (r *tenantGrantResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_grant"
}

func (r *tenantGrantResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "Privileges on one tenant database for a principal that **already exists** " +
			"(MySQL/MariaDB: the account `'username'@'host'`, `host` defaulting to `%`; PostgreSQL: a role). A grant never creates, alters or drops " +
			"the principal: if it does not exist the apply fails with `GrantUserMissing` and changes nothing, and the " +
			"same configuration succeeds once the principal exists. `privileges` is desired state in both directions, " +
			"scoped to this one database: missing privileges are granted first, then only the surplus is revoked, and " +
			"an out-of-band grant or revoke on the database (`WITH GRANT OPTION` included) shows as drift and is " +
			"corrected. Nothing is ever granted `WITH GRANT OPTION`. Destroy revokes everything the principal holds " +
			"on this database and nothing elsewhere; a principal that has meanwhile disappeared is not an error.\n\n" +
			"The grant records the identity of the database and of the principal when it is created or imported; " +
			"an update or destroy first checks both, so a principal (or database) dropped and re-created by someone " +
			"else is never granted to or revoked from: an update refuses (`IdentityMismatch`), a destroy revokes " +
			"nothing and warns. On MariaDB an account's only identity is when its password was last set, so a " +
			"password reset by the principal's administrator looks the same: the next refresh reports drift, removes " +
			"the grant from state, and the next apply grants again to the account as it is now.\n\n" +
			"**PostgreSQL.** A grant on a tenant database lets the principal do those operations on the tenant's " +
			"tables now and on tables the owner creates later. It means: `CONNECT` on the database; `USAGE` on the " +
			"tenant's schemas (those the database owner owns, and `public`); the table privileges on every table, " +
			"view and foreign table the owner has there now; and `ALTER DEFAULT PRIVILEGES FOR ROLE <owner> IN SCHEMA " +
			"...` so that tables the owner creates there later carry them too. `CREATE` and `TEMPORARY` are the " +
			"database privileges. All of it is read back from the catalogs (`pg_database`, `pg_namespace`, `pg_class`, " +
			"`pg_default_acl`): a privilege missing on one table, one schema or the default privileges is drift. A " +
			"schema's `USAGE` counts whether the principal's own or `PUBLIC`'s (PostgreSQL 15+ gives `PUBLIC` `USAGE` " +
			"on `public`), so an import reads what the principal can do; if a tenant revokes `PUBLIC`'s, that is drift " +
			"and the next apply grants the principal its own. `PUBLIC`'s `CONNECT` never counts. A " +
			"schema the owner creates after the grant shows as drift on the next refresh and the next apply covers " +
			"it. Sequences are not granted (identity columns need none; `serial` columns need `USAGE` on their " +
			"sequence). The default privileges follow the database's current owner, so no `depends_on` is needed: a " +
			"grant applied before its `tenantdb_tenant_owner` gives them for the admin (the owner then), and the owner " +
			"takes them over when it is created; a username rotation carries them to the new owner, and an owner's " +
			"destroy (PostgreSQL: the database retained) hands them to the database's keeper role. The admin grants as the owner: it must be a member of the owner " +
			"role (`tenantdb_tenant_owner` makes it one).\n\n" +
			"A grant never names the tenant owner's own login (`GrantUserReserved`, before any SQL): on PostgreSQL the " +
			"database's owner; on MySQL/MariaDB the login carrying the database's owner mark (the `MAX_UPDATES_PER_HOUR` " +
			"limit, 4,000,000,000 or more, that its `tenantdb_tenant_owner` sets when it creates the login; no login can " +
			"change its own, and a grant never sets one), whatever it holds, and an account with no mark that already " +
			"holds every database-level privilege on it (an owner made by an earlier version, or imported). A grant of " +
			"`ALL PRIVILEGES` made before the owner does not make its principal an owner.\n\n" +
			"**MySQL/MariaDB: a database dropped outside Terraform.** The server keeps the principal's grant rows for " +
			"the name after `DROP DATABASE`, and a database created later under that name would inherit them. While " +
			"they exist the grant stays in state (`DriftDetected`, naming the leak) and its destroy revokes them. A database " +
			"dropped and re-created under the name (its identity differs) inherits them: the refresh keeps the grant, " +
			"warns, and plans an update; the apply revokes the rows and refuses (`IdentityMismatch`, with the statement " +
			"it ran) instead of granting on a database the grant was never made for; destroy revokes them too. Before " +
			"refusing it revokes every other account's rows on the name as well (the owner's, other grants'), because " +
			"a resource that depends on it (`depends_on`) does not run after a refusal; the refusal names them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<server name>/<database>/<username>`, with `@<host>` when `host` is not `%`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"server": serverAttribute(),
			"database": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The tenant database (`tenantdb_tenant_database.<name>.name`). Cannot change " +
					"(`ImmutableAttribute`): a grant on another database is another grant. On MySQL/MariaDB `_` and `%` " +
					"in the name are escaped in the grant, so `acme_1` never reaches `acmeX1`.",
				Validators:    []validator.String{identifierValidator{kind: "database name"}},
				PlanModifiers: []planmodifier.String{immutableString("the grant's database")},
			},
			"username": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The principal, `^[A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}$`; it must already exist " +
					"(`GrantUserMissing`) and is never created. Not a system account (`root`, `mysql.sys`, `postgres`, " +
					"`pg_*`, ...), the server's admin login or one of its `reserved_usernames` (`GrantUserReserved`, at plan " +
					"time). Changing it replaces the grant: the old principal's privileges on the database are revoked and " +
					"the new one's granted.",
				Validators:    []validator.String{identifierValidator{kind: "username"}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"host": hostAttribute("Changing it moves the grant in place: the account at the new host is granted first, then " +
				"the account at the old host is revoked (a failure or a kill in between leaves the old host in state, and " +
				"the next apply does both again)."),
			"privileges": schema.SetAttribute{
				Required: true, ElementType: types.StringType,
				MarkdownDescription: "Privileges on the tenant database, case-insensitive: `[\"ALL PRIVILEGES\"]` alone, or " +
					"a list from the engine's allowlist (`PrivilegeNotAllowed` otherwise, at plan time). MySQL/MariaDB: " +
					"`SELECT`, `INSERT`, `UPDATE`, `DELETE`, `CREATE`, `DROP`, `ALTER`, `INDEX`, `REFERENCES`, `LOCK TABLES`, " +
					"`SHOW VIEW`, `TRIGGER`, `EVENT`, `EXECUTE`. PostgreSQL: `SELECT`, `INSERT`, `UPDATE`, `DELETE`, " +
					"`TRUNCATE`, `REFERENCES`, `TRIGGER` (on the tenant's tables, now and later) and `CREATE`, `TEMPORARY` " +
					"(on the database). Removing one revokes it on the next apply.",
				Validators: []validator.Set{privilegesValidator{}},
			},
		},
	}
}

func (r *tenantGrantResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// grantTarget is what every CRUD call of a grant is about, validated.
type grantTarget struct {
	ref   serverRef
	db    ddl.DatabaseName
	user  ddl.Username
	privs ddl.PrivilegeSet
}

// grantRules validates names, reserved principals and privileges for a
// known server: the same rules at plan time and again before any SQL.
// Unknown values are skipped (plan time). reserved false skips the reserved
// check (refresh and destroy of an existing grant must not fail because the
// principal was reserved since).
func grantRules(ctx context.Context, ref serverRef, m tenantGrantModel, reserved bool) (grantTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	t := grantTarget{ref: ref}
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
		} else if err = ref.reserved().CheckGrantee(t.user.String()); reserved && err != nil {
			addAttributeError(&diags, path.Root("username"), err)
		}
		t.user = withHost(e, t.user, m.Host, &diags)
	}
	if !m.Privileges.IsUnknown() && !m.Privileges.IsNull() && !containsUnknown(m.Privileges) {
		var names []string
		if d := m.Privileges.ElementsAs(ctx, &names, false); d.HasError() {
			diags.Append(d...)
		} else if t.privs, err = ddl.ParsePrivileges(e, names); err != nil {
			addAttributeError(&diags, path.Root("privileges"), err)
		}
	}
	return t, diags
}

func containsUnknown(s types.Set) bool {
	for _, e := range s.Elements() {
		if e.IsUnknown() {
			return true
		}
	}
	return false
}

// ModifyPlan applies the engine's rules as soon as the server is known and
// refuses a move to another server name or engine.
func (r *tenantGrantResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan tenantGrantModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, ok := planRef(plan.Server, &resp.Diagnostics)
	if !ok {
		return
	}
	t, diags := grantRules(ctx, ref, plan, true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() && !plan.Host.IsUnknown() {
		r.data.preflightGrant(ctx, t, &resp.Diagnostics)
	}
	if !req.State.Raw.IsNull() {
		var state tenantGrantModel
		resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
		stateRef, _, diags := refFromString(state.Server)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		refuseServerMove(&resp.Diagnostics, "grant", state.Database.ValueString()+"/"+state.Username.ValueString(), stateRef, ref)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if !plan.Database.IsUnknown() && !plan.Username.IsUnknown() && !plan.Host.IsUnknown() {
		plan.ID = types.StringValue(loginID(ref, plan.Database.ValueString(), plan.Username.ValueString(), plan.Host))
		resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.Plan.Raw)...)
	}
}

// target validates what a Read or Delete is about: the names only (the
// privileges in state may be drift, GRANT OPTION, or unknown).
func (r *tenantGrantResource) target(ctx context.Context, m tenantGrantModel) (grantTarget, diag.Diagnostics) {
	ref, diags := applyRef(m.Server)
	if diags.HasError() {
		return grantTarget{}, diags
	}
	m.Privileges = types.SetNull(types.StringType)
	t, d := grantRules(ctx, ref, m, false)
	diags.Append(d...)
	return t, diags
}

// changeTarget is target for Create and Update: the privileges must be
// known and the principal not reserved.
func (r *tenantGrantResource) changeTarget(ctx context.Context, m tenantGrantModel) (grantTarget, diag.Diagnostics) {
	ref, diags := applyRef(m.Server)
	if diags.HasError() {
		return grantTarget{}, diags
	}
	t, d := grantRules(ctx, ref, m, true)
	diags.Append(d...)
	if !diags.HasError() && t.privs.IsZero() {
		diags.AddAttributeError(path.Root("privileges"), "The privileges are not known",
			"privileges must be known at apply time.")
	}
	return t, diags
}

// grantIdentities reads both recorded identities from private state.
func grantIdentities(ctx context.Context, p privateReader) (dbclient.GrantIdentity, diag.Diagnostics) {
	var ids dbclient.GrantIdentity
	var diags, d diag.Diagnostics
	ids.Database, d = recordedIdentity(ctx, p)
	diags.Append(d...)
	ids.Principal, d = privateIdentity(ctx, p, principalIdentityKey)
	diags.Append(d...)
	return ids, diags
}

func recordGrantIdentities(ctx context.Context, p privateWriter, ids dbclient.GrantIdentity) diag.Diagnostics {
	diags := recordIdentity(ctx, p, ids.Database)
	diags.Append(recordPrivate(ctx, p, principalIdentityKey, ids.Principal)...)
	return diags
}

func (r *tenantGrantResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tenantGrantModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.changeTarget(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	srv, err := r.data.connectGrant(ctx, t.ref)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("connect to server %q", t.ref.Name), err)
		return
	}
	ids, err := srv.CreateGrant(ctx, t.db, t.user, t.privs)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("grant %v on database %q to %q", t.privs.Names(), t.db, t.user), err)
		return
	}
	warnHostNeverMatches(&resp.Diagnostics, srv.Info(), t.user, fmt.Sprintf("Grant on database %q", t.db))
	plan.ID = types.StringValue(loginID(t.ref, t.db.String(), t.user.String(), plan.Host))
	resp.Diagnostics.Append(recordGrantIdentities(ctx, resp.Private, ids)...)
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
}

func (r *tenantGrantResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state tenantGrantModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := grantIdentities(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	importing, diags := takeImporting(ctx, req.Private, resp.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	object := fmt.Sprintf("grant on database %q to %q on server %q", t.db, t.user, t.ref.Name)
	srv, err := r.data.connectGrant(ctx, t.ref)
	var st dbclient.GrantState
	if err == nil {
		readCtx := ctx
		if importing {
			readCtx = dbclient.FullGrantRead(ctx) // an import reads what the grant really is
		}
		st, err = srv.ReadGrant(readCtx, t.db, t.user)
	}
	if err != nil {
		if importing {
			addError(&resp.Diagnostics, fmt.Sprintf("import the %s (the server must be reachable to import)", object), err)
			return
		}
		addRefreshWarning(&resp.Diagnostics, object, "Its privileges are kept as last read; it stays in state.", err)
		return
	}
	if st.DatabaseInvalid {
		if importing {
			addError(&resp.Diagnostics, "import the "+object, ddl.ErrDatabaseInvalid(t.ref.Name, t.db))
			return
		}
		addDatabaseInvalidWarning(&resp.Diagnostics, object, t.db)
		return
	}
	if st.RowsOutliveDatabase && !importing {
		// The rows would hand the principal a database created later under
		// this name: the grant stays in state until its destroy revokes them.
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object, "The database no longer exists on the server "+
			"(dropped outside Terraform), but MySQL/MariaDB keep the principal's grant rows for its name, and a database "+
			"created later under that name would be readable by this principal. The grant stays in state so that its "+
			"destroy revokes the rows; remove the tenantdb_tenant_grant from the configuration (or destroy it) to revoke them.")
		state.Privileges = grantPrivilegesValue(ctx, srv.Info(), state.Privileges, st.Held, false)
		resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
		return
	}
	gone := ""
	switch {
	case !st.DatabaseFound:
		gone = "The database no longer exists on the server (dropped outside Terraform)."
	case !st.PrincipalFound:
		gone = "The principal no longer exists on the server (dropped outside Terraform). The next apply grants again " +
			"once it exists (GrantUserMissing until then)."
	}
	if gone != "" {
		if importing {
			addImportNotFoundError(&resp.Diagnostics, object, gone)
			return
		}
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object, gone+" The grant is removed from state.")
		resp.State.RemoveResource(ctx)
		return
	}
	if !importing {
		vDB := dbclient.Compare(recorded.Database, st.Identity.Database)
		vP := dbclient.HintedVerdict(dbclient.CompareLogins(recorded.Principal, st.Identity.Principal), st.PrincipalHint)
		switch {
		case recorded.Database == "" || recorded.Principal == "":
			// Never written without both (the resource is newer than
			// identities); a lost private state is treated as a mismatch.
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, "No identity is recorded for this grant, so "+
				"nothing proves the database and principal are the ones it was made for. State is kept as last read; "+
				"nothing will be granted or revoked. Remove it from state and import it to adopt what is there.")
			return
		case vDB == dbclient.OtherServer || vP == dbclient.OtherServer:
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.MismatchWhy(dbclient.OtherServer)+
				" State is kept as last read; nothing will be granted or revoked there.")
			return
		case vDB == dbclient.Replaced && srv.Info().Flavor != ddl.FlavorPostgres && len(st.Held.Any) > 0:
			// A tenantdb_tenant_database made the database there now (its
			// claim mark says so: the configuration re-created it after it
			// was dropped), and the grant's rows are on it: the grant is
			// that database's now (read on below, its identity recorded).
		case vDB == dbclient.Unproven && (!st.Identity.Database.Strong() || srv.Info().Flavor == ddl.FlavorMySQL):
			// Its mark gone or no longer counted (a missing proof is never
			// a replacement), or a MariaDB comment edited: maybe the same
			// database, maybe another. Kept with its recorded identity and
			// its rows, never granted on or revoked from until proven;
			// destroy revokes. (A MariaDB comment that is a claim mark is a
			// database a tenantdb_tenant_database made, re-created by the
			// configuration after a drop: read on below, recorded.)
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.MismatchWhyFor(recorded.Database, dbclient.Unproven)+
				" The grant stays in state with what it recorded and keeps its rows; nothing is granted or revoked "+
				"until the database's mark is given back (the tenantdb_tenant_database's warning gives the statement) "+
				"or the tenant is imported again, and a destroy revokes it. If the database was re-created, revoke "+
				"what it inherited now:\n\n  "+ddl.RevokeAllText(srv.Info(), t.db, t.user))
			state.Privileges = grantPrivilegesValue(ctx, srv.Info(), state.Privileges, st.Held, false)
			resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
			return
		case vDB == dbclient.Replaced:
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.MismatchWhy(dbclient.Replaced)+
				" The grant holds nothing on it, so it is removed from state; the next apply grants on the database that "+
				"is there now.")
			resp.State.RemoveResource(ctx)
			return
		case vP == dbclient.Unproven:
			// A MariaDB principal (or a MySQL one tenantdb did not create)
			// whose password was set since (it may set its own): kept with
			// its recorded identity, so destroy revokes.
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, "The principal's password was set since this "+
				"grant was made (by the principal itself, which any MariaDB login, or MySQL login tenantdb did not create, may do, by an administrator, or "+
				"because it was dropped and re-created outside Terraform): it may be another principal, not the one this "+
				"grant was made for, and nothing proves otherwise. The grant stays in state as last read; nothing is granted to it until it is adopted again "+
				"(terraform state rm, then import), and a destroy revokes what it holds on the database.")
			return
		case vP == dbclient.Replaced:
			addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.PrincipalMismatchWhy(dbclient.Replaced)+
				" The grant is removed from state; nothing was revoked from that principal. The next apply grants to "+
				"the principal that is there now.")
			resp.State.RemoveResource(ctx)
			return
		}
	}
	held := st.Held
	if st.Shallow {
		// The shallow PostgreSQL refresh read the database privileges only:
		// with CONNECT, the declared table privileges are taken as held.
		var names []string
		state.Privileges.ElementsAs(ctx, &names, false)
		declared, _ := ddl.ParsePrivileges(ddl.EnginePostgres, names)
		held = ddl.ShallowHeld(srv.Info(), st.Held.Any, declared)
	}
	state.Privileges = grantPrivilegesValue(ctx, srv.Info(), state.Privileges, held, importing)
	state.ID = types.StringValue(loginID(t.ref, t.db.String(), t.user.String(), state.Host))
	if importing {
		// Granting on the tenant's objects needs the owner's role; an import
		// only reads, the apply that changes the grant joins it
		// (import_join.go).
		toJoin, err := srv.DatabaseOwnerToJoin(ctx, t.db)
		if err != nil {
			addError(&resp.Diagnostics, fmt.Sprintf("import the %s (the admin must act as the owner of database %q)", object, t.db), err)
			return
		}
		resp.Diagnostics.Append(recordJoinPending(ctx, resp.Private, toJoin)...)
	}
	warnUnescapedGrant(ctx, srv, t.db, t.user, &resp.Diagnostics)
	resp.Diagnostics.Append(recordGrantIdentities(ctx, resp.Private, st.Identity)...)
	resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
}

// grantPrivilegesValue is what Read reports: the declared set when the
// server holds exactly that, otherwise what it really holds (drift).
func grantPrivilegesValue(ctx context.Context, info ddl.ServerInfo, current types.Set, held ddl.GrantHeld, importing bool) types.Set {
	var declared ddl.PrivilegeSet
	if !importing && !current.IsNull() && !current.IsUnknown() {
		var names []string
		current.ElementsAs(ctx, &names, false)
		if set, err := ddl.ParsePrivileges(info.Flavor.Engine(), names); err == nil {
			declared = set
		}
	}
	if importing {
		return privilegeSetValue(ddl.FromActual(info, held.Imported(info)).Names())
	}
	reported := held.Reported(info, declared)
	if declared.IsZero() || !declared.Equal(info, reported) {
		return privilegeSetValue(ddl.FromActual(info, reported).Names())
	}
	return current
}

func privilegeSetValue(names []string) types.Set {
	elems := make([]attr.Value, len(names))
	for i, n := range names {
		elems[i] = types.StringValue(n)
	}
	return types.SetValueMust(types.StringType, elems)
}

func (r *tenantGrantResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state tenantGrantModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := grantIdentities(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.changeTarget(ctx, plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Whatever fails below, state keeps what it said.
	keepOld := func(err error, doing string) {
		addError(&resp.Diagnostics, doing, err)
		resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
	}
	srv, err := r.data.connectGrant(ctx, t.ref)
	if err != nil {
		keepOld(err, fmt.Sprintf("connect to server %q", t.ref.Name))
		return
	}
	diags, err = joinRecordedOwner(ctx, req.Private, resp.Private, t.db, srv.JoinDatabaseOwner)
	resp.Diagnostics.Append(diags...)
	if err != nil {
		keepOld(err, fmt.Sprintf("join the owner role of database %q, as the grant's import found needed", t.db))
		return
	}
	old, oldDiags := r.target(ctx, state)
	recorded.Granted = grantedByGrantState(ctx, srv.Info(), state.Privileges)
	if !oldDiags.HasError() && old.user != t.user {
		// A host change: the new account first, then the old one.
		ids, err := moveGrantHost(ctx, srv, t, old.user, recorded)
		if err != nil {
			keepOld(err, fmt.Sprintf("move the grant on database %q from %s to %s", t.db, old.user.Quoted(), t.user.Quoted()))
			return
		}
		warnHostNeverMatches(&resp.Diagnostics, srv.Info(), t.user, fmt.Sprintf("Grant on database %q", t.db))
		resp.Diagnostics.Append(recordGrantIdentities(ctx, resp.Private, ids)...)
		plan.ID = types.StringValue(loginID(t.ref, t.db.String(), t.user.String(), plan.Host))
		resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
		return
	}
	// Every update (a privilege change, or a new address for the server)
	// checks both identities under the locks before anything runs.
	if err := srv.UpdateGrant(ctx, t.db, t.user, t.privs, recorded); err != nil {
		// A refusal on a re-created database names the other accounts'
		// rows there and revokes none (inherited_rows.go).
		err = nameOthers(ctx, srv, srv.Info(), t.db, recorded.Database, t.user, err)
		keepOld(err, fmt.Sprintf("set the privileges of %q on database %q to %v", t.user, t.db, t.privs.Names()))
		return
	}
	plan.ID = types.StringValue(loginID(t.ref, t.db.String(), t.user.String(), plan.Host))
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
}

func (r *tenantGrantResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tenantGrantModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := grantIdentities(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, state)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The object goes in the detail: destroying many grants folds their
	// warnings into one block.
	notRevoked := func(detail string) {
		addGrantNotRevokedWarning(&resp.Diagnostics,
			fmt.Sprintf("Grant on database %q to %q on server %q", t.db, t.user, t.ref.Name), detail)
	}
	if recorded.Database == "" || recorded.Principal == "" {
		notRevoked("No identity is recorded for this grant, so nothing proves the database and principal are the ones it was made for.")
		return
	}
	ctx, reportResets := offboarding(ctx, t.ref.Name, &resp.Diagnostics)
	defer reportResets()
	srv, err := r.data.connectGrant(ctx, t.ref)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("connect to server %q to revoke the grant on database %q to %q (it stays in state; destroy again when the server is reachable)",
			t.ref.Name, t.db, t.user), err)
		return
	}
	diags, err = joinRecordedOwner(ctx, req.Private, resp.Private, t.db, srv.JoinDatabaseOwner)
	resp.Diagnostics.Append(diags...)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("join the owner role of database %q to revoke the grant to %q (it stays in state)", t.db, t.user), err)
		return
	}
	recorded.Granted = grantedByGrantState(ctx, srv.Info(), state.Privileges)
	out, err := srv.RevokeGrant(ctx, t.db, t.user, recorded)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("revoke the grant on database %q to %q (it stays in state)", t.db, t.user), err)
		return
	}
	addNeverGrantedKeptWarning(&resp.Diagnostics, fmt.Sprintf("Grant on database %q to %q on server %q", t.db, t.user, t.ref.Name),
		out.Own, srv.Info(), t.db, t.user)
	if out.Outcome == dbclient.NotOurs {
		notRevoked(out.Why)
	}
}

func (r *tenantGrantResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, id, err := parseTenantImportID(req.ID)
	if err == nil {
		if _, err = ddl.NewDatabaseName(ref.engine(), id.Database); err == nil {
			var u ddl.Username
			if u, err = ddl.NewUsername(ref.engine(), id.Username); err == nil {
				err = ref.reserved().CheckGrantee(u.String())
			}
		}
	}
	if err == nil {
		err = id.checkHost(ref)
	}
	if err != nil {
		addError(&resp.Diagnostics, "import tenantdb_tenant_grant", fmt.Errorf("%w\n\nThe import ID is "+
			"jsonencode({ server = tenantdb_db_server.main.ref, database = \"acme_wms\", username = \"maester\" })", err))
		return
	}
	m := tenantGrantModel{
		ID:     types.StringValue(loginID(ref, id.Database, id.Username, id.hostValue())),
		Server: types.StringValue(ref.encode()), Database: types.StringValue(id.Database), Username: types.StringValue(id.Username),
		Host:       id.hostValue(),
		Privileges: types.SetUnknown(types.StringType),
	}
	// resp.State.Set, not the model codec (model_codec.go): the codec is
	// for the paths run once per resource per plan; an import runs once.
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(markImporting(ctx, resp.Private)...)
}

// UpgradeState: see state_upgrade.go.
func (r *tenantGrantResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return upgradeRefToString("server")
}
