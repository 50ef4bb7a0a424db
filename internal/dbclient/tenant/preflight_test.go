// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"fmt"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestPreflight: the plan-time checks report what the creates would refuse
// (a taken database name, an existing login, a missing principal, settings
// the server does not know) and nothing for names that are free.
func TestPreflight(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		cs, co := ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)
		taken, free := e.newDB("pft"), e.newDB("pff")
		if e.isPG() {
			e.super(fmt.Sprintf(`CREATE DATABASE %q`, taken))
		} else {
			e.super(fmt.Sprintf("CREATE DATABASE `%s`", taken))
		}
		login := e.plainLogin("pfl", "Foreign-pw-1")
		wantReason(t, e.s.PreflightDatabase(e.ctx, taken, cs, co), ddl.DatabasePreExists)
		if err := e.s.PreflightDatabase(e.ctx, free, cs, co); err != nil {
			t.Errorf("a free name: %v", err)
		}
		wantReason(t, e.s.PreflightOwner(e.ctx, free, login), ddl.PreExistingOwnerUser)
		if err := e.s.PreflightOwner(e.ctx, free, e.newUser("pfn")); err != nil {
			t.Errorf("a free login: %v", err)
		}
		missing, err := e.s.PreflightGrant(e.ctx, e.newUser("pfg"))
		if err != nil {
			t.Fatal(err)
		}
		wantReason(t, missing, ddl.GrantUserMissing)
		if missing, err := e.s.PreflightGrant(e.ctx, login); missing != nil || err != nil {
			t.Errorf("an existing principal: %v, %v", missing, err)
		}
		if e.isPG() {
			return
		}
		bad, err := ddl.NewCharset("nosuchcs")
		if err != nil {
			t.Fatal(err)
		}
		wantReason(t, e.s.PreflightDatabase(e.ctx, free, bad, ddl.Collation{}), ddl.InvalidIdentifier)
		other, err := ddl.NewCollation("latin1_swedish_ci")
		if err != nil {
			t.Fatal(err)
		}
		wantReason(t, e.s.PreflightDatabase(e.ctx, free, cs, other), ddl.InvalidIdentifier)
		if err := e.s.PreflightDatabase(e.ctx, free, ddl.Charset{}, other); err != nil {
			t.Errorf("a collation of another character set, with no character set: %v", err)
		}
		alias, err := ddl.NewCharset("utf8")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.s.PreflightDatabase(e.ctx, free, alias, ddl.Collation{}); err != nil {
			t.Errorf("utf8 (an alias): %v", err)
		}
	})
}
