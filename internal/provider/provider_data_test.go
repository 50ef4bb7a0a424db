// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

func TestAdminPasswordEnv(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"main":       "TENANTDB_ADMIN_PASSWORD_MAIN",
		"prod_main9": "TENANTDB_ADMIN_PASSWORD_PROD_MAIN9",
		"a_b":        "TENANTDB_ADMIN_PASSWORD_A_B",
		"x":          "TENANTDB_ADMIN_PASSWORD_X",
		// A name with '-' has no environment fallback: "a-b" would read
		// the variable of "a_b".
		"a-b":       "",
		"eu-west_1": "",
		"db-2":      "",
		// Not server names: no variable either.
		"a.b c": "",
		"ünï":   "",
		"Main":  "",
		"":      "",
	} {
		if got := AdminPasswordEnv(in); got != want {
			t.Errorf("AdminPasswordEnv(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAdminPasswordEnvInjective: over every server name of up to three
// characters (all of ^[a-z][a-z0-9_-]{0,2}$) no two names share a variable,
// every name without '-' has one, and every variable is a portable
// environment variable name.
func TestAdminPasswordEnvInjective(t *testing.T) {
	t.Parallel()
	const first = "abcdefghijklmnopqrstuvwxyz"
	const rest = first + "0123456789_-"
	portable := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	owner := map[string]string{}
	check := func(name string) {
		if _, err := ddl.NewServerName(name); err != nil {
			t.Fatalf("%q is not a server name: %v", name, err)
		}
		env := AdminPasswordEnv(name)
		if env == "" {
			if !strings.Contains(name, "-") {
				t.Errorf("%q has no variable", name)
			}
			return
		}
		if !portable.MatchString(env) {
			t.Errorf("%q: %q is not a portable variable name", name, env)
		}
		if other, ok := owner[env]; ok {
			t.Errorf("%q and %q share %s", other, name, env)
		}
		owner[env] = name
	}
	for _, a := range first {
		check(string(a))
		for _, b := range rest {
			check(string(a) + string(b))
			for _, c := range rest {
				check(string(a) + string(b) + string(c))
			}
		}
	}
	if len(owner) < 26*37*37 {
		t.Fatalf("checked %d names with a variable, want every name without '-'", len(owner))
	}
	// And at full length.
	long := "a" + strings.Repeat("_", 62)
	check(long)
	check(strings.Replace(long, "_", "-", 1))
}

func TestAdminPasswordLookup(t *testing.T) {
	t.Setenv("TENANTDB_ADMIN_PASSWORD_FROM_ENV", "env-secret")
	t.Setenv("TENANTDB_ADMIN_PASSWORD_BOTH", "env-loses")
	t.Setenv("TENANTDB_ADMIN_PASSWORD_A_B", "password-of-a_b")
	d := &providerData{passwords: map[string]string{"main": "config-secret", "both": "config-wins", "c-d": "config-of-c-d"}}
	for server, want := range map[string]string{
		"main": "config-secret", "from_env": "env-secret", "both": "config-wins",
		"a_b": "password-of-a_b", "c-d": "config-of-c-d",
	} {
		pw, source, err := d.adminPassword(server)
		if err != nil || pw.Reveal() != want {
			t.Errorf("adminPassword(%q) = %v, want the %s value", server, err, want)
		}
		// A rejected login names where its password came from.
		if wantSource := map[bool]string{true: "admin_passwords", false: "TENANTDB_ADMIN_PASSWORD_"}[strings.HasPrefix(want, "config")]; !strings.Contains(source, wantSource) {
			t.Errorf("adminPassword(%q) came from %q, want it to name %s", server, source, wantSource)
		}
	}

	// a-b never reads a_b's variable, so a_b's password is never sent to
	// a-b's host; the error says why and how to supply it.
	pw, _, err := d.adminPassword("a-b")
	if err == nil {
		t.Fatalf(`adminPassword("a-b") = %q from a_b's variable, want an error`, pw.Reveal())
	}
	for _, want := range []string{`"a-b"`, `admin_passwords = { "a-b" = ... }`, "no environment fallback",
		`TENANTDB_ADMIN_PASSWORD_A_B would also be the variable of server "a_b"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "password-of-a_b") {
		t.Error("the error contains a password")
	}

	_, _, err = d.adminPassword("missing_one")
	if err == nil {
		t.Fatal("a missing password was not an error")
	}
	for _, want := range []string{`"missing_one"`, "admin_passwords", "TENANTDB_ADMIN_PASSWORD_MISSING_ONE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestMissingAdminPassword: terraform apply names the server and the ways
// to supply its password, before any connection is tried.
func TestMissingAdminPassword(t *testing.T) {
	server := func(name string) string {
		return `
resource "tenantdb_db_server" "main" {
  name     = "` + name + `"
  engine   = "postgres"
  host     = "127.0.0.1"
  port     = 1
  username = "tenantdb_admin"
}
`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:      server("no_password_here"),
				ExpectError: regexp.MustCompile(`(?s)no admin password for server "no_password_here".*admin_passwords.*TENANTDB_ADMIN_PASSWORD_NO_PASSWORD_HERE`),
			},
			{
				Config:      server("no-password-here"),
				ExpectError: regexp.MustCompile(`(?s)no admin password for server "no-password-here".*admin_passwords.*no environment\s+fallback`),
			},
		},
	})
}

// TestAdminPasswordKeys: an admin_passwords key that no server can have is
// refused at validate time (a password filed under a typo would otherwise
// be silently unused).
func TestAdminPasswordKeys(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"Main", "a b", "1db", "db.example"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config: `
provider "tenantdb" {
  admin_passwords = { "` + key + `" = "x" }
}
resource "tenantdb_db_server" "main" {
  name     = "main"
  engine   = "mysql"
  host     = "127.0.0.1"
  port     = 1
  username = "tenantdb_admin"
}
`,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`InvalidIdentifier: server name`),
				}},
			})
		})
	}
}
