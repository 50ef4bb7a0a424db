// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"

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
// and cleared when the identity is next recorded.
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
	return dbclient.Identity(s), diags
}

func recordIdentity(ctx context.Context, p privateWriter, id dbclient.Identity) diag.Diagnostics {
	return recordPrivate(ctx, p, identityKey, id)
}

// recordPrivate keeps an identity under key, and clears the legacy key.
func recordPrivate(ctx context.Context, p privateWriter, key string, id dbclient.Identity) diag.Diagnostics {
	raw, _ := json.Marshal(string(id))
	diags := p.SetKey(ctx, key, raw)
	if legacy := legacyPrivateKeys[key]; legacy != "" {
		diags.Append(p.SetKey(ctx, legacy, []byte{})...)
	}
	return diags
}

const (
	summaryMarkPlanned     = "Identity: this apply gives an imported database its claim mark"
	summaryCommentReplaced = "Identity: the database's comment was replaced by its claim mark"
)

// addMarkPlannedWarning: the plan of a MariaDB database that carries no
// claim mark (imported) updates it in place to write one, so that another
// server's database of that name is never taken for it. The plan says so,
// and says which comment the mark replaces.
func addMarkPlannedWarning(diags *diag.Diagnostics, object, comment string) {
	was := "it has no comment"
	if comment != "" {
		was = fmt.Sprintf("this replaces its comment %q", comment)
	}
	diags.AddWarning(summaryMarkPlanned, fmt.Sprintf("%s: it was imported and carries no claim mark, so nothing tells it "+
		"from another server's database of the same name. This apply writes a random claim mark as its comment "+
		"(ALTER DATABASE … COMMENT 'tenantdb:…'; %s) and records it; nothing else changes, and a plan never writes it.", object, was))
}

// addCommentReplacedWarning: the mark replaced a comment someone wrote.
func addCommentReplacedWarning(diags *diag.Diagnostics, object, comment string) {
	diags.AddWarning(summaryCommentReplaced, fmt.Sprintf("%s: its comment %q was replaced by tenantdb's claim mark, "+
		"which is now what identifies it. Keep annotations elsewhere: an edited comment leaves the database unproven "+
		"(nothing is altered or dropped until the mark is restored).", object, comment))
}
