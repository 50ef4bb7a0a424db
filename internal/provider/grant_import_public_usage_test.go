// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// A PostgreSQL grant made the cyrilgdn way imports as what the grantee can
// do (issue 36 item 2): CONNECT on the database, SELECT on every table and
// the owner's default privileges, with schema public's USAGE coming from
// PUBLIC (PostgreSQL 15+), reads everything, so it imports as SELECT and
// the first plan is empty. When the tenant takes PUBLIC's USAGE away the
// grantee really reads nothing: the refresh shows SELECT missing and the
// apply gives the grantee USAGE of its own (ddl.PostgresGrantRead.Held).

// plannedChange is one resource of a saved plan (terraform show -json).
type plannedChange struct {
	Address string `json:"address"`
	Type    string `json:"type"`
	Change  struct {
		Actions   []string        `json:"actions"`
		Importing json.RawMessage `json:"importing"`
	} `json:"change"`
}

// savedPlan plans into tfplan and returns the plan as terraform show -json
// prints it, and its resource changes.
func savedPlan(t *testing.T, w *cliWorkspace) (string, []plannedChange) {
	t.Helper()
	w.run("plan", "-out=tfplan").mustSucceed(t, "plan")
	out, err := tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "show", "-json", "tfplan")
	if err != nil {
		t.Fatalf("terraform show: %v\n%s", err, out)
	}
	var plan struct {
		ResourceChanges []plannedChange `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &plan); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	return out, plan.ResourceChanges
}

// planActions plans into tfplan and returns each resource's planned
// actions by address, and whether it is imported.
func planActions(t *testing.T, w *cliWorkspace) (actions map[string][]string, importing map[string]bool) {
	t.Helper()
	_, changes := savedPlan(t, w)
	actions, importing = map[string][]string{}, map[string]bool{}
	for _, rc := range changes {
		actions[rc.Address] = rc.Change.Actions
		importing[rc.Address] = len(rc.Change.Importing) > 0 && string(rc.Change.Importing) != "null"
	}
	return actions, importing
}

// applyPlanFile applies the plan planActions saved (run adds -json after
// the arguments, where a plan file may not go).
func applyPlanFile(t *testing.T, w *cliWorkspace, what string) {
	t.Helper()
	cliResultOf(tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "apply", "-json", "tfplan")).mustSucceed(t, what)
}

// schemaUsage is who holds USAGE on schema public of db by its ACL: the
// grantee's own entry, and PUBLIC's.
func (s accServer) schemaUsage(t *testing.T, db, grantee string) (own, public bool) {
	t.Helper()
	q := `SELECT count(*) FROM pg_namespace n, aclexplode(n.nspacl) a
	      WHERE n.nspname = 'public' AND a.privilege_type = 'USAGE' AND a.grantee = `
	own = s.count(t, db, q+`$1::regrole`, grantee) > 0
	public = s.count(t, db, q+`0`) > 0
	return own, public
}

// importTenantHCL adopts database db, its owner (keeping password ownerPW)
// and a grant of SELECT to rep, with three import blocks.
func importTenantHCL(db, owner, rep, ownerPW string) string {
	return fmt.Sprintf(`
resource "tenantdb_tenant_database" "db" {
  server = tenantdb_db_server.main.ref
  name   = %[1]q
}

resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.db.name
  username            = %[2]q
  password_wo         = %[4]q # the password it has: the tenant keeps logging in with it
  password_wo_version = 1
}

resource "tenantdb_tenant_grant" "g" {
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.db.name
  username   = %[3]q
  privileges = ["SELECT"]
}

import {
  to = tenantdb_tenant_database.db
  id = jsonencode({ server = tenantdb_db_server.main.ref, name = %[1]q })
}

import {
  to = tenantdb_tenant_owner.o
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = %[1]q, username = %[2]q })
}

