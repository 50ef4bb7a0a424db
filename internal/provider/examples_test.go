// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"path/filepath"
	"slices"
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
	// examples/demo is a whole configuration of its own (its terraform and
	// provider blocks and variables would clash with the others'): it is
	// validated alone below.
	files = slices.DeleteFunc(files, func(f string) bool {
		return strings.HasPrefix(filepath.ToSlash(f), "../../examples/demo/")
	})
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
	runEnv(t, good, env, cliBinary(), "validate", "-no-color")

	demoFiles, _ := filepath.Glob("../../examples/demo/*.tf")
	if len(demoFiles) == 0 {
		t.Fatal("examples/demo has no *.tf")
	}
	demo := t.TempDir()
	for _, f := range demoFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(demo, filepath.Base(f)), string(b))
	}
	runEnv(t, demo, env, cliBinary(), "validate", "-no-color")

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
	out, err := tryEnv(bad, env, cliBinary(), "validate", "-no-color")
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
