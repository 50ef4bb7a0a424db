// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The Getting started guide (templates/guides/getting-started.md.tmpl →
// docs/guides/getting-started.md) is run as written, so that it cannot
// rot: every fenced block that follows a `<!-- test: NAME -->` line is
// executed literally (shell blocks with bash, SQL blocks as the superuser,
// HCL blocks written to the file they name), with the real terraform CLI
// and a provider installed by `make install`, on a throwaway server of each
// engine. Only what the guide tells the user to set for their own server
// is the test's: TF_VAR_engine, TF_VAR_host, TF_VAR_port and ca.pem.

const gettingStartedGuide = "../../templates/guides/getting-started.md.tmpl"

// gettingStartedBlocks are the marked blocks the test runs: a marked block
// it does not know, or a known one that is gone, fails the test.
var gettingStartedBlocks = []string{
	"install", "grantee-mysql", "grantee-postgres", "main.tf", "env", "apply",
	"check-mysql", "check-postgres", "taken.tf", "taken-plan", "adopt.tf", "adopt", "plan", "destroy",
}

var markedBlockRE = regexp.MustCompile("(?m)^<!-- test: ([a-z.-]+) -->\\n```[a-z]*\\n((?s:.*?))^```$")

// markedBlocks returns the fenced code blocks of a markdown file that follow
// a `<!-- test: NAME -->` line (HTML comments: the rendered page shows only
// the block), by NAME.
func markedBlocks(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range markedBlockRE.FindAllStringSubmatch(string(raw), -1) {
		if _, dup := blocks[m[1]]; dup {
			t.Fatalf("%s: two blocks marked %q", path, m[1])
		}
		blocks[m[1]] = m[2]
	}
	return blocks
}

// sqlStatements splits a documented SQL block into its statements
// (one or more lines each, ending with ";"), leaving out "--" comments.
func sqlStatements(block string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") || strings.TrimSpace(line) == "" {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	return out
}

// readmeAdminSQL is README's admin-rights block for the server's flavor
// (TestReadmeAdminGrants keeps them equal to what MissingAdminRights gives).
func readmeAdminSQL(t *testing.T, s accServer) []string {
	t.Helper()
	flavor := s.Flavor
	heading := map[string]string{
		testserver.FlavorMariaDB:  "-- MariaDB 10.6 to 11.2",
		testserver.FlavorMySQL:    "-- MySQL 8.0+",
		testserver.FlavorPostgres: "-- PostgreSQL 15+",
	}[flavor]
	if v, ok := s.mariadbVersion(t); ok && v.AtLeast(11, 3, 0) {
		heading = "-- MariaDB 11.3+" // SHOW CREATE ROUTINE
	}
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i := strings.Index(readme, "```sql\n"+heading+"")
	if heading == "" || i < 0 {
		t.Fatalf("README has no admin-rights block %q for %s", heading, flavor)
	}
	block := readme[i+len("```sql\n"):]
	block = block[:strings.Index(block, "```")]
	return sqlStatements(block)
}

// exportRE is one `export NAME=value` line of a documented shell block
// (value bare or in single quotes).
var exportRE = regexp.MustCompile(`(?m)^export ([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|(\S+))\s*$`)

// gettingStartedEnv is what a user's shell has: a HOME of its own (where
// `make install` puts the provider and terraform finds it), no CLI
// configuration but an empty one, and the CLI the acceptance tests run
// (TF_ACC_TERRAFORM_PATH) as `terraform`. Nothing of the test's own
// environment reaches terraform but PATH and Go's caches, and apply and
// destroy answer "yes" as a user would (TF_CLI_ARGS_<command>).
func gettingStartedEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	goEnv, err := tryEnv("", os.Environ(), "go", "env", "GOCACHE", "GOMODCACHE", "GOPATH")
	if err != nil {
		t.Fatalf("go env: %v\n%s", err, goEnv)
	}
	paths := strings.Fields(goEnv)
	if len(paths) != 3 {
		t.Fatalf("go env: %q", goEnv)
	}
	path := os.Getenv("PATH")
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		bin := filepath.Join(home, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(bin, "terraform")); err != nil {
			t.Fatal(err)
		}
		path = bin + string(os.PathListSeparator) + path
	}
	rc := filepath.Join(home, "empty.tfrc")
	write(t, rc, "")
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name == "HOME" || name == "PATH" || strings.HasPrefix(name, "TF_") ||
			strings.HasPrefix(name, "TENANTDB_ADMIN_PASSWORD_") || strings.HasPrefix(name, "PG") ||
			strings.HasPrefix(name, "MYSQL") || slices.Contains([]string{"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}, name)
	})
	return append(env, "HOME="+home, "PATH="+path,
		"GOCACHE="+paths[0], "GOMODCACHE="+paths[1], "GOPATH="+paths[2],
		"TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1", "TF_INPUT=0",
		"TF_CLI_ARGS=-no-color", "TF_CLI_ARGS_apply=-auto-approve", "TF_CLI_ARGS_destroy=-auto-approve")
}