import {
  to = tenantdb_tenant_grant.g
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = %[1]q, username = %[3]q })
}
`, db, owner, rep, ownerPW)
}

// planTenantImport writes importTenantHCL in a new workspace, applies its
// db_server alone, and plans the imports into tfplan, requiring that the
// plan ran only reads (the statement log).
func (s accServer) planTenantImport(t *testing.T, db, owner, rep, ownerPW string) (*cliWorkspace, map[string][]string, map[string]bool) {
	t.Helper()
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + importTenantHCL(db, owner, rep, ownerPW))
	w.run("apply", "-auto-approve", "-target=tenantdb_db_server.main").mustSucceed(t, "the db_server on its own")
	mark := s.MarkLog(t)
	actions, importing := planActions(t, w)
	if s.requireOnlyReads(t, mark, "the import plan") == 0 {
		t.Fatal("the statement log shows no statement of the import plan")
	}
	return w, actions, importing
}

// TestAccTenantGrant_importThroughPublicUsage: import a database, its owner
// and a grant made by hand the way cyrilgdn/postgresql makes one (a
// superuser admin: postgresql_grant on the database and on the tables,
// postgresql_default_privileges), on PostgreSQL.
func TestAccTenantGrant_importThroughPublicUsage(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, rep := uniqueName("gpu"), uniqueName("gpu_app"), uniqueName("gpu_rep")
	const ownerPW = "Owner-pw-1"
	s.CreateLogin(t, owner, ownerPW)
	if s.administersOnlyItsRoles(t) {
		// PostgreSQL 16+: README's superuser step before an owner made
		// elsewhere is imported.
		s.exec(t, "", fmt.Sprintf("GRANT %s TO %s WITH ADMIN OPTION", s.ident(owner), s.ident(s.Admin.Username)))
	}
	s.principal(t, rep)
	t.Cleanup(func() { s.dropDatabase(t, db) }) // before the logins' own cleanup
	s.exec(t, "", "CREATE DATABASE "+s.ident(db)+" OWNER "+s.ident(owner))
	if err := s.as(owner, ownerPW, db, "CREATE TABLE orders (id int PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	r, o := s.ident(rep), s.ident(owner)
	s.exec(t, db, // cyrilgdn's statements, run by its superuser admin
		"GRANT CONNECT ON DATABASE "+s.ident(db)+" TO "+r,
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+r,
		"ALTER DEFAULT PRIVILEGES FOR ROLE "+o+" IN SCHEMA public GRANT SELECT ON TABLES TO "+r)
	if err := s.as(owner, ownerPW, db, "CREATE TABLE invoices (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		return s.as(rep, principalPW, db, "SELECT count(*) FROM orders", "SELECT count(*) FROM invoices")
	}
	if own, public := s.schemaUsage(t, db, rep); own || !public {
		t.Fatalf("the fleet is not cyrilgdn's: %s's own USAGE on public %v, PUBLIC's %v", rep, own, public)
	}
	if err := read(); err != nil {
		t.Fatalf("the grantee cannot read before the import: %v", err)
	}

	// The import's plan reads only, and plans no change to the grant.
	w, actions, importing := s.planTenantImport(t, db, owner, rep, ownerPW)
	if a := actions["tenantdb_tenant_grant.g"]; !slices.Equal(a, []string{"no-op"}) || !importing["tenantdb_tenant_grant.g"] {
		t.Fatalf("the grant made the cyrilgdn way plans %v (importing %v), want an import with no change", a, importing["tenantdb_tenant_grant.g"])
	}
	applyPlanFile(t, w, "the import apply")
	if got := w.stateAttr("tenantdb_tenant_grant", "privileges"); fmt.Sprint(got) != "[SELECT]" {
		t.Fatalf("the import put privileges = %v in state, want [SELECT]", got)
	}
	w.requireEmptyPlan(t, "after the import (a refresh reads what the import read)")
	if own, _ := s.schemaUsage(t, db, rep); own {
		t.Errorf("the import apply granted %s USAGE of its own: it changed no one's access", rep)
	}
	if err := read(); err != nil {
		t.Fatalf("the grantee cannot read after the import: %v", err)
	}

	// The tenant takes PUBLIC's USAGE away: the grantee reads nothing, and
	// the refresh says so.
	if err := s.as(owner, ownerPW, db, "REVOKE USAGE ON SCHEMA public FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}
	if err := read(); err == nil {
		t.Fatal("the grantee still reads without any USAGE on public: the test shows nothing")
	}
	mark := s.MarkLog(t)
	actions, _ = planActions(t, w)
	s.requireOnlyReads(t, mark, "the plan after PUBLIC lost USAGE")
	if a := actions["tenantdb_tenant_grant.g"]; !slices.Equal(a, []string{"update"}) {
		t.Fatalf("after PUBLIC lost USAGE the grant plans %v, want an update (SELECT is no longer held)", a)
	}
	applyPlanFile(t, w, "the apply after PUBLIC lost USAGE")
	w.requireEmptyPlan(t, "after the grantee got USAGE of its own")
	own, public := s.schemaUsage(t, db, rep)
	if !own || public {
		t.Errorf("after the apply: %s's own USAGE %v (want true), PUBLIC's %v (want false: never given back)", rep, own, public)
	}
	if err := read(); err != nil {
		t.Fatalf("the grantee cannot read after the apply: %v", err)
	}

	// Destroy revokes the grantee's own rights and keeps the database.
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if err := read(); err == nil {
		t.Error("the grantee still reads after its grant was destroyed")
	}
	if n := s.count(t, db, "SELECT count(*) FROM orders"); n != 2 {
		t.Errorf("orders holds %d rows after destroy, want 2", n)
	}
}
