// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeepDefinerLogin(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EngineMySQL, "acme_wms")
	user, _ := NewUsername(EngineMySQL, "o.app$1")
	for _, tc := range []struct {
		info ServerInfo
		want []string
	}{
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{9, 7, 4}}, []string{
			"REVOKE IF EXISTS ALL PRIVILEGES ON `acme\\_wms`.* FROM 'o.app$1'@'%' IGNORE UNKNOWN USER",
			"REVOKE IF EXISTS GRANT OPTION ON `acme\\_wms`.* FROM 'o.app$1'@'%' IGNORE UNKNOWN USER",
			"ALTER USER 'o.app$1'@'%' ACCOUNT LOCK",
		}},
		{ServerInfo{Flavor: FlavorMySQL, Version: Version{8, 0, 22}}, []string{
			"REVOKE ALL PRIVILEGES ON `acme\\_wms`.* FROM 'o.app$1'@'%'",
			"REVOKE GRANT OPTION ON `acme\\_wms`.* FROM 'o.app$1'@'%'",
			"ALTER USER 'o.app$1'@'%' ACCOUNT LOCK",
		}},
	} {
		var got []string
		for _, s := range KeepDefinerLogin(NewDialect(tc.info), db, user).Statements {
			got = append(got, s.SQL())
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v: KeepDefinerLogin (-want +got):\n%s", tc.info.Version, d)
		}
	}
	if got := MySQLDefiner(user); got != "o.app$1@%" || strings.Contains(got, "`") {
		t.Errorf("MySQLDefiner = %q, want o.app$1@%%", got)
	}
}
