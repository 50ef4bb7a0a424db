// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// hostilePassword has every character that breaks naive quoting.
const hostilePassword = "p'a\\ss\"wö`rd''\\'%_?"

// fixedSalt makes PostgreSQL verifiers reproducible in golden files.
func fixedSalt() []byte { return []byte("0123456789abcdef") }

func dialectForGolden(info ServerInfo) Dialect {
	if info.Flavor == FlavorPostgres {
		info.Admin = RoleName{"tenantdb_admin"} // REASSIGN OWNED names it
		return postgres{info: info, salt: fixedSalt}
	}
	return NewDialect(info)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// renderAll renders every plan kind with the real (unredacted) SQL, so a
// reviewer reads exactly what a server receives.
func renderAll(t *testing.T, info ServerInfo) string {
	t.Helper()
	e := info.Flavor.Engine()
	d := dialectForGolden(info)
	db := must(NewDatabaseName(e, "acme_1"))
	owner := must(NewUsername(e, "acme_app"))
	newOwner := must(NewUsername(e, "acme_app2"))
	grantee := must(NewUsername(e, "maester"))
	pw := must(NewPassword(hostilePassword))
	all := must(ParsePrivileges(e, []string{"ALL PRIVILEGES"}))
	some := must(ParsePrivileges(e, []string{"SELECT", "DELETE"}))

	var b bytes.Buffer
	section := func(title string, p Plan) {
		fmt.Fprintf(&b, "-- == %s ==\n", title)
		for _, s := range p.Statements {
			writeReal(&b, s)
		}
		if len(p.Undo) > 0 {
			b.WriteString("-- undo\n")
			for _, s := range p.Undo {
				writeReal(&b, s)
			}
		}
		b.WriteString("\n")
	}
	section("create database (defaults)", d.CreateDatabase(db, DefaultCharset(e), DefaultCollation(e)))
	section("create database with a claim mark", d.CreateMarkedDatabase(db, DefaultCharset(e), Collation{}, ClaimMark{"tenantdb:00112233445566778899aabbccddeeff"}))
	if alter, err := d.AlterDatabase(db, DefaultCharset(e), DefaultCollation(e)); err == nil {
		section("alter database", alter)
	} else {
		fmt.Fprintf(&b, "-- == alter database ==\n-- refused: %s\n\n", ReasonOf(err))
	}
	section("drop database", d.DropDatabase(db))
	section("create owner (ALL PRIVILEGES)", d.CreateOwner(db, owner, pw, all))
	section("create owner (SELECT, DELETE)", d.CreateOwner(db, owner, pw, some))
	section("set password", d.SetPassword(owner, pw, false))
	section("set password, retaining the current one", d.SetPassword(owner, pw, true))
	section("discard old password", d.DiscardOldPassword(owner))
	defaults, err := NewDefaultACLs([]DefaultACLRow{
		{ObjType: 'T', Grantee: "", Privilege: "USAGE"},
		{ObjType: 'f', Self: true, Privilege: "EXECUTE"},
		{ObjType: 'n', Grantee: `reporting_readers_of_"all"_tenants`, Privilege: "USAGE"},
		{ObjType: 'r', Grantee: "reader", Privilege: "SELECT"},
		{Schema: "app data", ObjType: 'S', Grantee: "reader", Privilege: "USAGE"},
		{Schema: "app data", ObjType: 'r', Grantee: "reader", Privilege: "INSERT"},
		{Schema: "app data", ObjType: 'r', Grantee: "reader", Privilege: "SELECT"},
	})
	if err != nil {
		panic(err)
	}
	appData := must(NewCatalogSchemaName("app data"))
	handover, drop := RotateOwner(d, db, owner, newOwner, pw, all, ClaimMark{}, true, defaults, OwnedContainers{Schemas: []SchemaName{appData}})
	section("rotate owner: handover", handover)
	section("rotate owner: drop old", drop)
	if e == EnginePostgres {
		section("default privileges handed over", CarryDefaultPrivileges(db, newOwner.Role(), defaults))
		section("default privileges cleared", ClearDefaultPrivileges(db, owner.Role(), defaults))
	}
	section("drop login", d.DropLogin(db, owner))
	if e == EnginePostgres {
		section("offboard: lock the login out", LockOutLogin(owner))
		section("offboard: create the keeper", CreateKeeper(db))
		section("offboard: hand owned to the keeper", HandOwnedToKeeper(db, owner, OwnedContainers{Database: true, Schemas: []SchemaName{appData}}))
		section("re-onboard: the keeper hands to the new owner", KeeperHandsTo(db, newOwner, OwnedContainers{Schemas: []SchemaName{appData}, CreateWithheld: true}))
		revokes, err := OffboardRevokes(db, []OnwardRow{
			{Kind: OnwardDatabase, Grantee: "", Privileges: []string{"CONNECT", "TEMPORARY"}},
			{Kind: OnwardDatabase, Grantee: "bob", Privileges: []string{"CONNECT"}, Grantable: true},
			{Kind: OnwardDatabase, Grantee: "carol", Privileges: []string{"CONNECT"}, Declared: true},
			{Kind: OnwardSchema, Schema: "public", Grantee: "", Privileges: []string{"CREATE", "USAGE"}},
			{Kind: OnwardSchema, Schema: "app data", Grantee: "", Privileges: []string{"USAGE"}},
			{Kind: OnwardTables, Schema: "public", Grantee: "", Privileges: []string{"SELECT"}},
			{Kind: OnwardTables, Schema: "public", Grantee: "bob", Privileges: []string{"SELECT"}, Grantable: true},
			{Kind: OnwardTables, Schema: "public", Grantee: "carol", Privileges: []string{"SELECT"}, Grantable: true, Declared: true},
			{Kind: OnwardSequences, Schema: "public", Grantee: "bob", Privileges: []string{"USAGE"}},
			{Kind: OnwardRoutines, Schema: "public", Grantee: "", Privileges: []string{"EXECUTE"}},
			{Kind: OnwardRoutines, Schema: "public", Grantee: "bob", Privileges: []string{"EXECUTE"}},
			{Kind: OnwardType, Schema: "public", Object: `mood "x"`, Grantee: "bob", Privileges: []string{"USAGE"}},
			{Kind: OnwardDomain, Schema: "public", Object: "posint", Grantee: "bob", Privileges: []string{"USAGE"}},
			{Kind: OnwardLargeObject, Object: "4242042", Grantee: "bob", Privileges: []string{"SELECT"}},
		})
		if err != nil {
			panic(err)
		}
		section("offboard: revoke what the tenant granted onward", revokes)
		section("offboard: drop owned, drop the login", DropOwnedLogin(d, db, owner))
	}
	section("grant: fresh SELECT, DELETE", d.SyncPrivileges(db, grantee, owner, Diff(info, some, nil)))
	section("grant: fresh ALL", d.SyncPrivileges(db, grantee, owner, Diff(info, all, nil)))
	section("grant: narrow ALL to SELECT, DELETE", d.SyncPrivileges(db, grantee, owner, Diff(info, some, Catalog(info))))
	section("grant: swap INSERT for DELETE", d.SyncPrivileges(db, grantee, owner, Diff(info, some, []Privilege{"SELECT", "INSERT"})))
	section("grant: revoke all", d.RevokeAll(db, grantee, owner))
	admin := AdminAccount{User: "tenantdb_admin", Host: "%"}
	fmt.Fprintf(&b, "-- == admin rights: statements that grant them ==\n")
	var fixes []string
	if e == EnginePostgres {
		fixes = PostgresAdminGrants(admin)
	} else {
		fixes = MySQLAdminGrants(info, admin)
	}
	for _, f := range fixes {
		b.WriteString(f + ";\n")
	}
	return b.String()
}

func writeReal(b *bytes.Buffer, s Statement) {
	if s.Database != "" {
		fmt.Fprintf(b, "-- in database %s\n", s.Database)
	}
	if s.Tolerate == TolerateMissing {
		b.WriteString("-- ok if already gone\n")
	}
	if s.Claim {
		b.WriteString("-- claim: fails if it exists; never retried after a lost connection\n")
	}
	b.WriteString(s.SQL() + ";\n")
}

func TestGoldenPlans(t *testing.T) {
	t.Parallel()
	for name, info := range map[string]ServerInfo{
		"mysql-8.0.36":                mysql80,
		"mysql-8.0.13":                mysql8013,
		"mysql-9.7.4-partial-revokes": mysqlPartialRevokes,
		"mariadb-10.11.6":             mariadb,
		"mariadb-11.4.2":              mariadb114,
		"postgres-15.18":              pg15,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := renderAll(t, info)
			path := filepath.Join("testdata", name+".sql")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/ddl -run TestGoldenPlans -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("plans differ from %s (-want +got):\n%s", path, d)
			}
			if strings.Contains(got, "WITH GRANT OPTION") && !strings.Contains(got, "-- == admin rights") {
				t.Error("WITH GRANT OPTION rendered")
			}
			tenantPart := got[:strings.Index(got, "-- == admin rights")]
			if strings.Contains(tenantPart, "WITH GRANT OPTION") {
				t.Error("a tenant plan renders WITH GRANT OPTION")
			}
		})
	}
}

