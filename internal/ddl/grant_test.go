// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func realSQL(p Plan) []string {
	var out []string
	for _, s := range p.Statements {
		line := s.SQL()
		if s.Database != "" {
			line = "[" + s.Database + "] " + line
		}
		out = append(out, line)
	}
	return out
}

// TestGrantHeldDiffAndReported: for every desired set and every held state
// (complete ⊆ any), Reported equals the desired set exactly when Diff is
// empty, and applying the diff as a server would converges.
func TestGrantHeldDiffAndReported(t *testing.T) {
	t.Parallel()
	for _, info := range []ServerInfo{mariadb, mysql80, pg15} {
		e := info.Flavor.Engine()
		universe := append(Catalog(info), GrantOption)
		// Desired sets: ALL, and a few lists.
		desireds := []PrivilegeSet{must(ParsePrivileges(e, []string{"ALL PRIVILEGES"}))}
		for _, names := range [][]string{{"SELECT"}, {"SELECT", "DELETE"}, {"CREATE", "SELECT", "INSERT"}} {
			desireds = append(desireds, must(ParsePrivileges(e, names)))
		}
		// Held states: each privilege absent, partial or complete, over a
		// small window of the universe (3^n grows fast).
		window := []Privilege{"CREATE", "DELETE", "INSERT", "SELECT", GrantOption}
		states := 1
		for range window {
			states *= 3
		}
		for _, desired := range desireds {
			for code := 0; code < states; code++ {
				var h GrantHeld
				c := code
				for _, p := range window {
					switch c % 3 {
					case 1:
						h.Any = append(h.Any, p)
					case 2:
						h.Any = append(h.Any, p)
						if p != GrantOption {
							h.Complete = append(h.Complete, p)
						}
					}
					c /= 3
				}
				want := desired.Expand(info)
				d := h.Diff(info, desired)
				rep := h.Reported(info, desired)
				if d.Empty() != slices.Equal(rep, want) {
					t.Fatalf("%s %v held %+v: diff %+v, reported %v", info.Flavor, desired.Names(), h, d, rep)
				}
				for _, p := range d.Revoke {
					if slices.Contains(want, p) || !slices.Contains(universe, p) {
						t.Fatalf("%s %v held %+v: revokes %q", info.Flavor, desired.Names(), h, p)
					}
				}
				// Apply: a grant completes, a revoke removes everywhere.
				after := GrantHeld{Complete: slices.Clone(h.Complete), Any: slices.Clone(h.Any)}
				for _, p := range d.Grant {
					add := []Privilege{p}
					if p == AllPrivileges {
						add = Catalog(info)
					}
					after.Complete = append(after.Complete, add...)
					after.Any = append(after.Any, add...)
				}
				after.Complete = minus(sortedUnique(after.Complete), d.Revoke)
				after.Any = minus(sortedUnique(after.Any), d.Revoke)
				if again := after.Diff(info, desired); !again.Empty() {
					t.Fatalf("%s %v held %+v: diff %+v does not converge: %+v", info.Flavor, desired.Names(), h, d, again)
				}
				if got := after.Reported(info, desired); !slices.Equal(got, want) {
					t.Fatalf("%s %v: after the diff Reported = %v", info.Flavor, desired.Names(), got)
				}
			}
		}
	}
}

func TestGrantHeldImportReportsEverything(t *testing.T) {
	t.Parallel()
	h := GrantHeld{Complete: []Privilege{"SELECT"}, Any: []Privilege{"DELETE", GrantOption, "SELECT"}}
	if got := h.Reported(pg15, PrivilegeSet{}); !slices.Equal(got, []Privilege{"DELETE", GrantOption, "SELECT"}) {
		t.Errorf("import reports %v", got)
	}
	if !FromActual(mariadb, HeldEverywhere(Catalog(mariadb)).Reported(mariadb, PrivilegeSet{})).IsAll() {
		t.Error("a complete catalog is not reported as ALL PRIVILEGES")
	}
}

