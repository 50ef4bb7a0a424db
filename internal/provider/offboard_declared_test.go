// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Offboarding a PostgreSQL tenant (issue 42, items 4 and 5): after the
// owner's destroy (database retained) only the admin and declared grants
// hold anything in the database, and another tenant's grant to the owner
// login does not block the drop.

// offboardHCL: tenant db with its owner (unless noOwner) and a declared
// grant of SELECT to carol; tenant other with its own owner.
func offboardHCL(s accServer, db, owner, carol, other, otherOwner string, noOwner bool) string {
	cfg := s.serverHCL("") + otherTenantHCL(other, otherOwner)
	if noOwner {
		return cfg + tenantDatabaseHCL(db, "") + grantHCL("c", "tenantdb_tenant_database."+db+".name", carol, `["SELECT"]`, "")
	}
	return cfg + tenantDatabaseHCL(db, "") + strings.Replace(ownerBlockHCL(owner, "Owner-pw-1", 1, ""),
		"tenantdb_tenant_database.db.name", "tenantdb_tenant_database."+db+".name", 1) +
		grantHCL("c", "tenantdb_tenant_database."+db+".name", carol, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]")
}

// otherTenantHCL is another tenant: database other, owner otherOwner
// (password Owner-pw-2).
func otherTenantHCL(other, otherOwner string) string {
	return tenantDatabaseHCL(other, "") + fmt.Sprintf(`
resource "tenantdb_tenant_owner" "other" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.%s.name
  username            = %q
  password_wo         = "Owner-pw-2"
  password_wo_version = 1
}
`, other, otherOwner)
}

