// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// printableASCII is every printable ASCII character, 0x20 (space) to 0x7E
// (~), in order: quotes, backslash, backtick, $, %, _, #, --, /* and {}
// included.
func printableASCII() string {
	var b strings.Builder
	for c := byte(0x20); c <= 0x7e; c++ {
		b.WriteByte(c)
	}
	return b.String()
}

// unicodePassword is multibyte UTF-8: Latin-1 letters (2 bytes), CJK (3
// bytes) and an emoji outside the BMP (4 bytes). It is NFC and
// NFKC-stable, so every client prepares it the same way.
const unicodePassword = "pässwörd-日本語-🔑"

// requireStoredPassword proves the server stores exactly pw for user: on
// MySQL/MariaDB the native hash of exactly these bytes (when the account
// uses mysql_native_password); on PostgreSQL the SCRAM-SHA-256 verifier
// recomputed from the stored salt and iteration count.
func (s accServer) requireStoredPassword(user, pw string) error {
	db, err := s.SuperDB("")
	if err != nil {
		return err
	}
	if s.Engine != "postgres" {
		var plugin, stored string
		if err := db.QueryRow(`SELECT plugin, authentication_string FROM mysql.user WHERE User = ? AND Host = '%'`, user).Scan(&plugin, &stored); err != nil {
			return err
		}
		if plugin != "mysql_native_password" {
			return nil // caching_sha2_password salts its hash: the logins prove it
		}
		if stored != mysqlNativeHash(pw) {
			return fmt.Errorf("%s's stored hash is not the native hash of the password (%d bytes) that was configured", user, len(pw))
		}
		return nil
	}
	var stored string
	if err := db.QueryRow(`SELECT rolpassword FROM pg_authid WHERE rolname = $1`, user).Scan(&stored); err != nil {
		return err
	}
	// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
	parts := strings.Split(stored, "$")
	if len(parts) != 3 || parts[0] != "SCRAM-SHA-256" {
		return fmt.Errorf("%s's stored password is not a SCRAM-SHA-256 verifier (%.14s…)", user, stored)
	}
	iterSalt := strings.SplitN(parts[1], ":", 2)
	if len(iterSalt) != 2 {
		return fmt.Errorf("%s's verifier has no salt", user)
	}
	iter, err := strconv.Atoi(iterSalt[0])
	if err != nil {
		return err
	}
	salt, err := base64.StdEncoding.DecodeString(iterSalt[1])
	if err != nil {
		return err
	}
	p, err := ddl.NewPassword(pw)
	if err != nil {
		return err
	}
	if ddl.ScramVerifier(p, salt, iter) != stored {
		return fmt.Errorf("%s's SCRAM verifier is not the one of the password (%d bytes) that was configured", user, len(pw))
	}
	return nil
}

