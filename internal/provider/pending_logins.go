// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// Pending logins are rotated-out owner logins this resource created whose
// drop has not succeeded yet. Every one is recorded, with its identity, in
// private state until it is really gone: a second rotation while one drop
// is pending adds to the list, it never overwrites it, so no login this
// resource made (still holding the tenant's password) is ever forgotten.
// previous_username shows their names, oldest first, joined by ", " (a
// username cannot contain a comma).
const pendingLoginsKey = "pending_logins"

// previousIdentityKey is where versions before the list kept the one
// pending login's identity; it is read once and folded into the list.
const previousIdentityKey = "previous_identity"

type pendingLogin struct {
	Name     string            `json:"name"`
	Identity dbclient.Identity `json:"identity"`
}

type pendingLogins []pendingLogin

// readPendingLogins reads the list, folding in the single pending login of
// earlier versions (previous_username and its identity).
func readPendingLogins(ctx context.Context, p privateReader, previousUsername types.String) (pendingLogins, diag.Diagnostics) {
	var out pendingLogins
	raw, diags := p.GetKey(ctx, pendingLoginsKey)
	if diags.HasError() {
		return nil, diags
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			diags.AddError("Unreadable private state", "The pending logins of this resource are not valid: "+err.Error())
		}
		return out, diags
	}
	if previousUsername.IsNull() || previousUsername.IsUnknown() || previousUsername.ValueString() == "" {
		return nil, diags
	}
	id, d := privateIdentity(ctx, p, previousIdentityKey)
	diags.Append(d...)
	for _, name := range strings.Split(previousUsername.ValueString(), ", ") {
		out = append(out, pendingLogin{Name: name, Identity: id})
	}
	return out, diags
}

// record writes the list (an empty list clears it).
func (l pendingLogins) record(ctx context.Context, p privateWriter) diag.Diagnostics {
	raw := []byte{}
	if len(l) > 0 {
		raw, _ = json.Marshal(l)
	}
	diags := p.SetKey(ctx, pendingLoginsKey, raw)
	diags.Append(p.SetKey(ctx, previousIdentityKey, []byte{})...)
	return diags
}

// value is previous_username: the pending names, or null.
func (l pendingLogins) value() types.String {
	if len(l) == 0 {
		return types.StringNull()
	}
	names := make([]string, len(l))
	for i, p := range l {
		names[i] = p.Name
	}
	return types.StringValue(strings.Join(names, ", "))
}

// add records a login whose drop is pending (once).
func (l pendingLogins) add(name string, id dbclient.Identity) pendingLogins {
	for _, p := range l {
		if p.Name == name {
			return l
		}
	}
	return append(l, pendingLogin{Name: name, Identity: id})
}

// without drops name from the list.
func (l pendingLogins) without(name string) pendingLogins {
	out := pendingLogins{}
	for _, p := range l {
		if p.Name != name {
			out = append(out, p)
		}
	}
	return out
}

// withHalfMade adds the logins a killed rotation of this resource left
// (dbclient.OwnerState.HalfMade: their marks prove them ours) to the list,
// so the next apply drops them as it drops any rotated-out login.
func (l pendingLogins) withHalfMade(logins []dbclient.HalfMadeLogin) pendingLogins {
	for _, h := range logins {
		if !slices.ContainsFunc(l, func(p pendingLogin) bool { return p.Name == h.Name }) {
			l = append(l, pendingLogin{Name: h.Name, Identity: h.Identity})
		}
	}
	return l
}
