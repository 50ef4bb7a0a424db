// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"errors"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestExec_undoStopsAtFirstFailure: an undo runs no step after one that
// failed, because later steps may depend on it (PostgreSQL: DROP OWNED BY
// new after REASSIGN OWNED BY new TO old failed drops the tenant's
// tables). Here the plan fails at its second statement, its undo's first
// step fails too, and the undo's second step (a drop) must not run: the
// database survives, and the error says what ran, what failed and what
// was not run. With the old loop (errors ignored, every step run) the drop
// ran.
func TestExec_undoStopsAtFirstFailure(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		d := e.s.dialect()
		cs, co := ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)
		a := e.newDB("undo")
		create := d.CreateDatabase(a, cs, co).Statements[0]
		drop := d.DropDatabase(a).Statements[0]
		plan := ddl.Plan{
			Statements: []ddl.Statement{create, create}, // the second fails: a exists
			Undo:       []ddl.Statement{create, drop},   // the first fails too: a exists
		}
		err := e.s.sess.Exec(e.ctx, plan)
		var ue *session.UndoError
		if !errors.As(err, &ue) {
			t.Fatalf("exec = %v, want an undo error", err)
		}
		st, rerr := e.s.proof.DatabaseDirect(e.ctx, a)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if st == nil {
			t.Fatal("the undo ran its drop after a step before it had failed: the database is gone")
		}
		msg := err.Error()
		for _, want := range []string{"Undo step that failed: " + create.String(), "Not undone (not run, on purpose): " + drop.String()} {
			if !strings.Contains(msg, want) {
				t.Errorf("the error lacks %q:\n%s", want, msg)
			}
		}
		if !session.IsDatabaseExists(err) {
			t.Errorf("the error does not keep the operation's own cause (database exists): %v", err)
		}
	})
}
