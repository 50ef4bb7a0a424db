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
//
// Keys and values are short on purpose: the framework stores private state
// base64-encoded inside a base64 string, so every byte of a key or value
// costs about 1.8 bytes of every resource's state (BENCHMARKS.md, state per
// tenant). The value is the identity as a JSON string (the framework
// requires JSON). Earlier versions wrote the long key; it is still read,
// and cleared when the identity is next recorded. Identities are kept
// compacted (identity_compact.go); the long form is still read.
const identityKey = "i"

// legacyPrivateKeys maps a key to the one earlier versions used.
var legacyPrivateKeys = map[string]string{
	identityKey:          "identity",
	principalIdentityKey: "principal_identity",
}

type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func recordedIdentity(ctx context.Context, p privateReader) (dbclient.Identity, diag.Diagnostics) {
	return privateIdentity(ctx, p, identityKey)
}

// privateIdentity reads an identity kept under key (or, in state an
// earlier version wrote, under its legacy key).
func privateIdentity(ctx context.Context, p privateReader, key string) (dbclient.Identity, diag.Diagnostics) {
	if p == nil {
		return "", nil
	}
	raw, diags := p.GetKey(ctx, key)
	if legacy := legacyPrivateKeys[key]; len(raw) == 0 && legacy != "" && !diags.HasError() {
		raw, diags = p.GetKey(ctx, legacy)
	}
	if diags.HasError() || len(raw) == 0 {
		return "", diags
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		diags.AddError("Unreadable private state", "The recorded identity of this resource is not valid: "+err.Error())
	}
	return expandIdentity(dbclient.Identity(s)), diags
}

func recordIdentity(ctx context.Context, p privateWriter, id dbclient.Identity) diag.Diagnostics {
	return recordPrivate(ctx, p, identityKey, id)
}

// recordPrivate keeps an identity under key, and clears the legacy key.
func recordPrivate(ctx context.Context, p privateWriter, key string, id dbclient.Identity) diag.Diagnostics {
	raw, _ := json.Marshal(string(compactIdentity(id)))
	diags := p.SetKey(ctx, key, raw)
	if legacy := legacyPrivateKeys[key]; legacy != "" {
		diags.Append(p.SetKey(ctx, legacy, []byte{})...)
	}
	return diags
}