func TestRedaction(t *testing.T) {
	t.Parallel()
	for _, info := range []ServerInfo{mysql80, mariadb, pg15} {
		e := info.Flavor.Engine()
		d := NewDialect(info)
		db := must(NewDatabaseName(e, "acme"))
		u := must(NewUsername(e, "acme_app"))
		pw := must(NewPassword("s3cret-Δ-'\\"))
		plans := []Plan{
			d.CreateOwner(db, u, pw, must(ParsePrivileges(e, []string{"ALL PRIVILEGES"}))),
			d.SetPassword(u, pw, true),
		}
		for _, p := range plans {
			real := ""
			for _, s := range p.Statements {
				real += s.SQL()
				for _, form := range []string{s.String(), fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s)} {
					if strings.Contains(form, "s3cret") || strings.Contains(form, "SCRAM-SHA-256$") {
						t.Errorf("%s: redacted form leaks: %s", info, form)
					}
				}
			}
			if !strings.Contains(p.String(), "[redacted]") {
				t.Errorf("%s: plan string has no redaction marker: %s", info, p)
			}
			if info.Flavor == FlavorMySQL && !strings.Contains(real, "s3cret") {
				t.Errorf("%s: real SQL lacks the password", info)
			}
			if info.Flavor == FlavorMariaDB && (strings.Contains(real, "s3cret") || !strings.Contains(real, mysqlNativeHash("s3cret-Δ-'\\"))) {
				t.Errorf("%s: MariaDB must receive the native hash, never the plaintext: %s", info, real)
			}
			for _, form := range []string{p.String(), fmt.Sprint(p)} {
				if strings.Contains(form, mysqlNativeHash("s3cret-Δ-'\\")) {
					t.Errorf("%s: the redacted plan shows the native hash: %s", info, form)
				}
			}
			if e == EnginePostgres && (strings.Contains(real, "s3cret") || !strings.Contains(real, "SCRAM-SHA-256$4096:")) {
				t.Errorf("%s: PostgreSQL must receive a verifier, never the plaintext: %s", info, real)
			}
		}
	}
	pw := must(NewPassword("s3cret"))
	for _, form := range []string{fmt.Sprint(pw), fmt.Sprintf("%v %+v %#v %s %q %x", pw, pw, pw, pw, pw, pw), pw.String()} {
		if strings.Contains(form, "s3cret") {
			t.Errorf("Password prints itself: %s", form)
		}
	}
}

