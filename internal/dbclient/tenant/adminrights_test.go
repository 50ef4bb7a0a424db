// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestCheckAdminRights: the minimal-rights admin every other test uses is
// not a superuser and passes the check; a weaker login is refused with
// MissingAdminRights naming what it lacks and the statements that fix it,
// and running those statements makes it pass.
func TestCheckAdminRights(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		if e.isPG() {
			if superScalar[bool](e, `SELECT rolsuper FROM pg_roles WHERE rolname = $1`, e.ts.Admin.Username) {
				t.Fatal("the test admin is a superuser")
			}
		} else if superScalar[string](e, `SELECT Super_priv FROM mysql.user WHERE User = ? AND Host = '%'`, e.ts.Admin.Username) != "N" {
			t.Fatal("the test admin has SUPER")
		}
		if _, err := e.s.proof.CheckAdminRights(e.ctx); err != nil {
			t.Fatalf("minimal admin: %v", err)
		}

		name := uniqueName("weak")
		var grant string
		if e.isPG() {
			grant = fmt.Sprintf(`ALTER ROLE %q CREATEDB`, name)
		} else {
			grant = fmt.Sprintf(`GRANT CREATE, DROP ON *.* TO '%s'@'%%'`, name)
		}
		weak := e.ts.CreateLogin(t, name, "Weak-pw-1", grant)
		reg := newRegistry()
		t.Cleanup(reg.Close)
		ws, err := reg.Server(e.ctx, adminSpec(t, e.ts, weak))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ws.proof.CheckAdminRights(e.ctx)
		de := wantReason(t, err, ddl.MissingAdminRights)
		text := de.Summary() + "\n" + de.Detail()
		t.Logf("weak admin refused:\n%s", text)

		var mustName, mustNotName, fixes []string
		if e.isPG() {
			mustName = []string{"CREATEROLE"}
			mustNotName = []string{"CREATEDB (create"}
			fixes = ddl.PostgresAdminGrants(ddl.AdminAccount{User: name})
		} else {
			mustName = []string{"global CREATE USER", "GRANT OPTION", "SELECT WITH GRANT OPTION"}
			mustNotName = []string{"  - global CREATE\n", "  - global DROP\n"}
			fixes = ddl.MySQLAdminGrants(ws.Info(), ddl.AdminAccount{User: name, Host: "%"})
		}
		for _, s := range mustName {
			if !strings.Contains(text, s) {
				t.Errorf("refusal does not name %q", s)
			}
		}
		for _, s := range mustNotName {
			if strings.Contains(de.Why+"\n", s) {
				t.Errorf("refusal lists %q, which the login holds", strings.TrimSpace(s))
			}
		}
		for _, f := range fixes {
			if !strings.Contains(text, f) {
				t.Errorf("refusal does not give the fix %q", f)
			}
		}
		if !strings.HasPrefix(de.Summary(), string(ddl.MissingAdminRights)) {
			t.Errorf("summary %q does not start with the reason", de.Summary())
		}

		// The fix statements are real: run them as superuser and re-check.
		e.super(fixes...)
		if _, err := ws.proof.CheckAdminRights(e.ctx); err != nil {
			t.Errorf("after running the fix statements: %v", err)
		}
	})
}

// TestCheckAdminRights_overPrivileged: a superuser (PostgreSQL) or an
// ALL PRIVILEGES ON *.* login (MySQL/MariaDB) passes the check, and the
// excess is reported with statements that, run as written, leave exactly
// the documented minimal rights (no excess, nothing missing).
func TestCheckAdminRights_overPrivileged(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		if ex, err := e.s.proof.CheckAdminRights(e.ctx); err != nil || !ex.Empty() {
			t.Fatalf("minimal admin: excess %+v, err %v", ex, err)
		}
		name := uniqueName("strong")
		grant := fmt.Sprintf(`GRANT ALL PRIVILEGES ON *.* TO '%s'@'%%' WITH GRANT OPTION`, name)
		if e.isPG() {
			grant = fmt.Sprintf(`ALTER ROLE %q SUPERUSER`, name)
		}
		strong := e.ts.CreateLogin(t, name, "Strong-pw-1", grant)
		reg := newRegistry()
		t.Cleanup(reg.Close)
		ss, err := reg.Server(e.ctx, adminSpec(t, e.ts, strong))
		if err != nil {
			t.Fatal(err)
		}
		ex, err := ss.proof.CheckAdminRights(e.ctx)
		if err != nil {
			t.Fatalf("an over-privileged admin must not be refused: %v", err)
		}
		if ex.Empty() {
			t.Fatal("the excess was not reported")
		}
		t.Logf("excess %q, narrowed by %q", ex.Rights, ex.Narrow)
		e.super(ex.Narrow...)
		reg2 := newRegistry() // a new pool: the narrowed rights apply to new sessions
		t.Cleanup(reg2.Close)
		ss2, err := reg2.Server(e.ctx, adminSpec(t, e.ts, strong))
		if err != nil {
			t.Fatal(err)
		}
		if ex, err := ss2.proof.CheckAdminRights(e.ctx); err != nil || !ex.Empty() {
			t.Errorf("after the narrowing statements: excess %+v, err %v", ex, err)
		}
	})
}
