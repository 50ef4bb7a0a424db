// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

func TestOffboardRevokes(t *testing.T) {
	t.Parallel()
	db := DatabaseName{"acme"}
	for _, tc := range []struct {
		name string
		rows []OnwardRow
		want []string // SQL, in order; nil: no statement
		err  string
	}{
		{name: "declared grantee without grant option keeps everything",
			rows: []OnwardRow{{Kind: OnwardTables, Schema: "public", Grantee: "carol", Privileges: []string{"SELECT"}, Declared: true}}},
		{name: "declared grantee loses only its grant option",
			rows: []OnwardRow{{Kind: OnwardDatabase, Grantee: "carol", Privileges: []string{"CONNECT"}, Grantable: true, Declared: true}},
			want: []string{`REVOKE GRANT OPTION FOR ALL ON DATABASE "acme" FROM "carol" CASCADE`}},
		{name: "PUBLIC keeps the built-in defaults and USAGE on public",
			rows: []OnwardRow{
				{Kind: OnwardRoutines, Schema: "public", Privileges: []string{"EXECUTE"}},
				{Kind: OnwardType, Schema: "public", Object: "mood", Privileges: []string{"USAGE"}},
				{Kind: OnwardSchema, Schema: "public", Privileges: []string{"USAGE"}},
			}},
		{name: "PUBLIC loses CONNECT, CREATE on public, tables, large objects",
			rows: []OnwardRow{
				{Kind: OnwardDatabase, Privileges: []string{"CONNECT"}},
				{Kind: OnwardSchema, Schema: "public", Privileges: []string{"CREATE", "USAGE"}},
				{Kind: OnwardTables, Schema: "public", Privileges: []string{"SELECT"}},
				{Kind: OnwardLargeObject, Object: "77", Privileges: []string{"SELECT"}},
			},
			want: []string{`REVOKE ALL ON DATABASE "acme" FROM PUBLIC CASCADE`, `REVOKE CREATE ON SCHEMA "public" FROM PUBLIC CASCADE`,
				`REVOKE ALL ON ALL TABLES IN SCHEMA "public" FROM PUBLIC CASCADE`, `REVOKE ALL ON LARGE OBJECT 77 FROM PUBLIC CASCADE`}},
		{name: "one statement per schema and grantee",
			rows: []OnwardRow{
				{Kind: OnwardTables, Schema: "s", Grantee: `b"ob`, Privileges: []string{"SELECT"}},
				{Kind: OnwardTables, Schema: "s", Grantee: `b"ob`, Privileges: []string{"UPDATE"}},
			},
			want: []string{`REVOKE ALL ON ALL TABLES IN SCHEMA "s" FROM "b""ob" CASCADE`}},
		{name: "a large object OID that is not one refuses",
			rows: []OnwardRow{{Kind: OnwardLargeObject, Object: "1; DROP TABLE x", Grantee: "bob"}}, err: "large object"},
		{name: "an unknown kind refuses",
			rows: []OnwardRow{{Kind: "server", Grantee: "bob"}}, err: "not known"},
		{name: "a name the server cannot hold refuses",
			rows: []OnwardRow{{Kind: OnwardSchema, Schema: strings.Repeat("s", 64), Grantee: "bob"}}, err: "schema name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := OffboardRevokes(db, tc.rows)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one about %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Statements {
				got = append(got, s.SQL())
				if s.Tolerate != TolerateMissing {
					t.Errorf("%s: a revoke must tolerate a grantee gone meanwhile", s)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestOwnerMarkGrantees(t *testing.T) {
	t.Parallel()
	m := OwnerMark{Database: DatabaseName{"acme"}, DBIdentity: "pg:abc:16384", Finished: true}
	for _, step := range []struct {
		oid     string
		add     bool
		want    string
		changed bool
	}{
		{"16500", true, "16500", true},
		{"9999", true, "9999,16500", true},
		{"16500", true, "9999,16500", false},
		{"16500", false, "9999", true},
		{"1", false, "9999", false},
	} {
		var changed bool
		m, changed = m.WithGrantee(step.oid, step.add)
		if m.Grantees != step.want || changed != step.changed {
			t.Fatalf("WithGrantee(%s, %v) = %q, %v; want %q, %v", step.oid, step.add, m.Grantees, changed, step.want, step.changed)
		}
		got, ok := ParseOwnerMark(m.Text())
		if !ok || got != m {
			t.Fatalf("%q reads back as %+v, %v", m.Text(), got, ok)
		}
	}
	// A mark written before grants= existed still reads, with none declared.
	if got, ok := ParseOwnerMark("tenantdb owner of acme db=pg:abc:16384 status=done"); !ok || got.Grantees != "" {
		t.Fatalf("an older mark reads as %+v, %v", got, ok)
	}
	if _, ok := ParseOwnerMark("tenantdb owner of acme db=pg:abc:16384 grants=1,x status=done"); ok {
		t.Fatal("a grants= list with a non-OID is read as a mark")
	}
	plan := RecordGrantees(Username{s: "acme_app"}, OwnerMark{Database: DatabaseName{"acme"}, DBIdentity: "pg:abc:1", Grantees: "5"})
	if got := plan.Statements[0].SQL(); got != `COMMENT ON ROLE "acme_app" IS 'tenantdb owner of acme db=pg:abc:1 grants=5 status=done'` {
		t.Fatalf("RecordGrantees: %s", got)
	}
}