// TestAccOffboard_leavesOnlyDeclared: before it is offboarded the owner
// grants bob CONNECT WITH GRANT OPTION (bob passes CONNECT on to dave),
// SELECT on orders to bob and to PUBLIC, CONNECT to PUBLIC, EXECUTE on a
// function, USAGE on a sequence, a column privilege, a large object and a
// default privilege to bob; tenant other's owner grants the owner login
// SELECT on its table t; the owner login, connected to the maintenance
// database, makes a large object and a default privilege there (issue 53:
// these used to refuse every destroy). Destroying the owner (the database
// retained) succeeds; bob, dave and a fresh login can neither connect nor
// read; carol, declared, still reads orders; the catalogs hold no entry
// for anyone but the database's keeper role and carol, and no grant
// option; other's table t is untouched and its ACL no longer names the
// dropped login; warnings name the maintenance database (its large object
// and default privileges removed) and other (its grant revoked).
func TestAccOffboard_leavesOnlyDeclared(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, other, otherOwner := uniqueName("off"), uniqueName("offo"), uniqueName("offx"), uniqueName("offxo")
	carol, bob, dave, fresh := uniqueName("carol"), uniqueName("bob"), uniqueName("dave"), uniqueName("fresh")
	for _, p := range []string{carol, bob, dave, fresh} {
		s.principal(t, p)
	}
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropDatabase(t, other)
		s.dropLogins(t, owner, otherOwner, carol, bob, dave, fresh, keeperOf(t, db))
	})
	w := newCLIWorkspace(t)
	w.write(offboardHCL(s, db, owner, carol, other, otherOwner, false))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")

	if err := s.as(owner, "Owner-pw-1", db,
		"CREATE TABLE orders (id int, secret text)", "INSERT INTO orders VALUES (1, 'x')",
		"CREATE SEQUENCE seq", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"CREATE SCHEMA app", "CREATE TABLE app.t2 (v int)",
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s WITH GRANT OPTION", db, bob),
		fmt.Sprintf("GRANT CONNECT, TEMPORARY ON DATABASE %s TO PUBLIC", db),
		"GRANT SELECT ON orders TO "+bob+" WITH GRANT OPTION", "GRANT SELECT ON orders TO PUBLIC",
		"GRANT SELECT (secret) ON orders TO "+dave, "GRANT USAGE ON SEQUENCE seq TO "+bob,
		"REVOKE EXECUTE ON FUNCTION f() FROM PUBLIC", "GRANT EXECUTE ON FUNCTION f() TO "+bob,
		"GRANT USAGE, CREATE ON SCHEMA app TO "+bob, "GRANT CREATE ON SCHEMA public TO PUBLIC",
		"GRANT ALL ON app.t2 TO "+bob, "SELECT lo_create(4242042)", "GRANT SELECT ON LARGE OBJECT 4242042 TO "+bob,
		"ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO "+bob,
		"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO PUBLIC",
	); err != nil {
		t.Fatal(err)
	}
	// A chain through bob's grant options.
	if err := s.as(bob, principalPW, db, fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", db, dave),
		"GRANT SELECT ON orders TO "+dave); err != nil {
		t.Fatal(err)
	}
	// Another tenant's owner grants this tenant's owner login a table.
	if err := s.as(otherOwner, "Owner-pw-2", other, "CREATE TABLE t (v int)", "INSERT INTO t VALUES (7)",
		"GRANT SELECT ON t TO "+owner); err != nil {
		t.Fatal(err)
	}
	if err := s.as(bob, principalPW, db, "SELECT * FROM orders"); err != nil {
		t.Fatalf("the setup did not give bob the table: %v", err)
	}
	// Holdings in the maintenance database, where PUBLIC may connect.
	if err := s.as(owner, "Owner-pw-1", "postgres", "SELECT lo_create(0)",
		"ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC"); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, "postgres", `SELECT (SELECT count(*) FROM pg_largeobject_metadata WHERE lomowner = r.oid) +
  (SELECT count(*) FROM pg_default_acl WHERE defaclrole = r.oid) FROM pg_roles r WHERE rolname = $1`, owner); n != 2 {
		t.Fatalf("the owner holds %d large objects and default privileges in the maintenance database, want 2", n)
	}

	w.write(offboardHCL(s, db, owner, carol, other, otherOwner, true))
	r := w.run("apply", "-auto-approve").mustSucceed(t, "offboard the owner, the database retained")
	w.requireEmptyPlan(t, "after the offboarding (carol's grant is whole)")
	var removed []string
	for _, d := range r.Diagnostics {
		if d.Severity == "warning" && d.Summary == summaryOffboardRemoved {
			removed = append(removed, d.Detail)
		}
	}
	for _, want := range []string{`database "postgres"`, "1 large object(s)", "default privileges", fmt.Sprintf("database %q", other),
		"privileges granted to it"} {
		if !strings.Contains(strings.Join(removed, "\n"), want) {
			t.Errorf("the removal warnings do not say %q: %q", want, removed)
		}
	}

	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1`, owner); n != 0 {
		t.Fatalf("the owner login %s was not dropped", owner)
	}
	for _, who := range []string{bob, dave, fresh} {
		if err := s.as(who, principalPW, db, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "denied") {
			t.Errorf("%s connects to the offboarded database (err %v)", who, err)
		}
		if n := s.count(t, db, `SELECT count(*) FROM (VALUES
  (has_database_privilege($1, current_database(), 'CONNECT')), (has_database_privilege($1, current_database(), 'TEMPORARY')),
  (has_table_privilege($1, 'orders', 'SELECT')), (has_column_privilege($1, 'orders', 'secret', 'SELECT')),
  (has_sequence_privilege($1, 'seq', 'USAGE')), (has_function_privilege($1, 'f()', 'EXECUTE')),
  (has_schema_privilege($1, 'app', 'USAGE')), (has_schema_privilege($1, 'public', 'CREATE')),
  (has_table_privilege($1, 'app.t2', 'SELECT'))) v(held) WHERE held`, who); n != 0 {
			t.Errorf("%s still holds %d of the tenant's onward privileges", who, n)
		}
	}
	if err := s.as(carol, principalPW, db, "SELECT id FROM orders"); err != nil {
		t.Errorf("carol, a declared grantee, lost her grant: %v", err)
	}
	// Every ACL entry left in the database names the admin or carol, none
	// grantable.
	left := s.superStringsIn(t, db, `
