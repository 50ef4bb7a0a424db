// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// schemaVersion of every resource:
//   - 0: the server settings (db_server `ref`, tenant `server`) were an object;
//   - 1: they are a compact JSON string;
//   - 2: they no longer carry ca_cert (the CA is the provider's ca_certs),
//     and tenantdb_db_server has ca_fingerprint instead of a ca_cert value;
//   - 3: the string is the short URL form (serverRef.encode), about half
//     the JSON's bytes in the state file, once per tenant resource.
const schemaVersion = 3

// upgradeRefToString upgrades a tenant resource's state from every earlier
// version: attr (`server`) becomes the version-3 string, without ca_cert.
// It works on the raw JSON so it needs no copy of the old schemas, and
// leaves every other attribute (and the private state, which holds
// identities) as it was.
func upgradeRefToString(attr string) map[int64]resource.StateUpgrader { //nolint:unparam // each resource names its attribute
	return upgraders(func(state map[string]json.RawMessage) error {
		_, err := upgradeRefAttr(state, attr)
		return err
	})
}

// upgradeServerState upgrades tenantdb_db_server state from every earlier
// version: `ref` as for tenants. From versions 0 and 1, the ca_cert it held
// is dropped and ca_fingerprint is the fingerprint of that CA, so a
// configuration that moved the same CA to the provider's ca_certs plans no
// change; version 2 already has its ca_fingerprint, which is kept.
func upgradeServerState() map[int64]resource.StateUpgrader {
	return upgraders(func(state map[string]json.RawMessage) error {
		ref, err := upgradeRefAttr(state, "ref")
		if err != nil {
			return err
		}
		var ca string
		if v, ok := state["ca_cert"]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &ca); err != nil {
				return fmt.Errorf("ca_cert: %v", err)
			}
		}
		state["ca_cert"] = json.RawMessage("null")
		if kept, ok := state["ca_fingerprint"]; ok && ca == "" && len(kept) > 0 {
			return nil // version 2: the fingerprint is already there (or null)
		}
		state["ca_fingerprint"] = json.RawMessage("null")
		if fp := caFingerprint(ref.TLS, ca); !fp.IsNull() {
			b, _ := json.Marshal(fp.ValueString())
			state["ca_fingerprint"] = b
		}
		return nil
	})
}

// upgraders is the same raw-JSON upgrade from every earlier version.
func upgraders(upgrade func(map[string]json.RawMessage) error) map[int64]resource.StateUpgrader {
	up := resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		var state map[string]json.RawMessage
		err := json.Unmarshal(req.RawState.JSON, &state)
		if err == nil {
			err = upgrade(state)
		}
		var out []byte
		if err == nil {
			out, err = json.Marshal(state)
		}
		if err != nil {
			resp.Diagnostics.AddError("Could not upgrade state written by an earlier tenantdb version",
				fmt.Sprintf("Upgrading the state failed: %v. Nothing on the server was changed.", err))
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: out}
	}}
	return map[int64]resource.StateUpgrader{0: up, 1: up, 2: up}
}

// upgradeRefAttr rewrites attribute attr of raw state from a version-0
// object or a version-1/2 JSON string to the version-3 string (ca_cert
// dropped) and returns the ref. A null value is kept (the zero ref is
// returned).
func upgradeRefAttr(state map[string]json.RawMessage, attr string) (serverRef, error) {
	v, ok := state[attr]
	if !ok || len(v) == 0 || string(v) == "null" {
		return serverRef{}, nil
	}
	if v[0] == '"' { // versions 1 and 2: the object inside a string
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return serverRef{}, fmt.Errorf("%s: %v", attr, err)
		}
		v = json.RawMessage(s)
	}
	raw := []byte(v)
	if len(v) > 0 && v[0] == '{' { // the JSON form: ca_cert is dropped, not refused
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			return serverRef{}, fmt.Errorf("%s: %v", attr, err)
		}
		delete(obj, "ca_cert")
		var err error
		if raw, err = json.Marshal(obj); err != nil {
			return serverRef{}, err
		}
	}
	ref, err := parseRef(raw)
	if err != nil {
		return serverRef{}, fmt.Errorf("%s: %v", attr, err)
	}
	encoded, err := json.Marshal(ref.encode())
	if err != nil {
		return serverRef{}, err
	}
	state[attr] = encoded
	return ref, nil
}
