// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// What every tenant resource shares: reading its server object, and
// refusing a plan that moves it to another server name or engine.

// refFromString reads a tenant resource's server string; known is false
// while it is unknown.
func refFromString(v types.String) (serverRef, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if v.IsNull() || v.IsUnknown() {
		return serverRef{}, false, diags
	}
	ref, err := parseRefCached(v.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("server"), "Invalid server", err.Error())
		return ref, false, diags
	}
	return ref, true, diags
}

// refuseServerMove refuses (ImmutableAttribute) a plan that changes the
// server's name or engine under an existing tenant object.
func refuseServerMove(diags *diag.Diagnostics, kind, object string, from, to serverRef) {
	for _, c := range []struct{ attr, from, to string }{
		{"name", from.Name, to.Name},
		{"engine", from.Engine, to.Engine},
	} {
		if c.from == c.to {
			continue
		}
		addImmutableAttributeError(diags, path.Root("server"), fmt.Sprintf("the server's %s of %s", c.attr, kind),
			fmt.Sprintf("%s %q", kind, object), fmt.Sprintf("The plan moves the %s from server %s %q to %q. Moving a tenant between servers is a "+
				"migration, not an edit: create it on the new server with a new resource, move the data, then remove this one.",
				kind, c.attr, c.from, c.to))
	}
}

// applyRef is the server object of a CRUD call: it must be known and valid.
func applyRef(v types.String) (serverRef, diag.Diagnostics) {
	ref, known, diags := refFromString(v)
	if diags.HasError() {
		return ref, diags
	}
	if !known {
		addSettingsUnknownError(&diags, "The server (tenantdb_db_server.<name>.ref) must be known at apply time.")
		return ref, diags
	}
	if err := ref.validate(); err != nil {
		addError(&diags, "validate the server settings", err)
	}
	return ref, diags
}

// planRef is the server object at plan time; ok is false while any part is
// unknown or when it is invalid (which it reports on the server attribute).
func planRef(v types.String, diags *diag.Diagnostics) (serverRef, bool) {
	ref, known, d := refFromString(v)
	diags.Append(d...)
	if !known || diags.HasError() {
		return ref, false
	}
	if err := ref.validate(); err != nil {
		addAttributeError(diags, path.Root("server"), err)
		return ref, false
	}
	return ref, true
}

// warnUnescapedGrant adds the warning about an old unescaped MySQL grant
// of user on db, when the server holds one (read from the snapshot that
// the refresh already loaded). A failed read only loses the warning.
func warnUnescapedGrant(ctx context.Context, srv interface {
	UnescapedGrant(context.Context, ddl.DatabaseName, ddl.Username) (string, error)
}, db ddl.DatabaseName, user ddl.Username, diags *diag.Diagnostics) {
	revoke, err := srv.UnescapedGrant(ctx, db, user)
	if err != nil || revoke == "" {
		return
	}
	addUnescapedGrantWarning(diags, fmt.Sprintf("login %q on database %q", user, db), revoke)
}