SELECT kind || ': ' || CASE WHEN grantee = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(grantee) END || ' ' || privilege_type ||
       CASE WHEN is_grantable THEN '*' ELSE '' END
FROM (SELECT 'database' kind, (aclexplode(datacl)).* FROM pg_database WHERE datname = current_database()
      UNION ALL SELECT 'relation ' || relname, (aclexplode(relacl)).* FROM pg_class WHERE relnamespace IN ('public'::regnamespace, 'app'::regnamespace)
      UNION ALL SELECT 'column ' || attname, (aclexplode(attacl)).* FROM pg_attribute WHERE attrelid = 'orders'::regclass
      UNION ALL SELECT 'function', (aclexplode(proacl)).* FROM pg_proc WHERE proname = 'f'
      UNION ALL SELECT 'schema ' || nspname, (aclexplode(nspacl)).* FROM pg_namespace WHERE nspname IN ('public', 'app')
      UNION ALL SELECT 'large object', (aclexplode(lomacl)).* FROM pg_largeobject_metadata
      UNION ALL SELECT 'default', (aclexplode(defaclacl)).* FROM pg_default_acl) e
WHERE grantee NOT IN (SELECT oid FROM pg_roles WHERE rolname IN ($1, $2, 'pg_database_owner'))
  AND NOT (grantee = 0 AND kind = 'schema public' AND privilege_type = 'USAGE')
  OR is_grantable ORDER BY 1`, keeperOf(t, db), carol)
	if len(left) > 0 {
		t.Errorf("the offboarded database still grants, beyond its keeper and carol:\n  %s", strings.Join(left, "\n  "))
	}
	// The other tenant's table is untouched; its ACL no longer names the
	// dropped login (its OID would show as a number).
	if n := s.count(t, other, `SELECT count(*) FROM t WHERE v = 7`); n != 1 {
		t.Errorf("the other tenant's table t lost its row (%d rows)", n)
	}
	if acl := s.superStringsIn(t, other, `SELECT relacl::text FROM pg_class WHERE relname = 't'`); len(acl) != 1 || strings.Contains(acl[0], owner) {
		t.Errorf("the other tenant's table ACL: %v", acl)
	}
}

// keeperOf is the keeper role of PostgreSQL database db: it holds a
// retained database and its objects once the owner is offboarded.
func keeperOf(t *testing.T, db string) string {
	t.Helper()
	name, err := ddl.NewDatabaseName(ddl.EnginePostgres, db)
	if err != nil {
		t.Fatal(err)
	}
	return ddl.KeeperName(name).String()
}

// superStringsIn runs a query returning one text column as the superuser
// in database db ("" the maintenance database).
func (s accServer) superStringsIn(t *testing.T, db, query string, args ...any) []string {
	t.Helper()
	rows, err := s.super(t, db).Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAccOffboard_dataMovesBeforeDrop (issue 42, item 1): the owner sets
// its database's role to itself, so the admin's sessions there run as the
// owner and CURRENT_USER is the owner. Destroying the owner (database
// retained) must not drop the tenant's table: REASSIGN OWNED names the
// keeper, and DROP OWNED runs only once the login owns nothing left there.
// Whether that destroy succeeds (a pinned session) or stops (the owner may
// not reassign), the rows are there; once the setting is gone the
// offboarding completes and the database's keeper role (never the admin,
// issue 53) owns the table.
func TestAccOffboard_dataMovesBeforeDrop(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner := uniqueName("dmv"), uniqueName("dmvo")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, owner, keeperOf(t, db))
	})
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE orders (v int)", "INSERT INTO orders VALUES (1), (2)",
		fmt.Sprintf("ALTER DATABASE %s SET role = %s", db, owner)); err != nil {
		t.Fatal(err)
	}
	w.write(s.serverHCL("") + fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n}\n", db))
	first := w.run("apply", "-auto-approve")
	// The superuser's sessions there would run as the owner too.
	if _, err := s.super(t, "").Exec(fmt.Sprintf(`ALTER DATABASE %q RESET role`, db)); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, db, `SELECT count(*) FROM orders`); n != 2 {
		t.Fatalf("the offboarding lost the tenant's rows: %d left (apply error: %v)", n, first.Err)
	}
	if first.Err != nil {
		t.Logf("the offboarding stopped while the role was set: %s", first.Diagnostics)
		w.run("apply", "-auto-approve").mustSucceed(t, "offboard once the role setting is gone")
	}
	if got := s.superStringsIn(t, db, `SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE relname = 'orders'`); len(got) != 1 || got[0] != keeperOf(t, db) {
		t.Fatalf("orders is owned by %v after the offboarding, want the keeper %s", got, keeperOf(t, db))
	}
	if n := s.count(t, db, `SELECT count(*) FROM orders`); n != 2 {
		t.Fatalf("the offboarding lost the tenant's rows: %d left", n)
	}
}

// TestAccOffboard_foreignObjectsRefused (issue 42, item 5): the owner login
// made a table in another tenant's database (that tenant's owner let it).
// tenantdb never drops or reassigns objects there (they may hold that
// tenant's rows), so the owner's destroy is refused, but only after the
// lock-out and the handover (issue 53): the error names that database and
// the statements that clear it and says the login is locked out; the login
// cannot log in, its database and tables are the keeper's, the other
// tenant's table is untouched. Once the statements run, the destroy
// succeeds.
func TestAccOffboard_foreignObjectsRefused(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, owner, other, otherOwner := uniqueName("ofr"), uniqueName("ofro"), uniqueName("ofrx"), uniqueName("ofrxo")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropDatabase(t, other)
		s.dropLogins(t, owner, otherOwner, keeperOf(t, db))
	})
	w := newCLIWorkspace(t)
	cfg := func(withOwner bool) string {
		c := s.serverHCL("") + otherTenantHCL(other, otherOwner) + tenantDatabaseHCL(db, "")
		if withOwner {
			c += strings.Replace(ownerBlockHCL(owner, "Owner-pw-1", 1, ""), "tenantdb_tenant_database.db.name", "tenantdb_tenant_database."+db+".name", 1)
		}
		return c
	}
	w.write(cfg(true))
	w.run("apply", "-auto-approve").mustSucceed(t, "create")
	if err := s.as(owner, "Owner-pw-1", db, "CREATE TABLE orders (v int)", "INSERT INTO orders VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := s.as(otherOwner, "Owner-pw-2", other, "CREATE TABLE t (v int)", "INSERT INTO t VALUES (7)",
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", other, owner), "GRANT CREATE ON SCHEMA public TO "+owner); err != nil {
		t.Fatal(err)
	}
	if err := s.as(owner, "Owner-pw-1", other, "CREATE TABLE mine (v int)"); err != nil {
		t.Fatal(err)
	}
	w.write(cfg(false))
	r := w.run("apply", "-auto-approve").mustFail(t, "offboard while the login owns a table in another database")
	d := r.requireDiag(t, "error", "Could not drop login")
	for _, want := range []string{fmt.Sprintf("database %q: it owns objects", other), "REASSIGN OWNED BY " + `"` + owner + `"`, "already locked out"} {
		if !strings.Contains(d.Detail, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, d.Detail)
		}
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_database WHERE datname = $1 AND pg_get_userbyid(datdba) = $2`, db, keeperOf(t, db)); n != 1 {
		t.Error("the refused offboarding did not hand the database to its keeper first")
	}
	if n := s.count(t, "", `SELECT count(*) FROM pg_roles WHERE rolname = $1 AND NOT rolcanlogin`, owner); n != 1 {
		t.Error("the refused offboarding did not lock the login out first")
	}
	if n := s.count(t, other, `SELECT count(*) FROM t`); n != 1 {
		t.Errorf("the other tenant's table t holds %d rows", n)
	}
	if got := s.superStringsIn(t, other, `SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE relname = 'mine'`); len(got) != 1 || got[0] != owner {
		t.Errorf("the login's table in the other database: owner %v", got)
	}
	// The statements the refusal gives, run by a superuser.
	s.exec(t, other, fmt.Sprintf("REASSIGN OWNED BY %s TO %s", s.ident(owner), s.ident(otherOwner)), "DROP OWNED BY "+s.ident(owner))
	w.run("apply", "-auto-approve").mustSucceed(t, "offboard once the other database is cleared")
	if n := s.count(t, db, `SELECT count(*) FROM orders`); n != 1 {
		t.Errorf("the tenant's table holds %d rows after the offboarding", n)
	}
}

