// SPDX-License-Identifier: MPL-2.0

package ddl

import "testing"

// TestImportedOwnerHandBack: the statements a warning gives for an
// imported PostgreSQL owner's database name the database and the login
// quoted, and hand them to whoever runs them (the admin), never a name.
func TestImportedOwnerHandBack(t *testing.T) {
	db, err := NewDatabaseName(EnginePostgres, "Acme_wms")
	if err != nil {
		t.Fatal(err)
	}
	owner, err := NewUsername(EnginePostgres, "acme.app$1")
	if err != nil {
		t.Fatal(err)
	}
	want := "ALTER DATABASE \"Acme_wms\" OWNER TO CURRENT_USER;\n  -- then, connected to database \"Acme_wms\":\n" +
		"  REASSIGN OWNED BY \"acme.app$1\" TO CURRENT_USER;"
	if got := ImportedOwnerHandBack(db, owner); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