func TestPostgresGrantReadHeld(t *testing.T) {
	t.Parallel()
	full := func() PostgresGrantRead {
		return PostgresGrantRead{
			Database: []Privilege{"CONNECT", "CREATE"}, Schemas: 2, UsableSchemas: 2, Reachable: 2, Tables: 3,
			OnTables:   map[Privilege]int{"SELECT": 3, "INSERT": 3},
			InDefaults: map[Privilege]int{"SELECT": 2, "INSERT": 2},
		}
	}
	for _, tc := range []struct {
		name           string
		edit           func(*PostgresGrantRead)
		complete, anyP []Privilege
	}{
		{"everything in place", func(*PostgresGrantRead) {},
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"CONNECT revoked: nothing is complete", func(r *PostgresGrantRead) { r.Database = []Privilege{"CREATE"} },
			nil, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"USAGE missing on a new schema", func(r *PostgresGrantRead) { r.Schemas = 3; r.InDefaults["SELECT"] = 3; r.InDefaults["INSERT"] = 3 },
			[]Privilege{"CREATE"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"USAGE only through PUBLIC's", func(r *PostgresGrantRead) { r.UsableSchemas = 0 },
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"PUBLIC's USAGE revoked in one schema, none of its own", func(r *PostgresGrantRead) { r.UsableSchemas, r.Reachable = 0, 1 },
			[]Privilege{"CREATE"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"its own USAGE alone does not reach a schema it lacks", func(r *PostgresGrantRead) { r.UsableSchemas, r.Reachable = 1, 1 },
			[]Privilege{"CREATE"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"one table lacks SELECT", func(r *PostgresGrantRead) { r.OnTables["SELECT"] = 2 },
			[]Privilege{"CREATE", "INSERT"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"default privileges lack INSERT in one schema", func(r *PostgresGrantRead) { r.InDefaults["INSERT"] = 1 },
			[]Privilege{"CREATE", "SELECT"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
		{"out-of-band DELETE on one table", func(r *PostgresGrantRead) { r.OnTables["DELETE"] = 1 },
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", "DELETE", "INSERT", "SELECT"}},
		{"out-of-band database-wide default", func(r *PostgresGrantRead) { r.WideDefaults = []Privilege{"TRUNCATE"} },
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", "INSERT", "SELECT", "TRUNCATE"}},
		{"WITH GRANT OPTION anywhere", func(r *PostgresGrantRead) { r.Grantable = true },
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", GrantOption, "INSERT", "SELECT"}},
		{"no tables yet", func(r *PostgresGrantRead) { r.Tables = 0; r.OnTables = nil },
			[]Privilege{"CREATE", "INSERT", "SELECT"}, []Privilege{"CREATE", "INSERT", "SELECT"}},
	} {
		r := full()
		tc.edit(&r)
		h := r.Held()
		if diff := cmp.Diff(tc.complete, h.Complete); diff != "" {
			t.Errorf("%s: Complete (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.anyP, h.Any); diff != "" {
			t.Errorf("%s: Any (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestPostgresGrantImportedThroughPublicUsage: a grant made the cyrilgdn
// way (CONNECT, SELECT on every table, the owner's default privileges, and
// schema public's USAGE only through PUBLIC, as PostgreSQL 15 leaves it)
// imports as SELECT, a refresh declaring SELECT reads the same and plans
// nothing. Once the tenant revokes PUBLIC's USAGE the grantee really reads
// nothing: the refresh shows SELECT missing and the apply grants the
// grantee USAGE of its own (and revokes nothing from PUBLIC).
func TestPostgresGrantImportedThroughPublicUsage(t *testing.T) {
	t.Parallel()
	cyrilgdn := PostgresGrantRead{
		Database: []Privilege{"CONNECT"}, Schemas: 1, UsableSchemas: 0, Reachable: 1, Tables: 2,
		OnTables: map[Privilege]int{"SELECT": 2}, InDefaults: map[Privilege]int{"SELECT": 1},
	}
	selectOnly := must(ParsePrivileges(EnginePostgres, []string{"SELECT"}))
	h := cyrilgdn.Held()
	if got := h.Imported(pg15); !slices.Equal(got, []Privilege{"SELECT"}) {
		t.Fatalf("import reads %v, want [SELECT]", got)
	}
	if got := h.Reported(pg15, selectOnly); !slices.Equal(got, []Privilege{"SELECT"}) {
		t.Errorf("the refresh after the import reads %v, want what the import read", got)
	}
	if d := h.Diff(pg15, selectOnly); !d.Empty() {
		t.Errorf("the first plan after the import is not empty: %+v", d)
	}

	revoked := cyrilgdn
	revoked.Reachable = 0 // REVOKE USAGE ON SCHEMA public FROM PUBLIC, by the tenant
	h = revoked.Held()
	if got := h.Reported(pg15, selectOnly); len(got) != 0 {
		t.Errorf("after PUBLIC lost USAGE the refresh reads %v, want nothing (the grantee reads nothing)", got)
	}
	d := h.Diff(pg15, selectOnly)
	if !slices.Equal(d.Grant, []Privilege{"SELECT"}) || len(d.Revoke) != 0 {
		t.Fatalf("diff after PUBLIC lost USAGE: %+v", d)
	}
	db, grantee, owner := must(NewDatabaseName(EnginePostgres, "acme_wms")), must(NewUsername(EnginePostgres, "reporting")), must(NewUsername(EnginePostgres, "acme_app"))
	sync := strings.Join(realSQL(SyncGrant(NewDialect(pg15), db, grantee, owner, publicScope, d)), "\n")
	if !strings.Contains(sync, `GRANT USAGE ON SCHEMA public TO "reporting"`) || strings.Contains(sync, "PUBLIC") {
		t.Errorf("the apply does not give the grantee USAGE of its own, or touches PUBLIC:\n%s", sync)
	}
}

func TestPostgresSyncGrantScopes(t *testing.T) {
	t.Parallel()
	db := must(NewDatabaseName(EnginePostgres, "acme_1"))
	g := must(NewUsername(EnginePostgres, "maester"))
	o := must(NewUsername(EnginePostgres, "acme_app"))
	weird := must(NewCatalogSchemaName(`My "app"`))
	scope := PostgresGrantScope{Schemas: []SchemaName{{"public"}, weird}, WideDefaults: true}
	d := NewDialect(pg15)

	some := must(ParsePrivileges(EnginePostgres, []string{"SELECT", "CREATE"}))
	held := GrantHeld{Any: []Privilege{"DELETE", GrantOption, "SELECT", "TEMPORARY"}}
	diff := held.Diff(pg15, some)
	got := realSQL(SyncGrant(d, db, g, o, scope, diff))
	want := []string{
		`GRANT CONNECT, CREATE ON DATABASE "acme_1" TO "maester"`,
		`[acme_1] GRANT USAGE ON SCHEMA public, "My ""app""" TO "maester"`,
		`[acme_1] GRANT SELECT ON ALL TABLES IN SCHEMA public, "My ""app""" TO "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public, "My ""app""" GRANT SELECT ON TABLES TO "maester"`,
		`REVOKE TEMPORARY ON DATABASE "acme_1" FROM "maester"`,
		`[acme_1] REVOKE DELETE ON ALL TABLES IN SCHEMA public, "My ""app""" FROM "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public, "My ""app""" REVOKE DELETE ON TABLES FROM "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" REVOKE DELETE ON TABLES FROM "maester"`,
		`REVOKE GRANT OPTION FOR ALL PRIVILEGES ON DATABASE "acme_1" FROM "maester"`,
		`[acme_1] REVOKE GRANT OPTION FOR ALL PRIVILEGES ON SCHEMA public, "My ""app""" FROM "maester"`,
		`[acme_1] REVOKE GRANT OPTION FOR ALL PRIVILEGES ON ALL TABLES IN SCHEMA public, "My ""app""" FROM "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public, "My ""app""" REVOKE GRANT OPTION FOR ALL PRIVILEGES ON TABLES FROM "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" REVOKE GRANT OPTION FOR ALL PRIVILEGES ON TABLES FROM "maester"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sync (-want +got):\n%s", d)
	}

	got = realSQL(RevokeGrant(d, db, g, o, scope))
	want = []string{
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public, "My ""app""" REVOKE ALL ON TABLES FROM "maester"`,
		`[acme_1] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" REVOKE ALL ON TABLES FROM "maester"`,
		`[acme_1] REVOKE ALL ON ALL TABLES IN SCHEMA public, "My ""app""" FROM "maester"`,
		`[acme_1] REVOKE ALL ON SCHEMA public, "My ""app""" FROM "maester"`,
		`REVOKE ALL ON DATABASE "acme_1" FROM "maester"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("revoke (-want +got):\n%s", d)
	}
	for _, st := range RevokeGrant(d, db, g, o, scope).Statements {
		if st.Tolerate != TolerateMissing {
			t.Errorf("%s: a missing principal must not fail a destroy", st)
		}
	}

	// No tenant schema at all (public dropped): database rights only.
	got = realSQL(SyncGrant(d, db, g, o, PostgresGrantScope{}, GrantHeld{}.Diff(pg15, some)))
	if want := []string{`GRANT CONNECT, CREATE ON DATABASE "acme_1" TO "maester"`}; !slices.Equal(got, want) {
		t.Errorf("no schemas: %q", got)
	}
}

// TestPostgresDialectRevokesGrantOption: the bug fix. An out-of-band WITH
// GRANT OPTION read back as GRANT OPTION is revoked by the Dialect's sync,
// which used to drop it silently.
func TestPostgresDialectRevokesGrantOption(t *testing.T) {
	t.Parallel()
	d := NewDialect(pg15)
	db := must(NewDatabaseName(EnginePostgres, "acme"))
	g := must(NewUsername(EnginePostgres, "maester"))
	o := must(NewUsername(EnginePostgres, "acme_app"))
	diff := Diff(pg15, must(ParsePrivileges(EnginePostgres, []string{"SELECT"})), []Privilege{"SELECT", GrantOption})
	if !slices.Equal(diff.Revoke, []Privilege{GrantOption}) || len(diff.Grant) != 0 {
		t.Fatalf("diff = %+v", diff)
	}
	got := realSQL(d.SyncPrivileges(db, g, o, diff))
	want := []string{
		`REVOKE GRANT OPTION FOR ALL PRIVILEGES ON DATABASE "acme" FROM "maester"`,
		`[acme] REVOKE GRANT OPTION FOR ALL PRIVILEGES ON SCHEMA public FROM "maester"`,
		`[acme] REVOKE GRANT OPTION FOR ALL PRIVILEGES ON ALL TABLES IN SCHEMA public FROM "maester"`,
		`[acme] ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public REVOKE GRANT OPTION FOR ALL PRIVILEGES ON TABLES FROM "maester"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestMariaDBGrantCannotCreateAccounts: every MariaDB grant statement of a
// tenant grant carries NO_AUTO_CREATE_USER; MySQL 8 needs none; revokes
// are unchanged.
func TestMariaDBGrantCannotCreateAccounts(t *testing.T) {
	t.Parallel()
	for _, info := range []ServerInfo{mariadb, mariadb114, mysql80, mysql8013} {
		e := info.Flavor.Engine()
		db := must(NewDatabaseName(e, "acme_1"))
		g := must(NewUsername(e, "maester"))
		held := HeldEverywhere([]Privilege{"INSERT", GrantOption})
		for _, desired := range []PrivilegeSet{
			must(ParsePrivileges(e, []string{"SELECT"})),
			must(ParsePrivileges(e, []string{"ALL PRIVILEGES"})),
		} {
			p := SyncGrant(NewDialect(info), db, g, Username{}, PostgresGrantScope{}, held.Diff(info, desired))
			sawGrant := false
			for _, st := range p.Statements {
				s := st.SQL()
				if strings.Contains(s, "WITH GRANT OPTION") {
					t.Errorf("%s: %s", info, s)
				}
				isGrant := strings.Contains(s, "GRANT ") && !strings.HasPrefix(s, "REVOKE")
				if !isGrant {
					if strings.HasPrefix(s, "SET STATEMENT") {
						t.Errorf("%s: a revoke carries the sql_mode: %s", info, s)
					}
					continue
				}
				sawGrant = true
				prefixed := strings.HasPrefix(s, "SET STATEMENT sql_mode = 'NO_BACKSLASH_ESCAPES,STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,NO_AUTO_CREATE_USER' FOR GRANT ")
				if prefixed != (info.Flavor == FlavorMariaDB) {
					t.Errorf("%s: %s", info, s)
				}
				if st.String() != s {
					t.Errorf("%s: redacted form %q differs from %q without a secret", info, st.String(), s)
				}
				if !strings.Contains(s, "`acme\\_1`.*") {
					t.Errorf("%s: grant target not escaped: %s", info, s)
				}
			}
			if !sawGrant {
				t.Errorf("%s: no grant rendered for %v", info, desired.Names())
			}
		}
		// Destroy is the dialect's RevokeAll.
		if got, want := realSQL(RevokeGrant(NewDialect(info), db, g, Username{}, PostgresGrantScope{})),
			realSQL(NewDialect(info).RevokeAll(db, g, Username{})); !slices.Equal(got, want) {
			t.Errorf("%s: RevokeGrant = %q, want %q", info, got, want)
		}
	}
}

func TestCatalogSchemaName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"public", "app", `My "app"`, "ünïcode", "x y", strings.Repeat("a", 63)} {
		if _, err := NewCatalogSchemaName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("a", 64), "a\x00b", "\xff"} {
		if _, err := NewCatalogSchemaName(bad); ReasonOf(err) != InvalidIdentifier {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

// FuzzCatalogSchemaName: an accepted name renders as one quoted identifier
// that reads back as the name (public is written bare).
func FuzzCatalogSchemaName(f *testing.F) {
	for _, s := range []string{"public", "app", `a"b`, `""`, "a;DROP", "x y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NewCatalogSchemaName(s)
		if err != nil {
			return
		}
		r := pgSchemas([]SchemaName{n})
		if s == "public" {
			if r != "public" {
				t.Fatalf("public rendered %q", r)
			}
			return
		}
		if !strings.HasPrefix(r, `"`) || !strings.HasSuffix(r, `"`) || len(r) < 2 {
			t.Fatalf("%q rendered unquoted: %s", s, r)
		}
		inner := r[1 : len(r)-1]
		if strings.Contains(strings.ReplaceAll(inner, `""`, ""), `"`) {
			t.Fatalf("%q: a lone quote in %s", s, r)
		}
		if back := strings.ReplaceAll(inner, `""`, `"`); back != s {
			t.Fatalf("%q rendered %s, reads back %q", s, r, back)
		}
	})
}

func TestGrantRefusalWording(t *testing.T) {
	t.Parallel()
	u := must(NewUsername(EngineMySQL, "maester"))
	e := ErrGrantUserMissing("main", u)
	if e.Reason != GrantUserMissing || !strings.HasPrefix(e.Summary(), "GrantUserMissing: ") ||
		!strings.Contains(e.Summary(), `"maester"`) || !strings.Contains(e.Detail(), "Nothing was changed") ||
		!strings.Contains(e.Detail(), "apply") {
		t.Errorf("GrantUserMissing: %q / %q", e.Summary(), e.Detail())
	}
	m := ErrGrantIdentityMismatch("main", `principal "maester"`, "It was re-created.")
	if m.Reason != IdentityMismatch || !strings.HasPrefix(m.Summary(), "IdentityMismatch: principal") ||
		!strings.Contains(m.Detail(), "Nothing was granted or revoked") {
		t.Errorf("IdentityMismatch: %q / %q", m.Summary(), m.Detail())
	}
}

// TestWithOthersNamed: a refusal on a re-created database names the other
// accounts holding rows on the name, says none was revoked and gives the
// statement for each; with none it is unchanged.
func TestWithOthersNamed(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EngineMySQL, "acme_wms")
	user, _ := NewUsername(EngineMySQL, "acme_app")
	info := ServerInfo{Flavor: FlavorMySQL}
	e := ErrRecreatedDatabaseRevoked("main", info, db, user, "owner", []Privilege{"SELECT"}, []Privilege{"INSERT"})
	// What tenantdb granted was revoked; what it never granted is named
	// with its statement, not revoked.
	for _, w := range []string{"REVOKE SELECT ON `acme\\_wms`.* FROM 'acme_app'@'%'", "never granted",
		"REVOKE INSERT ON `acme\\_wms`.* FROM 'acme_app'@'%';"} {
		if !strings.Contains(e.Detail(), w) {
			t.Errorf("lacks %q:\n%s", w, e.Detail())
		}
	}
	if got := WithOthersNamed(e, info, db, nil); got != e {
		t.Errorf("no others: the refusal changed")
	}
	got := WithOthersNamed(e, info, db, []string{"backup@localhost", "globex_app"})
	if got.Reason != IdentityMismatch || e.Why == got.Why {
		t.Fatalf("%+v", got)
	}
	for _, w := range []string{`"backup@localhost", "globex_app"`, "revoked none of them",
		"REVOKE ALL PRIVILEGES ON `acme\\_wms`.* FROM 'backup'@'localhost';"} {
		if !strings.Contains(got.Detail(), w) {
			t.Errorf("lacks %q:\n%s", w, got.Detail())
		}
	}
}
