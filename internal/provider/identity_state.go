// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// The identity of the object a tenant resource manages lives in the
// resource's private state: Terraform keeps it with the resource in the
// state file, it never appears in plans, and it costs nothing per resource
// in a plan. "" means none is recorded (state written before identities
// existed, or an import not yet read).
const identityKey = "identity"

type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func recordedIdentity(ctx context.Context, p privateReader) (dbclient.Identity, diag.Diagnostics) {
	return privateIdentity(ctx, p, identityKey)
}

// privateIdentity reads an identity kept under key.
func privateIdentity(ctx context.Context, p privateReader, key string) (dbclient.Identity, diag.Diagnostics) {
	if p == nil {
		return "", nil
	}
	raw, diags := p.GetKey(ctx, key)
	if diags.HasError() || len(raw) == 0 {
		return "", diags
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state", "The recorded identity of this resource is not valid: "+err.Error())
	}
	return dbclient.Identity(s), diags
}

func recordIdentity(ctx context.Context, p privateWriter, id dbclient.Identity) diag.Diagnostics {
	return recordPrivate(ctx, p, identityKey, id)
}

// recordPrivate keeps an identity under key.
func recordPrivate(ctx context.Context, p privateWriter, key string, id dbclient.Identity) diag.Diagnostics {
	raw, _ := json.Marshal(string(id))
	return p.SetKey(ctx, key, raw)
}
