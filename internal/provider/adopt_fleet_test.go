// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Adopting an existing fleet the way Terraform 1.14+ does it: `terraform
// query` with list blocks finds the tenant databases and their owners,
// -generate-config-out writes the resource and import blocks (by
// identity), one apply imports them all, the next plan is empty, and
// destroy under the default retain drops nothing. Also an import block by
// identity (Terraform 1.12+). Skipped under an older CLI: `make
// testacc-terraform-latest` runs it.

// cliAtLeast reports whether the acceptance CLI is at least major.minor.
func cliAtLeast(t *testing.T, major, minor int) bool {
	t.Helper()
	// stdout only: a CLI config warning on stderr is not JSON.
	out, err := exec.Command(cliBinary(), "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", cliBinary(), err, out)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if json.Unmarshal(out, &v) != nil {
		return false // OpenTofu prints another shape: no list resources there yet
	}
	parts := strings.SplitN(v.Version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(parts[1])
	return ma > major || (ma == major && mi >= minor)
}

// fleet creates n tenant databases with an owner login each, out of band,
// as someone else (by hand, or a peer provider) would; names share prefix.
func (s accServer) fleet(t *testing.T, prefix, pw string, n int) (dbs, owners []string) {
	t.Helper()
	for i := 0; i < n; i++ {
		db, owner := fmt.Sprintf("%s_%02d", prefix, i), fmt.Sprintf("%s_o%02d", prefix, i)
		dbs, owners = append(dbs, db), append(owners, owner)
		s.CreateLogin(t, owner, pw)
		if s.Engine == "postgres" {
			s.exec(t, "", "CREATE DATABASE "+s.ident(db)+" OWNER "+s.ident(owner))
			// The adoption guide's superuser step (16+); on 15 the owner
			// import makes the admin a member itself.
			if s.administersOnlyItsRoles(t) {
				s.exec(t, "", fmt.Sprintf("GRANT %s TO %s WITH ADMIN OPTION", s.ident(owner), s.ident(s.Admin.Username)))
			}
		} else {
			s.exec(t, "", "CREATE DATABASE "+s.ident(db))
			s.exec(t, "", fmt.Sprintf("GRANT ALL PRIVILEGES ON %s.* TO '%s'@'%%'", s.ident(strings.ReplaceAll(db, "_", `\_`)), owner))
		}
	}
	t.Cleanup(func() {
		s.dropDatabase(t, dbs...)
		s.dropLogins(t, owners...)
	})
	return dbs, owners
}

// TestAccAdoptFleet_query: 20 databases and their owners found by
// terraform query, imported by one apply.
func TestAccAdoptFleet_query(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			if !cliAtLeast(t, 1, 14) {
				t.Skip("list resources need Terraform 1.14+ (make testacc-terraform-latest)")
			}
			prefix, pw := uniqueName("flt"), "Fleet-pw-1"
			dbs, owners := s.fleet(t, prefix, pw, 20)
			w := newCLIWorkspace(t)
			base := s.serverHCL("") + "\nvariable \"owner_password\" {\n  type      = string\n  sensitive = true\n  ephemeral = true\n}\n"
			w.env = append(w.env, "TF_VAR_owner_password="+pw)
			w.write(base)
			w.run("apply", "-auto-approve").mustSucceed(t, "the server")
			server, _ := w.stateAttr("tenantdb_db_server", "ref").(string)
			if server == "" {
				t.Fatal("no ref in state")
			}
			query := fmt.Sprintf(`
list "tenantdb_tenant_database" "fleet" {
  provider         = tenantdb
  include_resource = true
  config {
    server     = %[1]q
    name_regex = "^%[2]s_"
  }
}

list "tenantdb_tenant_owner" "fleet" {
  provider         = tenantdb
  include_resource = true
  config {
    server     = %[1]q
    name_regex = "^%[2]s_"
  }
}
`, server, prefix)
			if err := os.WriteFile(filepath.Join(w.dir, "find.tfquery.hcl"), []byte(query), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "query", "-generate-config-out=generated.tf", "-no-color")
			if err != nil {
				t.Fatalf("terraform query: %v\n%s", err, out)
			}
			gen, err := os.ReadFile(filepath.Join(w.dir, "generated.tf"))
			if err != nil {
				t.Fatalf("no generated configuration: %v\n%s", err, out)
			}
			for _, want := range append(append([]string{}, dbs...), owners...) {
				if !strings.Contains(string(gen), `"`+want+`"`) {
					t.Fatalf("the query did not find %s:\n%s", want, gen)
				}
			}
			if n := strings.Count(string(gen), "import {"); n != 40 {
				t.Fatalf("%d import blocks generated, want 40 (20 databases, 20 owners):\n%s", n, gen)
			}
			// What the guide tells the user to edit: the server by reference,
			// and each owner's write-only password (generated config cannot
			// hold it).
			serverLine := regexp.MustCompile(`server\s*=\s*"(mysql|postgres)://[^"]*"`)
			if n := len(serverLine.FindAllString(string(gen), -1)); n != 80 {
				t.Fatalf("%d generated server lines in the ref's form, want 80 (40 resources, 40 identities):\n%s", n, gen)
			}
			edited := serverLine.ReplaceAllString(string(gen), "server = tenantdb_db_server.main.ref")
			edited = regexp.MustCompile(`password_wo\s*=\s*null[^\n]*`).ReplaceAllString(edited, "password_wo = var.owner_password")
			edited = regexp.MustCompile(`password_wo_version\s*=\s*null`).ReplaceAllString(edited, "password_wo_version = 1")
			if err := os.WriteFile(filepath.Join(w.dir, "generated.tf"), []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(w.dir, "find.tfquery.hcl")); err != nil {
				t.Fatal(err)
			}
			r := w.run("apply", "-auto-approve")
			if r.Err != nil {
				t.Fatalf("the import apply failed: %v\n%+v\n%s", r.Err, r.Diagnostics, edited)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan after the import")
			for i, o := range owners {
				if err := s.as(o, pw, dbs[i], "SELECT 1"); err != nil {
					t.Fatalf("owner %s after the import: %v", o, err)
				}
			}
			w.write(base)
			if err := os.Remove(filepath.Join(w.dir, "generated.tf")); err != nil {
				t.Fatal(err)
			}
			w.run("apply", "-auto-approve").mustSucceed(t, "remove them from the configuration (retain)")
			for i := range dbs {
				var n int
				q := `SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`
				if engine == "postgres" {
					q = `SELECT COUNT(*) FROM pg_database WHERE datname = $1`
				}
				if err := s.super(t, "").QueryRow(q, dbs[i]).Scan(&n); err != nil || n != 1 {
					t.Fatalf("database %s after destroy under retain: %d, %v", dbs[i], n, err)
				}
				if !s.loginExists(t, owners[i]) {
					t.Fatalf("the imported owner %s was dropped", owners[i])
				}
			}
		})
	}
}