// runBlock runs a documented shell block with bash in dir, stopping at the
// first failing command.
func runBlock(t *testing.T, dir string, env []string, name, block string) string {
	t.Helper()
	out, err := tryEnv(dir, env, "bash", "-euo", "pipefail", "-c", block)
	if err != nil {
		t.Fatalf("guide step %q failed: %v\n%s\n%s", name, err, block, out)
	}
	return out
}

// requireOutput fails unless the step's output contains each of want.
func requireOutput(t *testing.T, name, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("guide step %q: output lacks %q\n%s", name, w, out)
		}
	}
}

// TestAccGettingStarted: a new user's path from the Getting started guide,
// on MariaDB and PostgreSQL: make install, README's admin SQL, a tenant
// (database, owner, grant) applied, the owner logs in and the grantee
// reads (with the guide's own psql/mariadb commands), 20 existing
// databases adopted by one apply with an empty plan after, and destroy
// under retain drops no database.
func TestAccGettingStarted(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	blocks := requireMarkedBlocks(t, gettingStartedGuide, gettingStartedBlocks)
	env := gettingStartedEnv(t)
	out := runBlock(t, "../..", env, "install", blocks["install"])
	requireOutput(t, "install", out, "installed ", "/.terraform.d/plugins/registry.terraform.io/tenantdb/tenantdb/0.1.0/")

	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			if !testserver.EngineSelected(engine) {
				t.Skipf("%s leaves out %s", testserver.EnvEngines, engine)
			}
			s := gettingStartedServer(t, engine)
			s.gettingStarted(t, blocks, env)
		})
	}
}

// gettingStartedServer is a server of the test's own (the guide's names
// are fixed), whose admin is made by README's SQL as written.
func gettingStartedServer(t *testing.T, engine string) accServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := testserver.StartKind(ctx, engine)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	if srv.Backend == testserver.BackendDSN {
		t.Skip("the guide's fixed names need a server of the test's own (local or docker backend)")
	}
	s := accServer{Server: srv, name: "main"}
	// The harness made its own tenantdb_admin: the guide's admin is
	// README's, with README's password.
	if engine == "postgres" {
		s.exec(t, "", `DROP OWNED BY "tenantdb_admin"`, `DROP ROLE "tenantdb_admin"`)
	} else {
		rows, err := s.super(t, "").Query(`SELECT Host FROM mysql.user WHERE User = 'tenantdb_admin'`)
		if err != nil {
			t.Fatal(err)
		}
		var hosts []string
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				t.Fatal(err)
			}
			hosts = append(hosts, h)
		}
		rows.Close()
		for _, h := range hosts {
			s.exec(t, "", fmt.Sprintf("DROP USER 'tenantdb_admin'@'%s'", h))
		}
	}
	s.exec(t, "", readmeAdminSQL(t, s)...)
	return s
}

