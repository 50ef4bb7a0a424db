// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewDefaultACLs: every kind of entry the catalog holds is carried, for
// any role name; the built-in PUBLIC defaults are not carried as grants,
// and a database-wide entry that lacks them means PUBLIC was revoked; what
// tenantdb cannot carry is refused before anything runs.
func TestNewDefaultACLs(t *testing.T) {
	t.Parallel()
	long := "reporting_readers_of_every_tenant" + "x" // 34 characters, a valid role
	tests := []struct {
		name    string
		rows    []DefaultACLRow
		want    string // rendered carry to "new"
		wantErr string
	}{
		{name: "nothing", want: ""},
		{
			name: "functions granted to a long role name",
			rows: []DefaultACLRow{{ObjType: 'f', Grantee: long, Privilege: "EXECUTE"}, {ObjType: 'f', Grantee: "", Privilege: "EXECUTE"}},
			want: `ALTER DEFAULT PRIVILEGES FOR ROLE "new" GRANT EXECUTE ON FUNCTIONS TO "` + long + `"`,
		},
		{
			name: "PUBLIC revoked on functions, owner's own rights only",
			rows: []DefaultACLRow{{ObjType: 'f', Self: true, Privilege: "EXECUTE"}},
			want: `ALTER DEFAULT PRIVILEGES FOR ROLE "new" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC`,
		},
		{
			name: "types, schemas, sequences per schema",
			rows: []DefaultACLRow{
				{ObjType: 'T', Grantee: "", Privilege: "USAGE"},
				{ObjType: 'n', Grantee: "r", Privilege: "CREATE"}, {ObjType: 'n', Grantee: "r", Privilege: "USAGE"},
				{Schema: "Sales", ObjType: 'S', Grantee: "r", Privilege: "UPDATE"},
			},
			want: `ALTER DEFAULT PRIVILEGES FOR ROLE "new" GRANT CREATE, USAGE ON SCHEMAS TO "r"` + "\n" +
				`ALTER DEFAULT PRIVILEGES FOR ROLE "new" IN SCHEMA "Sales" GRANT UPDATE ON SEQUENCES TO "r"`,
		},
		{
			name: "PUBLIC granted per schema is carried",
			rows: []DefaultACLRow{{Schema: "s", ObjType: 'f', Grantee: "", Privilege: "EXECUTE"}},
			want: `ALTER DEFAULT PRIVILEGES FOR ROLE "new" IN SCHEMA "s" GRANT EXECUTE ON FUNCTIONS TO PUBLIC`,
		},
		{
			name: "the owner's own restriction is carried to the next owner",
			rows: []DefaultACLRow{
				{ObjType: 'r', Self: true, Privilege: "SELECT"},
				{ObjType: 'r', Self: true, SelfRevoked: true, Privilege: "INSERT"},
				{ObjType: 'r', Self: true, SelfRevoked: true, Privilege: "DELETE"},
			},
			want: `ALTER DEFAULT PRIVILEGES FOR ROLE "new" REVOKE DELETE, INSERT ON TABLES FROM "new"`,
		},
		{name: "unknown kind", rows: []DefaultACLRow{{ObjType: 'x', Grantee: "r", Privilege: "USAGE"}}, wantErr: "object kind"},
		{name: "unknown privilege", rows: []DefaultACLRow{{ObjType: 'f', Grantee: "r", Privilege: "SELECT"}}, wantErr: "not known"},
		{name: "role name too long", rows: []DefaultACLRow{{ObjType: 'r', Grantee: strings.Repeat("a", 64), Privilege: "SELECT"}}, wantErr: "InvalidIdentifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			acls, err := NewDefaultACLs(tt.rows)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			db, _ := NewDatabaseName(EnginePostgres, "acme")
			var lines []string
			for _, st := range CarryDefaultPrivileges(db, RoleName{"new"}, acls).Statements {
				lines = append(lines, st.SQL())
			}
			if diff := cmp.Diff(tt.want, strings.Join(lines, "\n")); diff != "" {
				t.Errorf("carry (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultACLsMadeByGrants: an owner's create takes from the admin only
// what tenant grants made (per-schema table entries of grantees); the
// admin's entries for other roles and its restrictions stay the admin's.
func TestDefaultACLsMadeByGrants(t *testing.T) {
	t.Parallel()
	acls, err := NewDefaultACLs([]DefaultACLRow{
		{ObjType: 'r', Grantee: "otherapp", Privilege: "SELECT"},             // database-wide: the admin's
		{ObjType: 'r', Self: true, SelfRevoked: true, Privilege: "TRUNCATE"}, // the admin's own restriction
		{Schema: "public", ObjType: 'S', Grantee: "reader", Privilege: "USAGE"},
		{Schema: "public", ObjType: 'r', Grantee: "otherapp", Privilege: "SELECT"}, // not a grantee of this database
		{Schema: "public", ObjType: 'r', Grantee: "reader", Privilege: "SELECT"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := acls.MadeByGrants(func(r RoleName) bool { return r.String() == "reader" })
	want := DefaultACLs{Grants: []DefaultACL{{Schema: SchemaName{"public"}, ObjType: 'r', Grantee: RoleName{"reader"}, Privileges: []Privilege{"SELECT"}}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(SchemaName{}, RoleName{})); diff != "" {
		t.Errorf("MadeByGrants (-want +got):\n%s", diff)
	}
	if w := acls.WithoutSelf(); len(w.SelfRevoked) != 0 || len(acls.SelfRevoked) != 1 {
		t.Errorf("WithoutSelf: %+v (from %+v)", w.SelfRevoked, acls.SelfRevoked)
	}
}
