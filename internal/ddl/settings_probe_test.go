// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

func TestMySQLSettingsProbe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cs, co, want string
	}{
		{"utf8mb4", "utf8mb4_bin", "SELECT CONVERT('' USING `utf8mb4`) COLLATE `utf8mb4_bin`"},
		{"latin1", "", "SELECT CONVERT('' USING `latin1`)"},
		// Only a collation: any character set's collation exists (1253 is
		// then no refusal), so the string is utf8mb4.
		{"", "latin1_swedish_ci", "SELECT CONVERT('' USING `utf8mb4`) COLLATE `latin1_swedish_ci`"},
	} {
		var cs Charset
		var co Collation
		var err error
		if c.cs != "" {
			if cs, err = NewCharset(c.cs); err != nil {
				t.Fatal(err)
			}
		}
		if c.co != "" {
			if co, err = NewCollation(c.co); err != nil {
				t.Fatal(err)
			}
		}
		if got := MySQLSettingsProbe(cs, co); got != c.want {
			t.Errorf("MySQLSettingsProbe(%q, %q) = %q, want %q", c.cs, c.co, got, c.want)
		}
	}
	// Names that are not identifiers never reach the probe.
	for _, bad := range []string{"utf8`) --", "a b", "x'y"} {
		if _, err := NewCharset(bad); err == nil {
			t.Errorf("NewCharset(%q) accepted a name the probe would render", bad)
		}
	}
	e := ErrSettingUnknown("main", "character set", "nosuchcs", "1115")
	if !strings.HasPrefix(e.Summary(), `InvalidIdentifier: character set "nosuchcs" on server "main"`) || !strings.Contains(e.Detail(), "1115") {
		t.Errorf("ErrSettingUnknown: %q / %q", e.Summary(), e.Detail())
	}
}
