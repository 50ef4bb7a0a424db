// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeptDefinerStatements(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EngineMySQL, "acme_wms")
	user, _ := NewUsername(EngineMySQL, "o.app$1")
	for _, tc := range []struct {
		info ServerInfo
		want []string
	}{
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}}, []string{
			"ALTER USER 'o.app$1'@'%' ACCOUNT LOCK",
			"REVOKE INSERT, SELECT ON `acme\\_wms`.* FROM 'o.app$1'@'%'",
		}},
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 22}}, []string{
			"ALTER USER 'o.app$1'@'%' ACCOUNT LOCK",
			"REVOKE INSERT, SELECT ON `acme\\_wms`.* FROM 'o.app$1'@'%'",
		}},
	} {
		var got []string
		// Locked first, then only what tenantdb granted is revoked.
		plan := LockLogin(user).Append(RevokePrivileges(NewDialect(tc.info), db, user, []Privilege{"INSERT", "SELECT"}))
		for _, s := range plan.Statements {
			got = append(got, s.SQL())
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v: kept definer (-want +got):\n%s", tc.info.Version, d)
		}
	}
	if got := UnlockLogin(user).Statements[0].SQL(); got != "ALTER USER 'o.app$1'@'%' ACCOUNT UNLOCK" {
		t.Errorf("UnlockLogin = %q", got)
	}
	// The refusals for MySQL's 4006 on CREATE USER name the login, list the
	// objects and give the way back: the import block or the DROP USER.
	kept := ErrKeptDefinerExists("main", db, user, "  - VIEW `acme_wms`.`v`")
	orphan := ErrOrphanDefinerName("main", user, "  - VIEW `acme_wms`.`v`")
	for _, e := range []*Error{kept, orphan} {
		if e.Reason != PreExistingOwnerUser || !strings.Contains(e.Detail(), "VIEW `acme_wms`.`v`") || !strings.Contains(e.Detail(), "4006") {
			t.Errorf("%s: %s", e.Summary(), e.Detail())
		}
	}
	for _, w := range []string{"locked", "import {", "ACCOUNT UNLOCK", "DROP USER 'o.app$1'@'%';", "CREATE OR REPLACE VIEW"} {
		if !strings.Contains(kept.Detail(), w) {
			t.Errorf("ErrKeptDefinerExists lacks %q:\n%s", w, kept.Detail())
		}
	}
	if got := MySQLDefiner(user); got != "o.app$1@%" || strings.Contains(got, "`") {
		t.Errorf("MySQLDefiner = %q, want o.app$1@%%", got)
	}
}
