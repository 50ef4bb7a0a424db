// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// schemaVersion 1: the server settings (db_server `ref`, tenant `server`)
// are a JSON string; version 0 kept them as an object.
const schemaVersion = 1

// upgradeRefToString upgrades version-0 state, where attr (`ref` or
// `server`) was an object, to its string encoding. It works on the raw
// JSON so it needs no copy of the old schemas, and leaves every other
// attribute (and the private state, which holds identities) as it was.
func upgradeRefToString(attr string) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			out, err := refObjectToString(req.RawState.JSON, attr)
			if err != nil {
				resp.Diagnostics.AddError("Could not upgrade state written by an earlier tenantdb version",
					fmt.Sprintf("Upgrading %q from an object to its string form failed: %v. Nothing on the server was changed.", attr, err))
				return
			}
			resp.DynamicValue = &tfprotov6.DynamicValue{JSON: out}
		}},
	}
}

// refObjectToString rewrites one attribute of raw state JSON from the ref
// object to serverRef.encode(). A null or already-string value is kept.
func refObjectToString(raw []byte, attr string) ([]byte, error) {
	var state map[string]json.RawMessage
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, err
	}
	v, ok := state[attr]
	if !ok || len(v) == 0 || v[0] != '{' {
		return raw, nil
	}
	ref, err := parseRef(v)
	if err != nil {
		return nil, err
	}
	encoded, err := json.Marshal(ref.encode())
	if err != nil {
		return nil, err
	}
	state[attr] = encoded
	return json.Marshal(state)
}
