// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// definerKept returns the *dbclient.DefinerKept in err's chain, or nil.
func definerKept(err error) *dbclient.DefinerKept {
	var k *dbclient.DefinerKept
	if errors.As(err, &k) {
		return k
	}
	return nil
}

// definerDropRights says why tenantdb cannot drop such a login itself.
const definerDropRights = "Dropping it needs SET_ANY_DEFINER and ALLOW_NONEXISTENT_DEFINER (MySQL 8.2+; SET_USER_ID " +
	"before), which tenantdb's admin must not hold: they let it create SQL SECURITY DEFINER objects as any account, " +
	"root included."

// addPendingDropWarning reports a rotated-out login whose drop failed and
// stays pending: as a kept definer when MySQL refused it for that, else
// with the general warning.
func addPendingDropWarning(diags *diag.Diagnostics, old ddl.Username, t ownerTarget, err error) {
	if k := definerKept(err); k != nil {
		addDefinerPendingWarning(diags, k, t)
		return
	}
	addOldLoginPendingWarning(diags, old, t, err)
}