// TestAccPasswordCharset_asciiAndUnicode: on both engines, two owners, one
// with every printable ASCII character as its password and one with a
// multibyte Unicode password, are created through terraform (write-only
// password_wo from ephemeral variables). Each logs in with exactly its
// password and runs SELECT 1; near misses (the ASCII password without its
// leading space or its last character, the Unicode one without its emoji,
// each with a trailing space) fail, and the server stores exactly those
// bytes (MySQL native hash, PostgreSQL SCRAM verifier recomputed from its
// salt). A password_wo_version bump then swaps the two passwords: the new
// ones work and the old ones no longer do. No plan (before apply, after
// apply and refresh) and no state holds either password in any escaped
// form or digest, and each plan after apply is empty.
func TestAccPasswordCharset_asciiAndUnicode(t *testing.T) {
	ascii := printableASCII()
	if len(ascii) != 95 || ascii[0] != ' ' || ascii[len(ascii)-1] != '~' {
		t.Fatalf("printableASCII() = %q", ascii)
	}
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			dbA, dbB := uniqueName("pwa"), uniqueName("pwb")
			userA, userB := uniqueName("pwa"), uniqueName("pwb")
			t.Cleanup(func() {
				s.dropDatabase(t, dbA, dbB)
				s.dropLogins(t, userA, userB)
			})
			secrets := []string{ascii, unicodePassword}

			hcl := func(version int) string {
				return `
variable "pw_a" {
  type      = string
  sensitive = true
  ephemeral = true
}
variable "pw_b" {
  type      = string
  sensitive = true
  ephemeral = true
}
` + s.serverHCL("") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "a" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_database" "b" {
  server = tenantdb_db_server.main.ref
  name   = %q
}
resource "tenantdb_tenant_owner" "a" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.a.name
  username            = %q
  password_wo         = var.pw_a
  password_wo_version = %d
}
resource "tenantdb_tenant_owner" "b" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.b.name
  username            = %q
  password_wo         = var.pw_b
  password_wo_version = %d
}
`, dbA, dbB, userA, version, userB, version)
			}
			vars := func(a, b string) config.Variables {
				return config.Variables{"pw_a": config.StringVariable(a), "pw_b": config.StringVariable(b)}
			}

			rec := &scanRecord{}
			planScan := noSecretInPlan{secrets, rec}
			stateScan := []statecheck.StateCheck{
				noSecretInState{secrets, userA, rec},
				noSecretInState{secrets, userB, rec},
				statecheck.ExpectKnownValue("tenantdb_tenant_owner.a", tfjsonpath.New("password_wo"), knownvalue.Null()),
				statecheck.ExpectKnownValue("tenantdb_tenant_owner.b", tfjsonpath.New("password_wo"), knownvalue.Null()),
			}
			// logins: each owner logs in with exactly its password, and
			// near misses and the other (old) password fail.
			logins := func(pwA, pwB string) func() error {
				return func() error {
					for _, c := range []struct{ user, pw, db, old string }{{userA, pwA, dbA, pwB}, {userB, pwB, dbB, pwA}} {
						if err := s.as(c.user, c.pw, c.db, "SELECT 1"); err != nil {
							return fmt.Errorf("%s cannot log in with its %d-byte password: %w", c.user, len(c.pw), err)
						}
						if err := s.requireStoredPassword(c.user, c.pw); err != nil {
							return err
						}
						misses := map[string]string{
							"the other owner's (after the swap: its previous) password": c.old,
							"a trailing space added":                                    c.pw + " ",
						}
						if c.pw == ascii {
							misses["without the leading space"] = ascii[1:]
							misses["without the last character"] = ascii[:len(ascii)-1]
						} else {
							misses["without the emoji"] = strings.TrimSuffix(unicodePassword, "🔑")
						}
						for what, pw := range misses {
							if err := s.as(c.user, pw, c.db, "SELECT 1"); err == nil {
								return fmt.Errorf("%s logs in with its password %s", c.user, what)
							}
						}
					}
					return nil
				}
			}
			step := func(version int, pwA, pwB string, action plancheck.ResourceActionType) resource.TestStep {
				return resource.TestStep{
					Config:          hcl(version),
					ConfigVariables: vars(pwA, pwB),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("tenantdb_tenant_owner.a", action),
							plancheck.ExpectResourceAction("tenantdb_tenant_owner.b", action),
							planScan,
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), planScan},
					},
					ConfigStateChecks: stateScan,
					Check:             s.check(logins(pwA, pwB)),
				}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				Steps: []resource.TestStep{
					step(1, ascii, unicodePassword, plancheck.ResourceActionCreate),
					// Rotation: swap the passwords with a version bump.
					step(2, unicodePassword, ascii, plancheck.ResourceActionUpdate),
				},
			})
			if t.Failed() {
				return
			}
			// Each step: a plan before apply and one after, two states.
			if rec.plans < 4 || rec.states < 4 {
				t.Fatalf("searched %d plans and %d states for the passwords, want at least 4 and 4", rec.plans, rec.states)
			}
		})
	}
}
