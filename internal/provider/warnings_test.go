// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccWarnings_pinnedWords: the pinned warning words appear exactly
// where they must, with their fixed summaries (so Terraform folds many into
// one block), the object named in the detail, and nowhere else.
func TestAccWarnings_pinnedWords(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			retained1, retained2, dropped := uniqueName("keep"), uniqueName("keep"), uniqueName("drop")
			t.Cleanup(func() { s.dropDatabase(t, retained1, retained2, dropped) })
			config := s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "a" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_database" "b" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_database" "c" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
`, retained1, retained2, dropped)
			w := newCLIWorkspace(t)
			w.write(config)
			apply := w.run("apply", "-auto-approve").mustSucceed(t, "create")
			for _, word := range []string{"DatabaseRetained", "DatabaseDropSkipped", "DriftDetected"} {
				apply.forbidDiag(t, word)
			}
			plan := w.run("plan").mustSucceed(t, "no-op plan")
			plan.forbidDiag(t, "DriftDetected")

			s.dropDatabase(t, retained1) // out of band
			drift := w.run("apply", "-auto-approve").mustSucceed(t, "re-create after drift")
			d := drift.requireDiag(t, "warning", "DriftDetected: ")
			if d.Summary != "DriftDetected: the server no longer matches state" || !strings.Contains(d.Detail, retained1) {
				t.Errorf("DriftDetected = %q / %q: want the fixed summary and the database named in the detail", d.Summary, d.Detail)
			}
			if !s.databaseExists(t, retained1) {
				t.Fatalf("%s was not re-created after drift", retained1)
			}

			destroy := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			destroy.forbidDiag(t, "DatabaseDropSkipped")
			var details []string
			for _, d := range destroy.Diagnostics {
				if strings.HasPrefix(d.Summary, "DatabaseRetained") {
					if d.Summary != "DatabaseRetained: the database stays on the server" {
						t.Errorf("DatabaseRetained summary = %q: it must be the fixed phrase (Terraform folds identical summaries)", d.Summary)
					}
					details = append(details, d.Detail)
				}
			}
			if len(details) != 2 {
				t.Fatalf("%d DatabaseRetained warnings, want 2 (one per retained database)", len(details))
			}
			all := strings.Join(details, "\n")
			for _, name := range []string{retained1, retained2} {
				if !strings.Contains(all, fmt.Sprintf("%q", name)) {
					t.Errorf("no DatabaseRetained detail names %s", name)
				}
				if !s.databaseExists(t, name) {
					t.Errorf("retained database %s was dropped", name)
				}
			}
			if strings.Contains(all, dropped) {
				t.Errorf("the dropped database %s was reported retained", dropped)
			}
			if s.databaseExists(t, dropped) {
				t.Errorf("database %s under delete was not dropped", dropped)
			}
		})
	}
}
