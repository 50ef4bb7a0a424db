// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"fmt"
	"testing"
)

// TestCatalogSnapshot: reading many databases costs one query, a write is
// never hidden by the snapshot, and a database dropped out of band shows
// as missing in a new process (a new registry).
func TestCatalogSnapshot(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const n = 25
		names := make([]string, n)
		for i := range names {
			db := e.newDB("cat")
			names[i] = db.String()
			e.super(fmt.Sprintf("CREATE DATABASE %s", e.quote(db.String())))
		}
		reg := newRegistry()
		defer reg.Close()
		s, err := reg.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		before := reg.ReadQueries()
		for _, name := range names {
			st, err := s.proof.Database(e.ctx, e.dbName(name))
			if err != nil || st == nil {
				t.Fatalf("Database(%s) = %v, %v", name, st, err)
			}
		}
		if got := reg.ReadQueries() - before; got != 1 {
			t.Errorf("%d reads of databases cost %d queries, want 1", n, got)
		}
		t.Logf("%d database reads: %d query", n, reg.ReadQueries()-before)

		// A write through this process is read back directly.
		fresh := e.newDB("catnew")
		if err := s.CreateDatabase(e.ctx, fresh, mustCharset(t, defaultCharset(e)), mustCollation(t, defaultCollation(e))); err != nil {
			t.Fatal(err)
		}
		if st, err := s.proof.Database(e.ctx, fresh); err != nil || st == nil {
			t.Fatalf("the snapshot hid a database this process created: %v, %v", st, err)
		}
		if err := s.DropDatabase(e.ctx, fresh); err != nil {
			t.Fatal(err)
		}
		if st, err := s.proof.Database(e.ctx, fresh); err != nil || st != nil {
			t.Fatalf("the snapshot still shows a dropped database: %v, %v", st, err)
		}

		// Out of band: a new process sees it.
		e.super(fmt.Sprintf("DROP DATABASE %s", e.quote(names[0])))
		reg2 := newRegistry()
		defer reg2.Close()
		s2, err := reg2.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		if st, err := s2.proof.Database(e.ctx, e.dbName(names[0])); err != nil || st != nil {
			t.Fatalf("out-of-band drop not seen: %v, %v", st, err)
		}
	})
}

func (e *env) quote(name string) string {
	if e.isPG() {
		return fmt.Sprintf("%q", name)
	}
	return "`" + name + "`"
}

func defaultCharset(e *env) string {
	if e.isPG() {
		return "UTF8"
	}
	return "utf8mb4"
}

func defaultCollation(e *env) string {
	if e.isPG() {
		return "C"
	}
	return "utf8mb4_unicode_ci"
}
