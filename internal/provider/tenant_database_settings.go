// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Character set and collation follow the server's rules: compared the way
// the server compares them (case, aliases), with the user's spelling kept
// when it means the same; a setting the configuration leaves out is
// whatever the server has, and defaults apply only when creating.

// engineOf reads the engine from a server string ("" when unknown).
func engineOf(server types.String) ddl.Engine {
	ref, _, _ := refFromString(server)
	return ddl.Engine(ref.Engine)
}

func sameCharset(server types.String, a, b string) bool {
	return ddl.SameCharsetFor(engineOf(server), a, b)
}

func sameCollation(server types.String, a, b string) bool {
	return ddl.SameCollationFor(engineOf(server), a, b)
}

// settingsFromServer fills character set and collation from what the
// server reports, keeping what the model says where it means the same.
func settingsFromServer(m *tenantDatabaseModel, st *dbclient.DatabaseState) {
	e := engineOf(m.Server)
	m.CharacterSet = types.StringValue(ddl.CharsetAsWritten(e, knownString(m.CharacterSet), st.Charset))
	m.Collation = types.StringValue(ddl.CollationAsWritten(e, knownString(m.Collation), st.Collation))
}

func known(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }

func knownString(v types.String) string {
	if v.IsNull() || v.IsUnknown() {
		return ""
	}
	return v.ValueString()
}

// charsetAndCollation validates the planned settings; an unknown one (left
// for the server to pick) is the zero value, which the dialects omit.
func charsetAndCollation(m tenantDatabaseModel) (cs ddl.Charset, co ddl.Collation, err error) {
	e := engineOf(m.Server)
	if s := knownString(m.CharacterSet); s != "" {
		if cs, err = ddl.NewCharsetFor(e, s); err != nil {
			return cs, co, err
		}
	}
	if s := knownString(m.Collation); s != "" {
		co, err = ddl.NewCollationFor(e, s)
	}
	return cs, co, err
}

// planSettings decides the planned character set and collation.
//
// Create: both omitted are the engine defaults; one given leaves the other
// to the server (MySQL picks the character set's default collation, or the
// collation's character set; PostgreSQL renders locale C with a lone
// encoding), so it is unknown until applied.
//
// Update: an omitted setting keeps what state says (what the server has),
// so nothing is altered because a setting was left out; only when the
// character set changes does an omitted collation become the server's
// choice again.
func planSettings(ctx context.Context, req resource.ModifyPlanRequest, e ddl.Engine, plan, state *tenantDatabaseModel) error {
	var cfgCS, cfgCO types.String
	req.Config.GetAttribute(ctx, path.Root("character_set"), &cfgCS)
	req.Config.GetAttribute(ctx, path.Root("collation"), &cfgCO)
	switch {
	case state == nil && cfgCS.IsNull() && cfgCO.IsNull():
		plan.CharacterSet = types.StringValue(ddl.DefaultCharset(e).String())
		plan.Collation = types.StringValue(ddl.DefaultCollation(e).String())
	case state == nil:
		if cfgCS.IsNull() {
			plan.CharacterSet = types.StringUnknown()
			if e == ddl.EnginePostgres {
				plan.CharacterSet = types.StringValue(ddl.DefaultCharset(e).String())
			}
		}
		if cfgCO.IsNull() {
			plan.Collation = types.StringUnknown()
			if e == ddl.EnginePostgres {
				plan.Collation = types.StringValue(ddl.DefaultCollation(e).String())
			}
		}
	default:
		// A spelling of what state holds (utf8 for utf8mb3, C.UTF-8 for
		// C.utf8) plans state's value: the server would change nothing, so
		// the plan shows nothing (Terraform accepts the prior value for a
		// configured attribute).
		if known(cfgCS) && ddl.SameCharsetFor(e, cfgCS.ValueString(), state.CharacterSet.ValueString()) {
			plan.CharacterSet = state.CharacterSet
		}
		if known(cfgCO) && ddl.SameCollationFor(e, cfgCO.ValueString(), state.Collation.ValueString()) {
			plan.Collation = state.Collation
		}
		if cfgCS.IsNull() {
			plan.CharacterSet = state.CharacterSet
			// A collation alone names its character set, as on create: a
			// collation of another character set changes it too, and the
			// server derives which (MySQL/MariaDB ALTER DATABASE ... COLLATE).
			if known(cfgCO) && ddl.CheckCharsetCollation(e, state.CharacterSet.ValueString(), cfgCO.ValueString()) != nil {
				plan.CharacterSet = types.StringUnknown()
			}
		}
		if cfgCO.IsNull() {
			plan.Collation = state.Collation
			if known(cfgCS) && !ddl.SameCharsetFor(e, cfgCS.ValueString(), state.CharacterSet.ValueString()) {
				plan.Collation = types.StringUnknown()
			}
		}
	}
	if state != nil && plan.CharacterSet.Equal(state.CharacterSet) && plan.Collation.Equal(state.Collation) {
		// What the server already has is not judged: an imported database
		// a superuser made (SQL_ASCII with a UTF-8 locale) is what it is.
		return nil
	}
	return ddl.CheckCharsetCollation(e, knownString(plan.CharacterSet), knownString(plan.Collation))
}

// omittedSettingsUnknown plans the settings the configuration leaves out as
// unknown when the database's address changes: the database there may be a
// copy with other settings (a replica, or on MariaDB a restored dump, which
// carries the claim mark), and the apply reads what it has. Left known,
// state would keep the old server's values until the next refresh.
func omittedSettingsUnknown(ctx context.Context, req resource.ModifyPlanRequest, plan *tenantDatabaseModel) {
	var cfgCS, cfgCO types.String
	req.Config.GetAttribute(ctx, path.Root("character_set"), &cfgCS)
	req.Config.GetAttribute(ctx, path.Root("collation"), &cfgCO)
	if cfgCS.IsNull() {
		plan.CharacterSet = types.StringUnknown()
	}
	if cfgCO.IsNull() {
		plan.Collation = types.StringUnknown()
	}
}
