// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// An import says so explicitly: ImportState leaves this private key, and
// the Read that follows it (in the same command) takes it, so Read knows
// it is reading an object for the first time (the server must be
// reachable, nothing is recorded yet, the result is not drift). Earlier
// versions inferred it from attributes ImportState left unknown.
const importingKey = "importing"

// markImporting is called by ImportState.
func markImporting(ctx context.Context, p privateWriter) diag.Diagnostics {
	return p.SetKey(ctx, importingKey, []byte("true"))
}

// takeImporting reports whether this Read follows an import, and clears
// the flag so later reads are ordinary refreshes.
func takeImporting(ctx context.Context, from privateReader, to privateWriter) (bool, diag.Diagnostics) {
	raw, diags := from.GetKey(ctx, importingKey)
	if len(raw) == 0 || diags.HasError() {
		return false, diags
	}
	diags.Append(to.SetKey(ctx, importingKey, []byte{})...)
	return true, diags
}
