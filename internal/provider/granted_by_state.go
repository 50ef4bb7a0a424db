// SPDX-License-Identifier: MPL-2.0

package provider

import "github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

// grantedByState is what state says tenantdb granted an owner or a grant:
// the stand-in for the ledger's record of what tenantdb granted where the
// ledger has none (a resource an earlier version made; dbclient
// ledger_grants.go). An imported owner's privileges were not granted by
// tenantdb (created false): none.
func grantedByState(info ddl.ServerInfo, privs ddl.PrivilegeSet, created bool) []ddl.Privilege {
	if !created || privs.IsZero() {
		return nil
	}
	return privs.Expand(info)
}
