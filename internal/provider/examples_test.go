// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesValidate runs `terraform validate` with the real provider
// binary over every example the docs show, and over a bad configuration,
// with no database server anywhere: validation needs none.
func TestExamplesValidate(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs terraform: set TF_ACC=1 (make test does)")
	}
	env := providerBinaryEnv(t)
	header := `terraform {
  required_providers {
    tenantdb = { source = "tenantdb/tenantdb" }
  }
}
`
	good := t.TempDir()
	files, err := filepath.Glob("../../examples/*/*.tf")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../examples/*/*/*.tf")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("found only %d example files", len(files))
	}
	var all strings.Builder
	all.WriteString(header)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString("\n# " + f + "\n" + string(b))
	}
	write(t, filepath.Join(good, "main.tf"), all.String())
	write(t, filepath.Join(good, "ca.pem"), "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
	runEnv(t, good, env, "terraform", "validate", "-no-color")

	bad := t.TempDir()
	write(t, filepath.Join(bad, "main.tf"), header+`
resource "tenantdb_db_server" "main" {
  name     = "main"
  engine   = "postgres"
  host     = "db.internal"
  username = "tenantdb_admin"
}
resource "tenantdb_tenant_database" "bad" {
  server = tenantdb_db_server.main.ref
  name   = "template1"
}
`)
	out, err := tryEnv(bad, env, "terraform", "validate", "-no-color")
	if err == nil || !strings.Contains(out, "InvalidIdentifier") {
		t.Fatalf("terraform validate accepted a system database name:\n%s", out)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
