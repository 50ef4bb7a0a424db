// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// An owner login an earlier tenantdb made on MySQL 8.0.21+ has no ledger
// row (PROOFS.md): its ATTRIBUTE, which the login may rewrite, is all that
// identifies it. A refresh that finds it still carrying the recorded claim
// records here that the next apply must write its ledger row; the plan
// shows user_created as known after apply so that apply reaches Update
// (as import_join.go does), and a plan never writes it.

const ledgerPendingKey = "ledger_pending"

// recordLedgerPending sets or clears the record.
func recordLedgerPending(ctx context.Context, p privateWriter, pending bool) diag.Diagnostics {
	if !pending {
		return p.SetKey(ctx, ledgerPendingKey, []byte{})
	}
	return p.SetKey(ctx, ledgerPendingKey, []byte("true"))
}

// ledgerPending reports whether a refresh recorded that the login needs
// its ledger row.
func ledgerPending(ctx context.Context, p privateReader) bool {
	raw, diags := p.GetKey(ctx, ledgerPendingKey)
	return !diags.HasError() && string(raw) == "true"
}
