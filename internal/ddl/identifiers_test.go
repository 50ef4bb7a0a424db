// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

func TestNewDatabaseName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		engine Engine
		in     string
		ok     bool
	}{
		{"plain", EngineMySQL, "acme_wms", true},
		{"digits first", EngineMySQL, "1tenant", true},
		{"underscore wildcard char", EngineMySQL, "acme_1", true},
		{"64 chars mysql", EngineMySQL, strings.Repeat("a", 64), true},
		{"65 chars mysql", EngineMySQL, strings.Repeat("a", 65), false},
		{"63 bytes postgres", EnginePostgres, strings.Repeat("a", 63), true},
		{"64 bytes postgres", EnginePostgres, strings.Repeat("a", 64), false},
		{"empty", EngineMySQL, "", false},
		{"backtick", EngineMySQL, "acme`; DROP DATABASE x; --", false},
		{"double quote", EnginePostgres, `acme"x`, false},
		{"single quote", EngineMySQL, "acme'x", false},
		{"backslash", EngineMySQL, `acme\x`, false},
		{"percent", EngineMySQL, "acme%", false},
		{"dash", EngineMySQL, "acme-wms", false},
		{"space", EngineMySQL, "acme wms", false},
		{"dot", EngineMySQL, "acme.wms", false},
		{"NUL", EngineMySQL, "acme\x00", false},
		{"newline", EngineMySQL, "acme\n", false},
		{"unicode", EngineMySQL, "acmé", false},
		{"system mysql", EngineMySQL, "mysql", false},
		{"system any case", EngineMySQL, "INFORMATION_SCHEMA", false},
		{"system performance_schema", EngineMySQL, "Performance_Schema", false},
		{"system sys", EngineMySQL, "SYS", false},
		{"system postgres", EnginePostgres, "postgres", false},
		{"system template0", EnginePostgres, "Template0", false},
		{"system template1 on mysql too", EngineMySQL, "template1", false},
		// The claim scratch namespace is the provider's, on every engine and
		// in any case (MariaDB lower_case_table_names folds names).
		{"scratch nonce name postgres", EnginePostgres, "tenantdb_claim_0123456789abcdef_0123456789abcdef01234567", false},
		{"scratch prefix alone", EnginePostgres, "tenantdb_claim_", false},
		{"scratch prefix upper postgres", EnginePostgres, "TENANTDB_CLAIM_x", false},
		{"scratch prefix mixed case mysql", EngineMySQL, "Tenantdb_Claim_acme", false},
		{"scratch prefix mysql", EngineMySQL, "tenantdb_claim_acme", false},
		{"near the scratch prefix", EnginePostgres, "tenantdb_claim", true},
		{"scratch prefix not at the start", EngineMySQL, "acme_tenantdb_claim_x", true},
		{"other tenantdb prefix", EnginePostgres, "tenantdb_claims_x", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewDatabaseName(c.engine, c.in)
			if c.ok != (err == nil) {
				t.Fatalf("NewDatabaseName(%q) err = %v, want ok=%v", c.in, err, c.ok)
			}
			if err != nil {
				if ReasonOf(err) != InvalidIdentifier {
					t.Fatalf("reason = %q, want InvalidIdentifier", ReasonOf(err))
				}
				if !strings.HasPrefix(err.(*Error).Summary(), "InvalidIdentifier: database name") {
					t.Fatalf("summary %q does not name the object", err.(*Error).Summary())
				}
				return
			}
			if got.String() != c.in {
				t.Fatalf("String() = %q", got.String())
			}
		})
	}
}

func TestNewUsername(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in string
		ok bool
	}{
		{"acme_app", true},
		{"a", true},
		{"_x", true},
		{"a.b$c-d", true},
		{strings.Repeat("u", 32), true},
		{strings.Repeat("u", 33), false},
		{"", false},
		{".lead", false},
		{"-lead", false},
		{"$lead", false},
		{"a'b", false},
		{"a`b", false},
		{`a"b`, false},
		{`a\b`, false},
		{"a@b", false},
		{"a b", false},
		{"a%", false},
		{"ü", false},
		{"a\x00", false},
	}
	for _, c := range cases {
		_, err := NewUsername(EngineMySQL, c.in)
		if c.ok != (err == nil) {
			t.Errorf("NewUsername(%q) err = %v, want ok=%v", c.in, err, c.ok)
		}
		if err != nil && ReasonOf(err) != InvalidIdentifier {
			t.Errorf("NewUsername(%q) reason = %q", c.in, ReasonOf(err))
		}
	}
}

