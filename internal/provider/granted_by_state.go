// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// grantedByState is what state says tenantdb granted an owner or a grant:
// the stand-in for the ledger's record of what tenantdb granted where the
// ledger has none (a resource an earlier version made; dbclient
// ledger_grants.go). An imported owner's privileges were not granted by
// tenantdb (created false): none. A created owner whose state no longer
// says (a refresh of an unproven login keeps no privileges) holds on its
// database what the earlier version granted it, which kept it to the
// declared set: all it holds there counts (the catalog).
func grantedByState(info ddl.ServerInfo, privs ddl.PrivilegeSet, created bool) []ddl.Privilege {
	switch {
	case !created:
		return nil
	case privs.IsZero():
		return ddl.Catalog(info)
	}
	return privs.Expand(info)
}

// grantedByGrantState is grantedByState for a grant: the privileges its
// state records (target leaves them out: a destroy needs none of them
// otherwise). Only names of the server's catalog count.
func grantedByGrantState(ctx context.Context, info ddl.ServerInfo, privileges types.Set) []ddl.Privilege {
	if privileges.IsNull() || privileges.IsUnknown() {
		return nil
	}
	var names []string
	if privileges.ElementsAs(ctx, &names, false).HasError() {
		return nil
	}
	var out []ddl.Privilege
	for _, n := range names {
		out = append(out, ddl.NormalizePrivilege(n))
	}
	return ddl.IntersectPrivileges(ddl.GrantedPrivileges(info, out), ddl.Catalog(info))
}
