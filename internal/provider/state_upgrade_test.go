// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAccStateUpgrade_refObjectToString: state written by a provider whose
// `ref`/`server` were objects (schema version 0) is upgraded in place: the
// next plan shows no change, the identities in private state survive (the
// destroy under "delete" still drops what this configuration created), and
// nothing on the server is altered.
func TestAccStateUpgrade_refObjectToString(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner, user := uniqueName("upg"), uniqueName("app"), uniqueName("reader")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, owner, user)
			})
			s.principal(t, user)
			w := newCLIWorkspace(t)
			dbHCL := fmt.Sprintf("name   = %q", db)
			cfg := s.serverHCL("") + strings.Replace(ownerHCL(db, owner, "Upg-pw-1", 1, ""), dbHCL, dbHCL+"\n  deletion_policy = \"delete\"", 1) +
				grantHCL("g", "tenantdb_tenant_database.db.name", user, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
			w.write(cfg)
			w.run("apply", "-auto-approve").mustSucceed(t, "create")

			// Make the state what version 0 wrote: the ref as an object.
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
							var obj map[string]any
							if err := json.Unmarshal([]byte(attrs[attr].(string)), &obj); err != nil {
								t.Fatalf("%s.%s is not a JSON string: %v", typ, attr, err)
							}
							for _, k := range []string{"ca_cert", "reserved_usernames"} {
								if _, ok := obj[k]; !ok {
									obj[k] = nil // an object attribute always has every key
								}
							}
							attrs[attr] = obj
							inst["schema_version"] = 0
							upgraded++
						}
					}
				}
			})
			if upgraded != 4 {
				t.Fatalf("rewrote %d resources to version 0, want 4", upgraded)
			}
			mark := s.MarkLog(t)
			plan := w.run("plan", "-detailed-exitcode")
			if plan.Err != nil {
				t.Fatalf("plan after the upgrade is not empty (or failed): %v\n%s", plan.Err, plan.Output)
			}
			w.run("apply", "-auto-approve").mustSucceed(t, "apply after the upgrade")
			s.AssertNoDDL(t, mark, s.Admin.Username)
			for _, typ := range []string{"tenantdb_tenant_database", "tenantdb_tenant_owner", "tenantdb_tenant_grant"} {
				if got, ok := w.stateAttr(typ, "server").(string); !ok || got != w.stateAttr("tenantdb_db_server", "ref") {
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
		})
	}
}