// TestAccAdoptFleet_importByIdentity: an import block with identity = {
// ... } (Terraform 1.12+) adopts a database and its owner like the JSON ID.
func TestAccAdoptFleet_importByIdentity(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			if !cliAtLeast(t, 1, 12) {
				t.Skip("import by identity needs Terraform 1.12+ (make testacc-terraform-latest)")
			}
			pw := "Ident-pw-1"
			dbs, owners := s.fleet(t, uniqueName("idt"), pw, 1)
			w := newCLIWorkspace(t)
			cfg := s.serverHCL("") + ownerHCL(dbs[0], owners[0], pw, 1, "") + `
import {
  to       = tenantdb_tenant_database.db
  identity = { server = tenantdb_db_server.main.ref, name = "` + dbs[0] + `" }
}
import {
  to       = tenantdb_tenant_owner.o
  identity = { server = tenantdb_db_server.main.ref, database = "` + dbs[0] + `", username = "` + owners[0] + `" }
}
`
			w.write(cfg)
			r := w.run("apply", "-auto-approve")
			if r.Err != nil {
				t.Fatalf("import by identity: %v\n%+v", r.Err, r.Diagnostics)
			}
			if got := w.stateAttr("tenantdb_tenant_owner", "user_created"); got != false {
				t.Fatalf("user_created = %v after import, want false", got)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan after the import")
		})
	}
}