func (s accServer) gettingStarted(t *testing.T, blocks map[string]string, userEnv []string) {
	client := map[string]string{"postgres": "psql", "mysql": "mariadb"}[s.Engine]
	if _, err := exec.LookPath(client); err != nil {
		t.Fatalf("the guide logs in with %s, which is not on PATH (Debian: apt-get install -y postgresql-client mariadb-client)", client)
	}
	// Step 2: the login to grant to, as the superuser.
	s.exec(t, "", sqlStatements(blocks["grantee-"+s.Engine])...)

	// Step 3: main.tf, ca.pem, and the variables the user sets: the guide's
	// own, with this server's engine, address and port.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.tf"), blocks["main.tf"])
	write(t, filepath.Join(dir, "ca.pem"), s.CAPEM)
	vars := map[string]string{}
	for _, m := range exportRE.FindAllStringSubmatch(blocks["env"], -1) {
		vars[m[1]] = m[2] + m[3]
	}
	for _, name := range []string{"TF_VAR_engine", "TF_VAR_host", "TF_VAR_port", "TENANTDB_ADMIN_PASSWORD_MAIN", "TF_VAR_owner_password"} {
		if vars[name] == "" {
			t.Fatalf("the guide's env block does not export %s:\n%s", name, blocks["env"])
		}
	}
	vars["TF_VAR_engine"], vars["TF_VAR_host"], vars["TF_VAR_port"] = s.Engine, s.Host, fmt.Sprint(s.Port)
	env := slices.Clone(userEnv)
	for k, v := range vars {
		env = append(env, k+"="+v)
	}

	// Step 4: init and apply.
	out := runBlock(t, dir, env, "apply", blocks["apply"])
	requireOutput(t, "apply", out, "Plan: 4 to add, 0 to change, 0 to destroy.", "Apply complete! Resources: 4 added, 0 changed, 0 destroyed.")
	state, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{vars["TF_VAR_owner_password"], vars["TENANTDB_ADMIN_PASSWORD_MAIN"]} {
		if strings.Contains(string(state), secret) {
			t.Fatal("a password is in terraform.tfstate")
		}
	}

	// Step 5: the guide's own login commands, then what they do not show.
	out = runBlock(t, dir, env, "check-"+s.Engine, blocks["check-"+s.Engine])
	if !regexp.MustCompile(`(?m)^\s*1\s*$`).MatchString(out) {
		t.Fatalf("analyst's count(*) did not print 1:\n%s", out)
	}
	orders := s.table("acme_wms", "orders")
	if err := s.as("analyst", "analyst-password", "acme_wms", "INSERT INTO "+orders+" VALUES (2)"); err == nil {
		t.Fatal("analyst (SELECT only) wrote to orders")
	}

	// Step 6: 20 databases made before Terraform, adopted by one apply.
	var legacy []string
	for i := 1; i <= 20; i++ {
		legacy = append(legacy, fmt.Sprintf("legacy_%02d", i))
		s.exec(t, "", "CREATE DATABASE "+s.ident(legacy[i-1]))
	}
	// A pull request's plan declaring one as a new tenant: refused at
	// plan time, naming it, with the import block; nothing made.
	write(t, filepath.Join(dir, "taken.tf"), blocks["taken.tf"])
	out, err = tryEnv(dir, env, "bash", "-euo", "pipefail", "-c", blocks["taken-plan"])
	if err == nil {
		t.Fatalf("guide step \"taken-plan\": the plan of a taken name succeeded:\n%s", out)
	}
	requireOutput(t, "taken-plan", out, `DatabasePreExists: database "legacy_01"`, "tenantdb_tenant_database.new_tenant", "import {")
	if err := os.Remove(filepath.Join(dir, "taken.tf")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "adopt.tf"), blocks["adopt.tf"])
	out = runBlock(t, dir, env, "adopt", blocks["adopt"])
	changed := "20" // the apply gives each imported database its claim mark (an in-place update)
	if s.Engine == "postgres" {
		changed = "0"
	}
	requireOutput(t, "adopt", out, "Plan: 20 to import, 0 to add, "+changed+" to change, 0 to destroy.",
		"Apply complete! Resources: 20 imported, 0 added, "+changed+" changed, 0 destroyed.")
	var st map[string]any
	raw, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	var adopted []string
	for _, i := range instances(st, "tenantdb_tenant_database") {
		a := i["attributes"].(map[string]any)
		if a["database_created"] == false {
			adopted = append(adopted, a["name"].(string))
		}
	}
	slices.Sort(adopted)
	if !slices.Equal(adopted, legacy) {
		t.Fatalf("adopted (database_created = false) in state: %v, want %v", adopted, legacy)
	}
	out = runBlock(t, dir, env, "plan", blocks["plan"])
	requireOutput(t, "plan", out, "No changes.")

	// Step 7: destroy under retain keeps every database and its rows.
	out = runBlock(t, dir, env, "destroy", blocks["destroy"])
	requireOutput(t, "destroy", out, "DatabaseRetained", "Destroy complete! Resources: 24 destroyed.")
	for _, db := range append([]string{"acme_wms"}, legacy...) {
		if !s.databaseExists(t, db) {
			t.Errorf("destroy under retain dropped %s", db)
		}
	}
	if n := s.count(t, "acme_wms", "SELECT COUNT(*) FROM "+orders); n != 1 {
		t.Errorf("acme_wms.orders has %d rows after destroy, want 1", n)
	}
	if s.loginExists(t, "acme_app") {
		t.Error("the owner login acme_app outlived destroy")
	}
	if !s.loginExists(t, "analyst") {
		t.Error("destroy dropped analyst, a login Terraform never made")
	}
	if err := s.as("analyst", "analyst-password", "acme_wms", "SELECT COUNT(*) FROM "+orders); err == nil {
		t.Error("analyst still reads orders after the grant was destroyed")
	}
}
