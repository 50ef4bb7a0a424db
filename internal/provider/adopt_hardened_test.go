// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"testing"
)

// TestAccAdoptHardenedTenant (issue 42, item 6): a PostgreSQL tenant made
// outside Terraform and hardened (REVOKE ALL ON DATABASE ... FROM PUBLIC),
// with its owner and a grant, is adopted with three import blocks in one
// configuration. The admin cannot connect to the database before the
// owner's import is applied, so the grant's import reads what it can
// without connecting (the database's ACL); the plan runs no DDL/DCL (the
// statement log), the apply completes the adoption in one step, the next
// plan is empty, and the grantee still reads.
func TestAccAdoptHardenedTenant(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, rep := uniqueName("hrd"), uniqueName("hrd_app"), uniqueName("hrd_rep")
	const ownerPW = "Owner-pw-1"
	s.CreateLogin(t, owner, ownerPW)
	s.principal(t, rep)
	t.Cleanup(func() { s.dropDatabase(t, db) })
	s.exec(t, "", "CREATE DATABASE "+s.ident(db)+" OWNER "+s.ident(owner), "REVOKE ALL ON DATABASE "+s.ident(db)+" FROM PUBLIC")
	// The adoption guide's superuser step (16+) makes the admin a member
	// of the owner that inherits its rights, CONNECT included: there the
	// adoption must still go in one plan, but the admin is not kept out.
	keptOut := !s.administersOnlyItsRoles(t)
	if !keptOut {
		s.exec(t, "", fmt.Sprintf("GRANT %s TO %s WITH ADMIN OPTION", s.ident(owner), s.ident(s.Admin.Username)))
	}
	r := s.ident(rep)
	if err := s.as(owner, ownerPW, db, "CREATE TABLE orders (id int PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)",
		"GRANT CONNECT ON DATABASE "+s.ident(db)+" TO "+r, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+r,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO "+r); err != nil {
		t.Fatal(err)
	}
	read := func() error { return s.as(rep, principalPW, db, "SELECT count(*) FROM orders") }
	if err := read(); err != nil {
		t.Fatalf("the grantee cannot read before the import: %v", err)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_database WHERE datname = $1 AND has_database_privilege($2, oid, 'CONNECT')`,
		db, s.Admin.Username); keptOut && n != 0 {
		t.Fatal("the admin may connect to the hardened database before the import: the test shows nothing")
	}

	w, actions, importing := s.planTenantImport(t, db, owner, rep, ownerPW)
	for _, addr := range []string{"tenantdb_tenant_database.db", "tenantdb_tenant_owner.o", "tenantdb_tenant_grant.g"} {
		if !importing[addr] {
			t.Errorf("%s is not imported by the plan (actions %v)", addr, actions[addr])
		}
	}
	// The plan could read the grant's database privileges only: it may
	// show the table privileges as an update, which the apply reads in
	// full (after joining the owner) and completes.
	t.Logf("planned: owner %v, grant %v", actions["tenantdb_tenant_owner.o"], actions["tenantdb_tenant_grant.g"])
	applyPlanFile(t, w, "the import apply")
	if got := w.stateAttr("tenantdb_tenant_grant", "privileges"); fmt.Sprint(got) != "[SELECT]" {
		t.Fatalf("the adoption put privileges = %v in state, want [SELECT]", got)
	}
	w.requireEmptyPlan(t, "after the adoption")
	if err := read(); err != nil {
		t.Fatalf("the grantee cannot read after the adoption: %v", err)
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_database d, aclexplode(d.datacl) a WHERE d.datname = $1 AND a.grantee = 0`, db); n != 0 {
		t.Errorf("the adoption gave PUBLIC %d privileges on the hardened database", n)
	}
}