func TestCharsetCollationServerName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"utf8mb4", "UTF8", "utf8mb4_0900_ai_ci", "C"} {
		if _, err := NewCharset(ok); err != nil {
			t.Errorf("NewCharset(%q): %v", ok, err)
		}
		if _, err := NewCollation(ok); err != nil {
			t.Errorf("NewCollation(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "utf8 mb4", "en_US.UTF-8", "x'y", strings.Repeat("c", 65)} {
		if _, err := NewCharset(bad); ReasonOf(err) != InvalidIdentifier {
			t.Errorf("NewCharset(%q) = %v", bad, err)
		}
		if _, err := NewCollation(bad); ReasonOf(err) != InvalidIdentifier {
			t.Errorf("NewCollation(%q) = %v", bad, err)
		}
	}
	for in, ok := range map[string]bool{"main": true, "db-1_a": true, "Main": false, "1main": false, "": false, strings.Repeat("a", 64): false} {
		if _, err := NewServerName(in); ok != (err == nil) {
			t.Errorf("NewServerName(%q) = %v, want ok=%v", in, err, ok)
		}
	}
}

func TestReservedNames(t *testing.T) {
	t.Parallel()
	r := NewReservedNames("main", "tenantdb_admin", []string{"app", "replicator"})
	reserved := []string{"root", "ROOT", "mysql.sys", "mysql.session", "mysql.infoschema", "mariadb.sys",
		"debian-sys-maint", "postgres", "pg_monitor", "PG_anything", "tenantdb_admin", "TenantDB_Admin", "app", "replicator"}
	for _, n := range reserved {
		if err := r.CheckOwner(n); ReasonOf(err) != OwnerUserReserved {
			t.Errorf("CheckOwner(%q) = %v, want OwnerUserReserved", n, err)
		}
		if err := r.CheckGrantee(n); ReasonOf(err) != GrantUserReserved {
			t.Errorf("CheckGrantee(%q) = %v, want GrantUserReserved", n, err)
		}
	}
	for _, n := range []string{"acme_app", "maester", "pgx", "rooted", "app2"} {
		if err := r.CheckOwner(n); err != nil {
			t.Errorf("CheckOwner(%q) = %v", n, err)
		}
	}
	if err := r.CheckOwner("tenantdb_admin"); !strings.Contains(err.Error(), `admin login of server "main"`) {
		t.Errorf("error does not say why: %v", err)
	}
}

func TestParseVersionAndSupport(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flavor Flavor
		in     string
		want   Version
		ok     bool
	}{
		{FlavorMySQL, "8.0.36", Version{8, 0, 36}, true},
		{FlavorMySQL, "8.4.3-log", Version{8, 4, 3}, true},
		{FlavorMySQL, "5.7.44", Version{5, 7, 44}, false},
		{FlavorMariaDB, "10.11.6-MariaDB-0+deb12u1", Version{10, 11, 6}, true},
		{FlavorMariaDB, "10.5.23-MariaDB", Version{10, 5, 23}, false},
		{FlavorMariaDB, "11.4.2-MariaDB", Version{11, 4, 2}, true},
		{FlavorPostgres, "15.18 (Debian 15.18-0+deb12u1)", Version{15, 18, 0}, true},
		{FlavorPostgres, "14.9", Version{14, 9, 0}, false},
		{FlavorPostgres, "17beta1", Version{17, 0, 0}, true},
	}
	for _, c := range cases {
		v, err := ParseVersion(c.in)
		if err != nil || v != c.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", c.in, v, err, c.want)
			continue
		}
		err = CheckSupported("main", c.flavor.Engine(), ServerInfo{Flavor: c.flavor, Version: v})
		if c.ok != (err == nil) {
			t.Errorf("CheckSupported(%s %s) = %v, want ok=%v", c.flavor, c.in, err, c.ok)
		}
		if err != nil && ReasonOf(err) != UnsupportedServer {
			t.Errorf("reason %q", ReasonOf(err))
		}
	}
	if err := CheckSupported("main", EnginePostgres, ServerInfo{Flavor: FlavorMariaDB, Version: Version{10, 11, 0}}); ReasonOf(err) != UnsupportedServer {
		t.Errorf("engine mismatch not refused: %v", err)
	}
	if _, err := ParseVersion("garbage"); err == nil {
		t.Error("ParseVersion(garbage) accepted")
	}
}

func TestNewPassword(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"x", `p'a\ss"wö` + "`rd", strings.Repeat("p", 1024), "ｐａｓｓ 🔑"} {
		if _, err := NewPassword(ok); err != nil {
			t.Errorf("NewPassword(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a\x00b", "\xff\xfe", strings.Repeat("p", 1025)} {
		_, err := NewPassword(bad)
		if ReasonOf(err) != InvalidPassword {
			t.Errorf("NewPassword(%q) = %v", bad, err)
		}
		if bad != "" && strings.Contains(err.Error(), bad) {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}
