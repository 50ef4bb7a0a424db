// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"testing"
)

// The operation's database readings: none outside a lock, a copy each
// time, "not found" remembered too, and all of them gone once a statement
// runs.
func TestDatabaseReads(t *testing.T) {
	t.Parallel()
	if _, ok := cachedDatabase(context.Background(), "a"); ok {
		t.Fatal("a reading outside an operation")
	}
	rememberDatabase(context.Background(), "a", &DatabaseState{Owner: "x"}) // no cache: ignored
	ctx := withDatabaseReads(context.Background())
	rememberDatabase(ctx, "a", &DatabaseState{Owner: "x"})
	rememberDatabase(ctx, "gone", nil)
	got, ok := cachedDatabase(ctx, "a")
	if !ok || got.Owner != "x" {
		t.Fatalf("reading of a = %+v, %v", got, ok)
	}
	got.Owner = "changed by a caller"
	if again, _ := cachedDatabase(ctx, "a"); again.Owner != "x" {
		t.Fatalf("a caller's change reached the cache: %+v", again)
	}
	if got, ok := cachedDatabase(ctx, "gone"); !ok || got != nil {
		t.Fatalf("not found is not remembered: %+v, %v", got, ok)
	}
	forgetDatabaseReads(ctx)
	for _, name := range []string{"a", "gone"} {
		if _, ok := cachedDatabase(ctx, name); ok {
			t.Fatalf("%s still read after a statement", name)
		}
	}
}