// TestAccOffboard_declaredGranteesCarried: the declared grantees live in
// the owner login's mark (grants=, OIDs), which only the admin writes. A
// grant made before the owner exists is taken into the owner's mark at its
// create (the admin owned the database then, so only the admin could have
// granted CONNECT); a username rotation carries the list to the new login;
// the offboarding of the rotated login leaves carol her grant and takes
// away bob's, which the tenant gave.
func TestAccOffboard_declaredGranteesCarried(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, ownerA, ownerB, carol, bob := uniqueName("odc"), uniqueName("odca"), uniqueName("odcb"), uniqueName("carol"), uniqueName("bob")
	s.principal(t, carol)
	s.principal(t, bob)
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, ownerA, ownerB, keeperOf(t, db))
	})
	carolOID := fmt.Sprint(s.count(t, "", `SELECT oid::int FROM pg_roles WHERE rolname = $1`, carol))
	grant := grantHCL("c", "tenantdb_tenant_database.db.name", carol, `["SELECT"]`, "")
	dbOnly := strings.SplitN(ownerHCL(db, ownerA, "Owner-pw-1", 1, ""), `resource "tenantdb_tenant_owner"`, 2)[0]
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + dbOnly + grant)
	w.run("apply", "-auto-approve").mustSucceed(t, "the grant before any owner")
	w.write(s.serverHCL("") + ownerHCL(db, ownerA, "Owner-pw-1", 1, "") + grant)
	w.run("apply", "-auto-approve").mustSucceed(t, "the owner after the grant")
	if c := s.roleComment(t, ownerA); !strings.Contains(c, " grants="+carolOID+" ") {
		t.Fatalf("the owner's mark does not declare carol (OID %s): %q", carolOID, c)
	}
	if err := s.as(ownerA, "Owner-pw-1", db, "CREATE TABLE orders (v int)", "INSERT INTO orders VALUES (1)",
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", db, bob), "GRANT SELECT ON orders TO "+bob, "GRANT SELECT ON orders TO "+carol); err != nil {
		t.Fatal(err)
	}
	w.write(s.serverHCL("") + ownerHCL(db, ownerB, "Owner-pw-1", 1, "") + grant)
	w.run("apply", "-auto-approve").mustSucceed(t, "rotate the owner's username")
	if c := s.roleComment(t, ownerB); !strings.Contains(c, " grants="+carolOID+" ") {
		t.Fatalf("the rotation did not carry the declared grantees: %q", c)
	}
	w.write(s.serverHCL("") + dbOnly + grant)
	w.run("apply", "-auto-approve").mustSucceed(t, "offboard the rotated owner")
	if err := s.as(carol, principalPW, db, "SELECT v FROM orders"); err != nil {
		t.Errorf("carol, declared, lost her grant: %v", err)
	}
	if err := denied(s.as(bob, principalPW, db, "SELECT v FROM orders"), "bob connecting"); err != nil {
		t.Error(err)
	}
	w.requireEmptyPlan(t, "after the offboarding")
}
