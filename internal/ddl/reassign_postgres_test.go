// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// TestReassignOwned: the database and the giver's schemas move by name
// before REASSIGN OWNED, and CREATE on the database is lent to the
// receiver for the handover when the owner withheld it.
func TestReassignOwned(t *testing.T) {
	t.Parallel()
	db := must(NewDatabaseName(EnginePostgres, "acme_1"))
	app, odd := must(NewCatalogSchemaName("app")), must(NewCatalogSchemaName(`a "b"`))
	for _, c := range []struct {
		name string
		owns OwnedContainers
		want []string
	}{
		{"nothing but objects", OwnedContainers{}, []string{`REASSIGN OWNED BY "o" TO "k"`}},
		{"the database", OwnedContainers{Database: true}, []string{`ALTER DATABASE "acme_1" OWNER TO "k"`, `REASSIGN OWNED BY "o" TO "k"`}},
		{"the database and schemas", OwnedContainers{Database: true, Schemas: []SchemaName{app, odd}}, []string{
			`ALTER DATABASE "acme_1" OWNER TO "k"`, `ALTER SCHEMA "app" OWNER TO "k"`, `ALTER SCHEMA "a ""b""" OWNER TO "k"`,
			`REASSIGN OWNED BY "o" TO "k"`}},
		{"CREATE withheld, schemas", OwnedContainers{Database: true, Schemas: []SchemaName{app}, CreateWithheld: true}, []string{
			`ALTER DATABASE "acme_1" OWNER TO "k"`, `GRANT CREATE ON DATABASE "acme_1" TO "k"`, `ALTER SCHEMA "app" OWNER TO "k"`,
			`REASSIGN OWNED BY "o" TO "k"`, `REVOKE CREATE ON DATABASE "acme_1" FROM "k"`}},
		{"CREATE withheld, no schema (a publication needs it too)", OwnedContainers{CreateWithheld: true}, []string{
			`GRANT CREATE ON DATABASE "acme_1" TO "k"`, `REASSIGN OWNED BY "o" TO "k"`, `REVOKE CREATE ON DATABASE "acme_1" FROM "k"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, st := range reassignOwned(db, `"o"`, `"k"`, c.owns) {
				got = append(got, st.SQL())
				if strings.HasPrefix(st.SQL(), "ALTER SCHEMA") || strings.HasPrefix(st.SQL(), "REASSIGN") {
					if st.Database != "acme_1" {
						t.Errorf("%s runs in %q, want inside acme_1", st.SQL(), st.Database)
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
