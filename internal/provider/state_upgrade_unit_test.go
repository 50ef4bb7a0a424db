// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// runUpgrader runs the upgrader of version v on raw state JSON.
func runUpgrader(t *testing.T, ups map[int64]resource.StateUpgrader, v int64, raw string) (map[string]any, string) {
	t.Helper()
	up, ok := ups[v]
	if !ok {
		t.Fatalf("no upgrader from version %d", v)
	}
	var resp resource.UpgradeStateResponse
	up.StateUpgrader(t.Context(), resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: []byte(raw)}}, &resp)
	if resp.Diagnostics.HasError() {
		return nil, resp.Diagnostics[0].Summary() + ": " + resp.Diagnostics[0].Detail()
	}
	var got map[string]any
	if err := json.Unmarshal(resp.DynamicValue.JSON, &got); err != nil {
		t.Fatal(err)
	}
	return got, ""
}

// TestUpgradeState_dropsTheCA: every earlier version (0: ref object, 1: ref
// JSON string, both with ca_cert; 2: JSON string without it) upgrades to
// the short ref without the CA; other attributes are kept; the db_server's
// ca_cert becomes null and its ca_fingerprint the fingerprint of that CA
// (so moving the same CA to ca_certs plans nothing), or, from version 2,
// the fingerprint it had.
func TestUpgradeState_dropsTheCA(t *testing.T) {
	t.Parallel()
	ca := testserver.UnrelatedCAPEM(t)
	caJSON, _ := json.Marshal(ca)
	refObj := `{"name":"pg","engine":"postgres","host":"db","port":5432,"username":"a","tls":"verify-full","ca_cert":` +
		string(caJSON) + `,"reserved_usernames":["b","a"]}`
	refStr, _ := json.Marshal(refObj)
	const want = `postgres://a@db:5432/pg?tls=verify-full&reserved_usernames=a,b`
	v2Str, _ := json.Marshal(`{"name":"pg","engine":"postgres","host":"db","port":5432,"username":"a","tls":"verify-full","reserved_usernames":["a","b"]}`)

	for v, server := range map[int64]string{0: refObj, 1: string(refStr), 2: string(v2Str)} {
		tenant := `{"id":"pg/acme","name":"acme","server":` + server + `,"database_created":true}`
		got, errText := runUpgrader(t, upgradeRefToString("server"), v, tenant)
		if errText != "" {
			t.Fatalf("version %d: %s", v, errText)
		}
		if got["server"] != want || got["name"] != "acme" || got["database_created"] != true || got["id"] != "pg/acme" {
			t.Fatalf("version %d tenant upgraded to %v", v, got)
		}

		srvCA := `"ca_cert":` + string(caJSON)
		if v == 2 { // version 2 has no CA, and its fingerprint already
			srvCA = `"ca_cert":null,"ca_fingerprint":"` + caFingerprint("verify-full", ca).ValueString() + `"`
		}
		srv := `{"id":"pg","name":"pg","engine":"postgres","host":"db","port":5432,"username":"a","tls":"verify-full",` +
			srvCA + `,"reserved_usernames":["a","b"],"flavor":"postgres","version":"15.1.0","ref":` + server + `}`
		got, errText = runUpgrader(t, upgradeServerState(), v, srv)
		if errText != "" {
			t.Fatalf("version %d server: %s", v, errText)
		}
		if got["ref"] != want || got["ca_cert"] != nil || got["flavor"] != "postgres" {
			t.Fatalf("version %d server upgraded to %v", v, got)
		}
		if fp := caFingerprint("verify-full", ca).ValueString(); got["ca_fingerprint"] != fp || len(fp) != 64 {
			t.Fatalf("version %d: ca_fingerprint = %v, want %s", v, got["ca_fingerprint"], fp)
		}
		b, _ := json.Marshal(got)
		if strings.Contains(string(b), "BEGIN CERTIFICATE") {
			t.Fatalf("version %d: the CA is still in the upgraded state: %s", v, b)
		}
	}

	// No CA, a mode that does not verify, null: no fingerprint; null kept.
	requireRef, _ := json.Marshal(`{"name":"m","engine":"mysql","host":"db","username":"a","tls":"require","ca_cert":` + string(caJSON) + `}`)
	for _, in := range []string{
		`{"ref":{"name":"m","engine":"mysql","host":"db","username":"a","tls":"verify-full","ca_cert":null,"reserved_usernames":null},"ca_cert":null}`,
		`{"ref":` + string(requireRef) + `,"ca_cert":` + string(caJSON) + `}`,
	} {
		got, errText := runUpgrader(t, upgradeServerState(), 1, in)
		if errText != "" || got["ca_fingerprint"] != nil || got["ca_cert"] != nil {
			t.Fatalf("%s: %v %s", in, got, errText)
		}
	}
	got, errText := runUpgrader(t, upgradeRefToString("server"), 0, `{"server":null}`)
	if errText != "" || got["server"] != nil {
		t.Fatalf("null server: %v %s", got, errText)
	}
	if _, errText := runUpgrader(t, upgradeRefToString("server"), 0, `{"server":{"engine":"mysql"}}`); errText == "" {
		t.Fatal("a ref object without a name upgraded without error")
	}
}

// TestCAFingerprint: the certificates decide it, not the PEM's formatting.
func TestCAFingerprint(t *testing.T) {
	t.Parallel()
	a, b := testserver.UnrelatedCAPEM(t), testserver.UnrelatedCAPEM(t)
	fa := caFingerprint("verify-ca", a)
	if fa.IsNull() || fa != caFingerprint("verify-full", "# comment\r\n"+strings.ReplaceAll(a, "\n", "\r\n")+"\n\n") {
		t.Fatalf("reformatting the PEM changed the fingerprint")
	}
	if fa == caFingerprint("verify-ca", a+b) || caFingerprint("verify-ca", a+b) == caFingerprint("verify-ca", b+a) {
		t.Fatalf("a bundle must differ from its parts and from another order")
	}
	for _, c := range []struct{ mode, pem string }{{"require", a}, {"disable", a}, {"verify-full", ""}, {"verify-full", "not a pem"}} {
		if fp := caFingerprint(c.mode, c.pem); !fp.IsNull() {
			t.Errorf("%s %q: fingerprint %s, want null", c.mode, c.pem, fp)
		}
	}
}
