// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAccStateUpgrade_caMovedToProvider: state written by every earlier
// schema version (0: `ref`/`server` an object holding ca_cert; 1: the same
// as a JSON string; both with the db_server's ca_cert set; 2: the JSON
// string without the CA, the db_server's ca_fingerprint set) is upgraded in
// place for all four resources to the short ref, once the configuration has
// moved the CA to the provider's ca_certs: the next plan shows no change,
// nothing on the server is altered (statement log), no PEM and no JSON ref
// is left in state, and the identities in private state survive (the
// destroy under "delete" still drops the database and the owner this
// configuration created).
func TestAccStateUpgrade_caMovedToProvider(t *testing.T) {
	for _, engine := range engines() {
		for _, version := range []int{0, 1, 2} {
			t.Run(fmt.Sprintf("%s/from_version_%d", engine, version), func(t *testing.T) {
				skipOnStandIn(t, engine, "a state upgrade: the provider rewrites its own state, no server reads it differently")
				testStateUpgradeFrom(t, engine, version)
			})
		}
	}
}

func testStateUpgradeFrom(t *testing.T, engine string, version int) {
	s := testAccServer(t, engine)
	db, owner, user := uniqueName("upg"), uniqueName("app"), uniqueName("reader")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, owner, user)
	})
	s.principal(t, user)
	w := newCLIWorkspace(t)
	dbHCL := fmt.Sprintf("name   = %q", db)
	// The configuration after the move: the CA in the provider's ca_certs
	// (serverHCL), none on the db_server.
	cfg := s.serverHCL("") + strings.Replace(ownerHCL(db, owner, "Upg-pw-1", 1, ""), dbHCL, dbHCL+"\n  deletion_policy = \"delete\"", 1) +
		grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
	w.write(cfg)
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	wantRef := w.stateAttr("tenantdb_db_server", "ref")

	// Make the state what the earlier version wrote: the ref as JSON; before
	// version 2, the CA in every ref and in the db_server's ca_cert, no
	// ca_fingerprint.
	upgraded := 0
	w.editState(func(st map[string]any) {
		for typ, attr := range map[string]string{"tenantdb_db_server": "ref", "tenantdb_tenant_database": "server",
			"tenantdb_tenant_owner": "server", "tenantdb_tenant_grant": "server"} {
			for _, res := range st["resources"].([]any) {
				if res.(map[string]any)["type"] != typ {
					continue
				}
				for _, i := range res.(map[string]any)["instances"].([]any) {
					inst := i.(map[string]any)
					attrs := inst["attributes"].(map[string]any)
					ref, err := parseRef([]byte(attrs[attr].(string)))
					if err != nil {
						t.Fatalf("%s.%s is not a ref: %v", typ, attr, err)
					}
					obj := map[string]any{"name": ref.Name, "engine": ref.Engine, "host": ref.Host, "port": ref.Port,
						"username": ref.Username, "tls": ref.TLS}
					if version < 2 {
						obj["ca_cert"] = s.CAPEM
					}
					if version == 0 {
						if _, ok := obj["reserved_usernames"]; !ok {
							obj["reserved_usernames"] = nil // an object attribute always has every key
						}
						attrs[attr] = obj
					} else {
						b, _ := json.Marshal(obj)
						attrs[attr] = string(b)
					}
					if typ == "tenantdb_db_server" && version < 2 {
						attrs["ca_cert"] = s.CAPEM
						delete(attrs, "ca_fingerprint")
					}
					inst["schema_version"] = version
					if priv, ok := inst["private"].(string); ok {
						inst["private"] = withLegacyPrivateKeys(t, priv)
					}
					upgraded++
				}
			}
		}
	})
	if upgraded != 4 {
		t.Fatalf("rewrote %d resources to version %d, want 4", upgraded, version)
	}
	if n := strings.Count(w.stateText(), `engine\"`); n < 4 && version > 0 {
		t.Fatalf("the version-%d state holds %d JSON refs, want 4: the test edits nothing", version, n)
	}
	if n := strings.Count(w.stateText(), "BEGIN CERTIFICATE"); n < 5 && version < 2 {
		t.Fatalf("the version-%d state holds the CA %d times, want 5 (4 refs and ca_cert): the test edits nothing", version, n)
	}
	mark := s.MarkLog(t)
	plan := w.run("plan", "-detailed-exitcode")
	if plan.Err != nil {
		t.Fatalf("plan after the upgrade is not empty (or failed): %v\n%s", plan.Err, plan.Output)
	}
	w.run("apply", "-auto-approve").mustSucceed(t, "apply after the upgrade")
	s.AssertNoDDL(t, mark, s.Admin.Username)
	if st := w.stateText(); strings.Contains(st, "BEGIN CERTIFICATE") || strings.Contains(st, `ca_cert\"`) || strings.Contains(st, `engine\"`) {
		t.Fatalf("the CA or a JSON ref is still in state after the upgrade:\n%s", st)
	}
	if got := w.stateAttr("tenantdb_db_server", "ref"); got != wantRef {
		t.Fatalf("db_server.ref after the upgrade = %v, want %v", got, wantRef)
	}
	if got, want := w.stateAttr("tenantdb_db_server", "ca_fingerprint"), caFingerprint("verify-full", s.CAPEM).ValueString(); got != want {
		t.Fatalf("ca_fingerprint after the upgrade = %v, want %v", got, want)
	}
	for _, typ := range []string{"tenantdb_tenant_database", "tenantdb_tenant_owner", "tenantdb_tenant_grant"} {
		if got, ok := w.stateAttr(typ, "server").(string); !ok || got != wantRef {
			t.Fatalf("%s.server after the upgrade = %v, want the db_server's ref string", typ, w.stateAttr(typ, "server"))
		}
	}
	if got := w.stateAttr("tenantdb_tenant_database", "database_created"); got != true {
		t.Fatalf("database_created = %v after the upgrade, want true", got)
	}

	// The recorded identities survived: destroy drops what was made.
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if s.databaseExists(t, db) {
		t.Fatal("destroy under delete kept a database this configuration created (its identity was lost in the upgrade?)")
	}
	if s.loginExists(t, owner) {
		t.Fatal("destroy under delete kept the owner login this configuration created (its identity was lost in the upgrade?)")
	}
}

// withLegacyPrivateKeys rewrites a resource's private state (base64 of a
// JSON object of base64 values, the framework's encoding) to the long keys
// earlier versions wrote ("identity", "principal_identity").
func withLegacyPrivateKeys(t *testing.T, priv string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(priv)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		t.Fatal(err)
	}
	renamed := 0
	for short, long := range legacyPrivateKeys {
		if v, ok := keys[short]; ok {
			keys[long] = v
			delete(keys, short)
			renamed++
		}
	}
	if renamed == 0 {
		t.Fatalf("no identity in private state %s", raw)
	}
	out, _ := json.Marshal(keys)
	return base64.StdEncoding.EncodeToString(out)
}
