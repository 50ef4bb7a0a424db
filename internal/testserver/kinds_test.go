// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"strings"
	"testing"
)

// TestKindSelection: which kinds TENANTDB_TEST_ENGINES selects, and which
// release serves each family's tests in the process (a stand-in named
// alone takes its family's tests; named beside its family it is an error).
func TestKindSelection(t *testing.T) {
	for _, c := range []struct {
		env      string
		selected string // kinds EngineSelected says yes to, in AllKinds order
		mariadb  string // the kind serving Start(ctx, "mysql"), or "error"
		postgres string // the kind serving Start(ctx, "postgres")
	}{
		{"", "mariadb,postgres", "mariadb", "postgres"},
		{"all", "mariadb,mysql,postgres", "mariadb", "postgres"},
		{"mysql", "mysql", "mariadb", "postgres"},
		{"mariadb11,postgres18", "mariadb,mariadb11,postgres,postgres18", "mariadb11", "postgres18"},
		{" MariaDB11 ", "mariadb,mariadb11", "mariadb11", "postgres"},
		{"mariadb,postgres18", "mariadb,postgres,postgres18", "mariadb", "postgres18"},
		{"mariadb,mariadb11", "mariadb,mariadb11", "error", "postgres"},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(EnvEngines, c.env)
			var sel []string
			for _, k := range AllKinds() {
				if EngineSelected(k) {
					sel = append(sel, k)
				}
			}
			if got := strings.Join(sel, ","); got != c.selected {
				t.Errorf("selected %q, want %q", got, c.selected)
			}
			for engine, want := range map[string]string{EngineMySQL: c.mariadb, EnginePostgres: c.postgres} {
				o, err := resolveKind(engine, startOptions{})
				got := kindOf(engine, o)
				if err != nil {
					got = "error"
				}
				if got != want {
					t.Errorf("engine %s served by %q (%v), want %q", engine, got, err, want)
				}
			}
			// Asked for by kind or bin dir, a server is what was asked for.
			if o, err := resolveKind(EnginePostgres, startOptions{postgresBinDir: "/x"}); err != nil || o.kind != "" {
				t.Errorf("a bin dir's server resolved to %q, %v", o.kind, err)
			}
			if o, err := resolveKind(EngineMySQL, startOptions{kind: KindMySQL}); err != nil || o.kind != KindMySQL {
				t.Errorf("kind mysql resolved to %q, %v", o.kind, err)
			}
		})
	}
}
