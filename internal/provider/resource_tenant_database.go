// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	_ resource.ResourceWithConfigure      = &tenantDatabaseResource{}
	_ resource.ResourceWithImportState    = &tenantDatabaseResource{}
	_ resource.ResourceWithUpgradeState   = &tenantDatabaseResource{}
	_ resource.ResourceWithModifyPlan     = &tenantDatabaseResource{}
	_ resource.ResourceWithValidateConfig = &tenantDatabaseResource{}
)

const (
	deletionRetain = "retain"
	deletionDelete = "delete"
)

// NewTenantDatabaseResource is the tenantdb_tenant_database resource.
func NewTenantDatabaseResource() resource.Resource { return &tenantDatabaseResource{} }

type tenantDatabaseResource struct{ data *providerData }

type tenantDatabaseModel struct {
	ID              types.String `tfsdk:"id"`
	Server          types.String `tfsdk:"server"`
	Name            types.String `tfsdk:"name"`
	CharacterSet    types.String `tfsdk:"character_set"`
	Collation       types.String `tfsdk:"collation"`
	DeletionPolicy  types.String `tfsdk:"deletion_policy"`
	DatabaseCreated types.Bool   `tfsdk:"database_created"`
}

func (r *tenantDatabaseResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tenant_database"
}

func (r *tenantDatabaseResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Version: schemaVersion,
		MarkdownDescription: "One tenant database. Create is a claim: `CREATE DATABASE` without `IF NOT EXISTS`, so an " +
			"existing database is refused (`DatabasePreExists`) rather than adopted; adopt one only with `terraform import`. " +
			"On PostgreSQL the database is isolated from `PUBLIC`. Destroy drops nothing unless `deletion_policy = \"delete\"` " +
			"**and** this resource created the database (`database_created`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true, MarkdownDescription: "`<server name>/<database name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"server": serverAttribute(),
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Database name, `^[A-Za-z0-9_]{1,64}$` (PostgreSQL: at most 63 bytes); not a system " +
					"schema, and not starting `tenantdb_claim_` in any case (the provider's scratch names). Cannot change (`ImmutableAttribute`): renaming a tenant is a migration.",
				Validators:    []validator.String{identifierValidator{kind: "database name"}},
				PlanModifiers: []planmodifier.String{immutableString("the database name")},
			},
			"character_set": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Character set (PostgreSQL: encoding, in any spelling the server accepts, e.g. `UTF8`, " +
					"`utf8`, `UTF-8`). When creating: `utf8mb4` on MySQL/MariaDB and `UTF8` on PostgreSQL if omitted; with " +
					"only `collation` given on MySQL/MariaDB, the collation's character set. Compared as the server compares " +
					"names (case; aliases such as `utf8` = `utf8mb3`), keeping your spelling. Left out of the configuration, " +
					"it is whatever the server has: nothing is altered because it is omitted. Changed in place on " +
					"MySQL/MariaDB (`ALTER DATABASE`); PostgreSQL cannot change it (`ImmutableAttribute`).",
				Validators: []validator.String{identifierValidator{kind: "character set"}},
			},
			"collation": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Collation (PostgreSQL: locale for `LC_COLLATE` and `LC_CTYPE`, e.g. `C`, `POSIX`, " +
					"`C.UTF-8`, `en_US.UTF-8`). When creating with neither setting: `utf8mb4_unicode_ci` on MySQL/MariaDB, " +
					"`C` on PostgreSQL; with only `character_set`: that character set's default collation (MySQL/MariaDB, " +
					"chosen by the server) or `C` (PostgreSQL). A collation of another character set is refused at plan " +
					"time (`InvalidIdentifier`). Compared as the server compares names, keeping your spelling; left out of " +
					"the configuration, it is whatever the server has. Changed in place on MySQL/MariaDB; PostgreSQL cannot " +
					"change it (`ImmutableAttribute`).",
				Validators: []validator.String{identifierValidator{kind: "collation"}},
			},
			"deletion_policy": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(deletionRetain),
				MarkdownDescription: "`retain` (default): destroy leaves the database on the server, needs no connection and " +
					"warns `DatabaseRetained`. `delete`: destroy drops it, but only if this resource created it; on PostgreSQL " +
					"it refuses (`DatabaseInUse`) while sessions it did not open are connected. On MariaDB it drops only a " +
					"database whose comment still carries its claim mark: one whose comment was edited (by a DBA or the " +
					"tenant) is left with its data (`DatabaseDropSkipped`). On MySQL it drops only a database that still " +
					"holds its mark, the empty procedure `tenantdb_mark_…` the admin created in it: one whose mark was " +
					"dropped (by the tenant, a migration tool, or a re-creation) is left with its data.",
				Validators: []validator.String{stringvalidator.OneOf(deletionRetain, deletionDelete)},
			},
			"database_created": schema.BoolAttribute{
				Computed: true,
				MarkdownDescription: "True when this resource created the database. Imported databases have `false`, so no " +
					"destroy ever drops them.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *tenantDatabaseResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig applies the engine's rules as soon as the engine is known
// (terraform validate needs no server).
func (r *tenantDatabaseResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Config.Raw, &m)...)
	if resp.Diagnostics.HasError() || m.Server.IsNull() || m.Server.IsUnknown() {
		return
	}
	// A server written by hand (jsonencode) is known here; one from a
	// db_server's ref is not until plan time, where ModifyPlan checks it.
	ref, known, diags := refFromString(m.Server)
	resp.Diagnostics.Append(diags...)
	if !known {
		return
	}
	if err := ref.validate(); err != nil {
		addAttributeError(&resp.Diagnostics, path.Root("server"), err)
		return
	}
	e := ref.engine()
	if !m.Name.IsNull() && !m.Name.IsUnknown() {
		if _, err := ddl.NewDatabaseName(e, m.Name.ValueString()); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("name"), err)
		}
	}
	if s := knownString(m.CharacterSet); s != "" {
		if _, err := ddl.NewCharsetFor(e, s); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("character_set"), err)
		}
	}
	if s := knownString(m.Collation); s != "" {
		if _, err := ddl.NewCollationFor(e, s); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("collation"), err)
		}
	}
	if !resp.Diagnostics.HasError() {
		if err := ddl.CheckCharsetCollation(e, knownString(m.CharacterSet), knownString(m.Collation)); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("collation"), err)
		}
	}
}

// ModifyPlan fills engine defaults and refuses what cannot be changed in place.
func (r *tenantDatabaseResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref, ok := planRef(plan.Server, &resp.Diagnostics)
	if !ok {
		return
	}
	e := ref.engine()
	if !plan.Name.IsUnknown() {
		// Engine rules again, in case the engine was unknown at validation.
		if _, err := ddl.NewDatabaseName(e, plan.Name.ValueString()); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("name"), err)
			return
		}
	}
	if req.State.Raw.IsNull() {
		if err := planSettings(ctx, req, e, &plan, nil); err != nil {
			addAttributeError(&resp.Diagnostics, path.Root("collation"), err)
			return
		}
		plan.ID = types.StringValue(ref.Name + "/" + plan.Name.ValueString())
		r.data.preflightDatabase(ctx, ref, plan, &resp.Diagnostics)
		resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.Plan.Raw)...)
		return
	}
	var state tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	if err := planSettings(ctx, req, e, &plan, &state); err != nil {
		addAttributeError(&resp.Diagnostics, path.Root("collation"), err)
		return
	}
	stateRef, _, diags := refFromString(state.Server)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	refuseServerMove(&resp.Diagnostics, "database", state.Name.ValueString(), stateRef, ref)
	if ref.reach() != stateRef.reach() {
		omittedSettingsUnknown(ctx, req, &plan)
	}
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if recorded.NeedsMark() {
		// The apply, never this plan, gives it an identity (Update marks it).
		plan.ID = types.StringUnknown()
		object := fmt.Sprintf("database %q on server %q", state.Name.ValueString(), stateRef.Name)
		if comment, ok := recorded.Comment(); ok {
			addMarkPlannedWarning(&resp.Diagnostics, object, comment)
		} else {
			addMySQLMarkPlannedWarning(&resp.Diagnostics, object)
		}
	}
	if e == ddl.EnginePostgres {
		for attr, pair := range map[string][2]types.String{
			"character_set": {state.CharacterSet, plan.CharacterSet},
			"collation":     {state.Collation, plan.Collation},
		} {
			same := ddl.SameCharsetFor
			if attr == "collation" {
				same = ddl.SameCollationFor
			}
			if !pair[1].IsUnknown() && !same(e, pair[0].ValueString(), pair[1].ValueString()) {
				addImmutableAttributeError(&resp.Diagnostics, path.Root(attr), attr,
					fmt.Sprintf("database %q", state.Name.ValueString()), fmt.Sprintf("PostgreSQL cannot change a database's encoding or locale (%s to %s). Keep the current value; "+
						"changing it is a migration to a new database.", pair[0], pair[1]))
			}
		}
	}
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.Plan.Raw)...)
}

// databaseTarget is what a CRUD call of tenantdb_tenant_database is about.
type databaseTarget struct {
	ref serverRef
	db  ddl.DatabaseName
}

// target validates what a CRUD call is about (the same shape as the
// owner's and the grant's target).
func (r *tenantDatabaseResource) target(ctx context.Context, m tenantDatabaseModel) (databaseTarget, diag.Diagnostics) { //nolint:unparam // ctx: the same signature as the others
	ref, diags := applyRef(m.Server)
	if diags.HasError() {
		return databaseTarget{ref: ref}, diags
	}
	db, err := ddl.NewDatabaseName(ref.engine(), m.Name.ValueString())
	if err != nil {
		addError(&diags, "validate the database name", err)
	}
	return databaseTarget{ref: ref, db: db}, diags
}

func (r *tenantDatabaseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, plan)
	ref, db := t.ref, t.db
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	cs, co, err := charsetAndCollation(plan)
	if err != nil {
		addError(&resp.Diagnostics, "validate the database settings", err)
		return
	}
	srv, ok := r.data.connectOrReport(ctx, ref, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := ddl.CheckNameCase(srv.Info(), ref.Name, db); err != nil {
		addAttributeError(&resp.Diagnostics, path.Root("name"), err)
		return
	}
	st, id, err := srv.ClaimDatabase(ctx, db, cs, co)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("create database %q", db), err)
		return
	}
	plan.ID = types.StringValue(ref.Name + "/" + db.String())
	plan.DatabaseCreated = types.BoolValue(true)
	settingsFromServer(&plan, st)
	resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, id)...)
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
}

func (r *tenantDatabaseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, state)
	ref, db := t.ref, t.db
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	object := fmt.Sprintf("database %q on server %q", db, ref.Name)
	importing, diags := takeImporting(ctx, req.Private, resp.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var st *dbclient.DatabaseState
	var id dbclient.Identity
	srv, err := r.data.connect(ctx, ref)
	if err == nil {
		st, id, err = srv.DatabaseWithIdentity(ctx, db)
	}
	if err != nil {
		if importing {
			// An import must read the database: state cannot hold unknowns.
			addError(&resp.Diagnostics, fmt.Sprintf("import %s (the server must be reachable to import)", object), err)
			return
		}
		// Unreachable, or no password: keep what state says; never drop it.
		addRefreshWarning(&resp.Diagnostics, object, "Its attributes are kept as last read; it stays in state.", err)
		return
	}
	if st == nil {
		if importing {
			addImportNotFoundError(&resp.Diagnostics, object,
				"No database of that name exists on the server. Check the name and the server in the import ID.")
			return
		}
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object,
			"The database no longer exists on the server (dropped outside Terraform). It is removed from state; "+
				"the next apply creates it again.")
		resp.State.RemoveResource(ctx)
		return
	}
	if st.Invalid {
		if importing {
			addError(&resp.Diagnostics, "import "+object, ddl.ErrDatabaseInvalid(ref.Name, db))
			return
		}
		addDatabaseInvalidWarning(&resp.Diagnostics, object, db)
		return
	}
	switch {
	case recorded == "" && state.DatabaseCreated.ValueBool():
		// State from before identities: nothing proves this is the database
		// this resource created, so it is treated as imported from now on.
		state.DatabaseCreated = types.BoolValue(false)
		addIdentityRecordedWarning(&resp.Diagnostics, object)
	case recorded != "" && dbclient.Compare(recorded, id) == dbclient.Replaced:
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object,
			dbclient.MismatchWhy(dbclient.Replaced)+" It is removed from state and will never be altered or dropped "+
				"by this resource; the next apply refuses it (DatabasePreExists) unless you adopt it with terraform import.")
		resp.State.RemoveResource(ctx)
		return
	case recorded != "" && dbclient.Compare(recorded, id) == dbclient.Unproven:
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object, dbclient.MismatchWhyFor(recorded, dbclient.Unproven)+
			" It stays in state, database_created included, but until it is proven nothing will be altered or "+
			"dropped (what was granted on it is still revoked by destroy). "+restoreMarkAdvice(db, recorded))
		return
	case recorded != "" && dbclient.Compare(recorded, id) == dbclient.OtherServer:
		addWarning(&resp.Diagnostics, ddl.DriftDetected, object,
			dbclient.MismatchWhy(dbclient.OtherServer)+" State is kept as last read; nothing will be altered or "+
				"dropped there. Point the server back at the right address, or adopt the database with terraform import.")
		return
	}
	settingsFromServer(&state, st)
	if state.DeletionPolicy.IsNull() {
		state.DeletionPolicy = types.StringValue(deletionRetain)
	}
	resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, id)...)
	resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
}

func (r *tenantDatabaseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &plan)...)
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, diags := r.target(ctx, plan)
	ref, db := t.ref, t.db
	resp.Diagnostics.Append(diags...)
	old, diags := r.target(ctx, state)
	oldRef := old.ref
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	moved := ref.reach() != oldRef.reach()
	// An unknown setting is the server's to say (a new character set's
	// collation, or after a move what the database there has): not a change.
	alter := known(plan.CharacterSet) && !sameCharset(plan.Server, plan.CharacterSet.ValueString(), state.CharacterSet.ValueString()) ||
		known(plan.Collation) && !sameCollation(plan.Server, plan.Collation.ValueString(), state.Collation.ValueString())
	mark := recorded.NeedsMark() && !moved // a move of an unmarked database is refused (checkMove)
	// Whatever fails below, state keeps the old address and settings.
	refuse := func(err error, doing string) {
		addError(&resp.Diagnostics, doing, err)
		resp.Diagnostics.Append(encodeModel(ctx, &state, &resp.State.Raw)...)
	}
	if moved || alter || mark {
		srv, err := r.data.connect(ctx, ref)
		if err != nil {
			refuse(err, fmt.Sprintf("connect to server %q", ref.Name))
			return
		}
		if mark {
			id, replaced, err := srv.MarkImportedDatabase(ctx, db, recorded)
			if err != nil {
				refuse(err, fmt.Sprintf("give database %q its claim mark", db))
				return
			}
			if replaced != "" {
				addCommentReplacedWarning(&resp.Diagnostics, fmt.Sprintf("database %q on server %q", db, ref.Name), replaced)
			}
			recorded = id
			resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, id)...)
		}
		if moved {
			id, err := r.checkMove(ctx, srv, db, oldRef, ref, recorded, state.DatabaseCreated.ValueBool())
			if err != nil {
				refuse(err, fmt.Sprintf("move database %q to %s", db, ref.address()))
				return
			}
			recorded = id
			resp.Diagnostics.Append(recordIdentity(ctx, resp.Private, id)...)
			if !alter {
				// The database there may have other settings (a restored
				// dump carries the mark): read them, and alter only what the
				// configuration sets and the server does not have.
				st, err := srv.Database(ctx, db)
				if err != nil || st == nil {
					refuse(fmt.Errorf("read database %q at its new address: %v", db, err), fmt.Sprintf("move database %q to %s", db, ref.address()))
					return
				}
				alter = known(plan.CharacterSet) && !sameCharset(plan.Server, plan.CharacterSet.ValueString(), st.Charset) ||
					known(plan.Collation) && !sameCollation(plan.Server, plan.Collation.ValueString(), st.Collation)
				if !alter {
					settingsFromServer(&plan, st)
				}
			}
		}
		if alter {
			cs, co, err := charsetAndCollation(plan)
			if err == nil {
				err = r.alter(ctx, srv, db, cs, co, recorded)
			}
			if err != nil {
				refuse(err, fmt.Sprintf("alter database %q", db))
				return
			}
			// A setting left to the server (a new character set's default
			// collation) is known only now.
			st, err := srv.Database(ctx, db)
			if err != nil || st == nil {
				refuse(fmt.Errorf("read database %q back after the change: %v", db, err), fmt.Sprintf("alter database %q", db))
				return
			}
			settingsFromServer(&plan, st)
		}
	}
	// deletion_policy, reserved_usernames and the spelling of unchanged
	// settings only update state.
	plan.DatabaseCreated = state.DatabaseCreated
	if plan.ID.IsUnknown() { // planned unknown to bring the mark's apply here
		plan.ID = types.StringValue(ref.Name + "/" + db.String())
	}
	resp.Diagnostics.Append(encodeModel(ctx, &plan, &resp.State.Raw)...)
}

// restoreMarkAdvice is how a DBA who knows an Unproven database is the
// recorded one proves it again: the statement that gives it back its
// recorded mark (MariaDB: the comment; MySQL: the mark procedure, as the
// admin login), or on MySQL without a recorded mark a re-import.
func restoreMarkAdvice(db ddl.DatabaseName, recorded dbclient.Identity) string {
	if was, ok := recorded.Comment(); ok {
		return "If a DBA confirms it is the same database, give it its mark back (the mark only identifies; it is " +
			"not a secret):\n\n  " + ddl.RestoreCommentStatement(db, was)
	}
	readopt := "Or remove it from state (terraform state rm) and adopt it again with terraform import: the first " +
		"apply after the import gives it a new mark."
	if marker, ok := recorded.MySQLMarker(); ok {
		return "If a DBA confirms it is the same database, give it its mark back, logged in as tenantdb's admin login " +
			"(the mark only identifies; it is not a secret):\n\n  " + ddl.RestoreMySQLMarkStatement(db, marker) + "\n\n" + readopt
	}
	return "If a DBA confirms it is the tenant's database: " + readopt
}

// checkMove accepts a new server address only when the recorded database
// is there with the same identity (a failover to a replica, a DNS change),
// and returns the identity to record.
func (r *tenantDatabaseResource) checkMove(ctx context.Context, srv *dbclient.Server, db ddl.DatabaseName,
	from, to serverRef, recorded dbclient.Identity, created bool) (dbclient.Identity, error) {
	where := moved(from, to)
	if recorded == "" && created {
		return "", ddl.ErrIdentityMismatch(to.Name, db, where+" This resource has no recorded identity yet (state "+
			"from an earlier tenantdb version), so nothing proves the database there is the one it created. Apply "+
			"once with the old address first (a refresh records the identity), then change it.")
	}
	if recorded.NeedsMark() {
		return "", ddl.ErrIdentityMismatch(to.Name, db, where+" The database was imported and has no claim mark yet "+
			"(its name, and on MariaDB its comment, is all that identifies it, and another server's database of that "+
			"name may carry the same), so nothing proves the database there is the one imported. Apply once with the "+
			"old address first (that apply gives it its mark), then change it.")
	}
	c, err := srv.CheckIdentity(ctx, db, recorded)
	if err != nil {
		return "", err
	}
	switch {
	case !c.Found:
		return "", ddl.ErrIdentityMismatch(to.Name, db, where+" No database of that name exists at the new address.")
	case recorded != "" && c.Verdict != dbclient.Same:
		return "", ddl.ErrIdentityMismatch(to.Name, db, where+" "+dbclient.MismatchWhyFor(recorded, c.Verdict))
	}
	return c.Identity, nil
}

func (r *tenantDatabaseResource) alter(ctx context.Context, srv *dbclient.Server, db ddl.DatabaseName,
	cs ddl.Charset, co ddl.Collation, recorded dbclient.Identity) error {
	if recorded == "" {
		return fmt.Errorf("no identity is recorded for database %q yet (state from an earlier tenantdb version, "+
			"planned without a refresh), so nothing proves it is the database this resource manages: run terraform "+
			"apply with refresh (the default) first", db)
	}
	return srv.AlterOwnDatabase(ctx, db, cs, co, recorded)
}

func (r *tenantDatabaseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state tenantDatabaseModel
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &state)...)
	recorded, diags := recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	object := fmt.Sprintf("database %q", state.Name.ValueString())
	if state.DeletionPolicy.ValueString() != deletionDelete {
		addWarning(&resp.Diagnostics, ddl.DatabaseRetained, object,
			"deletion_policy is \"retain\": the database and its data stay on the server; only Terraform forgets it. "+
				"To drop it with destroy, set deletion_policy = \"delete\" and apply first.")
		return
	}
	if !state.DatabaseCreated.ValueBool() {
		addWarning(&resp.Diagnostics, ddl.DatabaseDropSkipped, object,
			"This resource did not create the database (it was imported), so destroy does not drop it, whatever "+
				"deletion_policy says. Drop it by hand if it is really no longer needed.")
		return
	}
	if recorded == "" {
		addWarning(&resp.Diagnostics, ddl.DatabaseDropSkipped, object,
			"No identity is recorded for it (state from an earlier tenantdb version, destroyed without a refresh), "+
				"so nothing proves the database on the server is the one this resource created. Drop it by hand if it "+
				"is really no longer needed.")
		return
	}
	t, diags := r.target(ctx, state)
	ref, db := t.ref, t.db
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Unreachable under delete is an error: the drop is deferred to the
	// next destroy, never skipped, and the resource stays in state.
	srv, err := r.data.connect(ctx, ref)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("connect to server %q to drop database %q (it stays in state; destroy again when the server is reachable)", ref.Name, db), err)
		return
	}
	// A declared delete, like an offboarding, may reset what the tenant
	// set to stop it (IS_TEMPLATE true), and says so.
	ctx, reportResets := offboarding(ctx, ref.Name, &resp.Diagnostics)
	defer reportResets()
	outcome, check, err := srv.DropOwnDatabase(ctx, db, recorded)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("drop database %q (it stays in state)", db), err)
		return
	}
	if outcome == dbclient.NotOurs && check.Verdict == dbclient.Unproven {
		byHand := "Drop it by hand only once you know whose it is and that its data is no longer needed."
		if _, mysql := recorded.MySQLMarker(); mysql {
			// Most often its tenant dropped the mark: offboarding leaves the
			// database, and the statement for whoever judges it.
			byHand += " Then, as an administrator:\n\n  " + ddl.DropDatabaseStatement(db)
		}
		addWarning(&resp.Diagnostics, ddl.DatabaseDropSkipped, fmt.Sprintf("%s on server %q", object, ref.Name),
			dbclient.MismatchWhyFor(recorded, check.Verdict)+" Nothing proves this resource made it, so it was not "+
				"dropped: it stays on the server with its data, and the resource is removed from state. "+byHand)
		return
	}
	if outcome == dbclient.NotOurs {
		addWarning(&resp.Diagnostics, ddl.DatabaseDropSkipped, fmt.Sprintf("%s on server %q", object, ref.Name),
			dbclient.MismatchWhyFor(recorded, check.Verdict)+" Nothing was dropped; the resource is removed from state.")
	}
}

func (r *tenantDatabaseResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ref, id, err := parseTenantImportID(req.ID)
	if err == nil {
		_, err = ddl.NewDatabaseName(ref.engine(), id.Name)
	}
	if err != nil {
		addError(&resp.Diagnostics, "import tenantdb_tenant_database", fmt.Errorf("%w\n\nThe import ID is "+
			"jsonencode({ server = tenantdb_db_server.main.ref, name = \"acme_wms\" })", err))
		return
	}
	m := tenantDatabaseModel{
		ID: types.StringValue(ref.Name + "/" + id.Name), Server: types.StringValue(ref.encode()), Name: types.StringValue(id.Name),
		CharacterSet: types.StringUnknown(), Collation: types.StringUnknown(),
		DeletionPolicy: types.StringValue(deletionRetain), DatabaseCreated: types.BoolValue(false),
	}
	// resp.State.Set, not the model codec (model_codec.go): the codec is
	// for the paths run once per resource per plan; an import runs once.
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(markImporting(ctx, resp.Private)...)
}

// UpgradeState: see state_upgrade.go.
func (r *tenantDatabaseResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return upgradeRefToString("server")
}