// TestGrantTargetEscapesWildcards: a database-level grant's target is the
// name as the server will read it. A LIKE pattern (MariaDB, MySQL with
// partial_revokes OFF): "_" escaped, so acme_1 never matches acmeX1.
// MySQL with partial_revokes ON reads the name literally: an escaped target
// would grant on a database named "acme\_1" and deny the owner its own.
// MariaDB has no partial_revokes; a stray true there changes nothing.
func TestGrantTargetEscapesWildcards(t *testing.T) {
	t.Parallel()
	db := must(NewDatabaseName(EngineMySQL, "acme_1"))
	for _, c := range []struct {
		name          string
		info          ServerInfo
		target, store string
	}{
		{"mysql 8.0", mysql80, "`acme\\_1`.*", `acme\_1`},
		{"mysql partial_revokes", mysqlPartialRevokes, "`acme_1`.*", "acme_1"},
		{"mariadb", mariadb, "`acme\\_1`.*", `acme\_1`},
		{"mariadb, flag set by mistake", ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 6}, PartialRevokes: true},
			"`acme\\_1`.*", `acme\_1`},
	} {
		if got := mysqlGrantTarget(c.info, db); got != c.target {
			t.Errorf("%s: mysqlGrantTarget = %s, want %s", c.name, got, c.target)
		}
		if got := MySQLGrantPattern(c.info, db); got != c.store {
			t.Errorf("%s: MySQLGrantPattern = %s, want %s", c.name, got, c.store)
		}
		if got, want := RevokeAllText(c.info, db, must(NewUsername(EngineMySQL, "r"))),
			"REVOKE ALL PRIVILEGES ON "+c.target+" FROM 'r'@'%';"; got != want {
			t.Errorf("%s: RevokeAllText = %s, want %s", c.name, got, want)
		}
	}
	// CREATE/DROP DATABASE take the name itself, not a pattern.
	p := NewDialect(mysql80).DropDatabase(db)
	if p.Statements[0].SQL() != "DROP DATABASE IF EXISTS `acme_1`" {
		t.Errorf("drop = %s", p.Statements[0].SQL())
	}
}

func TestPostgresAlterIsRefused(t *testing.T) {
	t.Parallel()
	_, err := NewDialect(pg15).AlterDatabase(must(NewDatabaseName(EnginePostgres, "acme")), DefaultCharset(EnginePostgres), DefaultCollation(EnginePostgres))
	if ReasonOf(err) != ImmutableAttribute {
		t.Fatalf("err = %v", err)
	}
}
