// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
)

// TestAccOwnerTrust_foreignMarkedOwnerNotUndone (PostgreSQL): the undo of a
// half-made rotation takes back only a login this resource's rotation made.
// Two configurations: D1 owned by a, D2 owned by x (x's mark names D2). A
// superuser hands D1 to x by hand; applying the first configuration must
// refuse (OwnerConflict, naming x) and leave x, the other tenant's owner, untouched: x still exists,
// logs in, owns D2 and its table, and its mark is unchanged. Seen failing
// with the mark comparison in undoHalfMadeRotation made to always pass:
// the "undo" reassigned everything x owns (D2 included) to a and dropped
// x's objects.
func TestAccOwnerTrust_foreignMarkedOwnerNotUndone(t *testing.T) {
	s := testAccServer(t, "postgres")
	d1, d2, a, x := uniqueName("fmo"), uniqueName("fmo"), uniqueName("fmoa"), uniqueName("fmox")
	t.Cleanup(func() {
		s.dropDatabase(t, d1, d2)
		s.dropLogins(t, a, x)
	})
	const pwA, pwX = "Fmo-a-pw-1", "Fmo-x-pw-1"
	w1, w2 := newCLIWorkspace(t), newCLIWorkspace(t)
	w1.write(s.serverHCL("") + ownerHCL(d1, a, pwA, 1, ""))
	w1.run("apply", "-auto-approve").mustSucceed(t, "first configuration")
	w2.write(s.serverHCL("") + ownerHCL(d2, x, pwX, 1, ""))
	w2.run("apply", "-auto-approve").mustSucceed(t, "second configuration")
	if err := s.as(x, pwX, d2, "CREATE TABLE t (v int)", "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	markX := s.roleComment(t, x)
	if markX == "" {
		t.Fatal("x carries no mark: the test proves nothing")
	}

	s.exec(t, "", "ALTER DATABASE "+s.ident(d1)+" OWNER TO "+s.ident(x))
	r := w1.run("apply", "-auto-approve").mustFail(t, "apply with D1 handed to another tenant's owner")

	if !s.loginExists(t, x) {
		t.Fatal("the other tenant's owner x was dropped")
	}
	if got := s.databaseOwner(t, d2); got != x {
		t.Fatalf("D2 is owned by %q, want x (%q)", got, x)
	}
	if err := s.as(x, pwX, d2, "SELECT v FROM t"); err != nil {
		t.Fatalf("x lost its database or its table: %v", err)
	}
	if got := s.databaseOwner(t, d1); got != x {
		t.Fatalf("D1 is owned by %q: the apply took it from x (%q) although x is not this resource's login", got, x)
	}
	if got := s.roleComment(t, x); got != markX {
		t.Fatalf("x's mark changed: %q -> %q", markX, got)
	}
	// What the server holds first (above), then what the refusal says.
	d := r.requireDiag(t, "error", "OwnerConflict")
	if !strings.Contains(d.Detail, x) {
		t.Fatalf("the refusal does not name x (%q):\n%s", x, d.Detail)
	}
	if !strings.Contains(w1.stateText(), a) {
		t.Fatalf("state no longer names a (%q)", a)
	}
}
