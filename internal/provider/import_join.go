// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Plan and refresh only read (issue 33, item 10). An import of a
// PostgreSQL owner or grant reads whether the admin must join the role
// that owns the database to manage the tenant as its owner
// (dbclient.DatabaseOwnerToJoin); it records that role here, and the
// apply that follows joins it right before the first statement that needs
// it. An imported owner with nothing else to change still gets that apply:
// its plan shows user_created as known after apply (ownerJoinForcesUpdate).

const joinOwnerRoleKey = "join_owner_role"

// recordJoinPending records the owner role an import found the admin must
// join ("" records nothing).
func recordJoinPending(ctx context.Context, p privateWriter, owner string) diag.Diagnostics {
	if owner == "" {
		return nil
	}
	raw, _ := json.Marshal(owner) // private state holds JSON
	return p.SetKey(ctx, joinOwnerRoleKey, raw)
}

// joinPending returns the owner role an import recorded, if any.
func joinPending(ctx context.Context, p privateReader) (ddl.Username, bool, diag.Diagnostics) {
	raw, diags := p.GetKey(ctx, joinOwnerRoleKey)
	if len(raw) == 0 || diags.HasError() {
		return ddl.Username{}, false, diags
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		return ddl.Username{}, false, diags
	}
	u, err := ddl.NewUsername(ddl.EnginePostgres, name)
	if err != nil {
		return ddl.Username{}, false, diags
	}
	return u, true, diags
}

// clearJoinPending: the role was joined (or no longer needs to be).
func clearJoinPending(ctx context.Context, p privateWriter) diag.Diagnostics {
	return p.SetKey(ctx, joinOwnerRoleKey, []byte{})
}

// joinRecordedOwner joins the owner role an import recorded, before the
// caller's first statement, and clears the record once it holds.
func joinRecordedOwner(ctx context.Context, from privateReader, to privateWriter, db ddl.DatabaseName,
	join func(context.Context, ddl.DatabaseName, ddl.Username) error) (diag.Diagnostics, error) {
	owner, ok, diags := joinPending(ctx, from)
	if !ok || diags.HasError() {
		return diags, nil
	}
	if err := join(ctx, db, owner); err != nil {
		return diags, err
	}
	diags.Append(clearJoinPending(ctx, to)...)
	return diags, nil
}
