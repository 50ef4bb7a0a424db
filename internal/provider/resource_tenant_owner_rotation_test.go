// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
)

// TestAccTenantOwner_interruptedRotation: when the old login cannot be
// dropped at the end of a username rotation, both logins work,
// previous_username holds the old name, and the next apply finishes the
// drop. PostgreSQL: the old login owns an object in another database.
// MariaDB (DROP USER succeeds even with live sessions): a fault hook.
func TestAccTenantOwner_interruptedRotation(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, elsewhere, user, user2 := uniqueName("rot"), uniqueName("else"), uniqueName("app"), uniqueName("app")
			t.Cleanup(func() {
				s.dropDatabase(t, db, elsewhere)
				s.dropLogins(t, user, user2)
			})
			pw := "Rot-pw-1"
			addr := "tenantdb_tenant_owner.o"
			var disarm func()
			t.Cleanup(func() {
				if disarm != nil {
					disarm()
				}
			})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				Steps: []resource.TestStep{
					{Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, "")},
					{
						PreConfig: func() {
							if engine == "postgres" {
								s.exec(t, "", "CREATE DATABASE "+s.ident(elsewhere))
								s.exec(t, elsewhere, "CREATE TABLE blocker (v int)", fmt.Sprintf("ALTER TABLE blocker OWNER TO %s", s.ident(user)))
							} else {
								disarm = faultpoint.Inject(faultpoint.DropOldOwner, errors.New("injected: the drop of the old login failed"), user)
							}
						},
						Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.StringExact(user)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("username"), knownvalue.StringExact(user2)),
						},
						Check: s.check(func() error {
							if err := s.as(user2, pw, db, "SELECT 1"); err != nil {
								return fmt.Errorf("the new login does not work: %v", err)
							}
							if err := s.as(user, pw, "", "SELECT 1"); err != nil {
								return fmt.Errorf("the old login does not work while its drop is pending: %v", err)
							}
							return nil
						}),
						ExpectNonEmptyPlan: true, // the pending drop is planned again
					},
					{
						PreConfig: func() {
							if engine == "postgres" {
								s.exec(t, elsewhere, "DROP TABLE blocker")
							} else {
								disarm()
								disarm = nil
							}
						},
						Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), knownvalue.Null()),
						},
						Check: s.check(func() error {
							if s.loginExists(t, user) {
								return fmt.Errorf("the old login %s still exists after the retried drop", user)
							}
							return nil
						}),
					},
					{
						Config:   s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
						PlanOnly: true,
					},
				},
			})
		})
	}
}

// TestAccTenantOwner_rotationKeepsGranteesFutureTables (PostgreSQL): a
// grantee of the old owner's default privileges can still read tables the
// new owner creates after a username rotation.
func TestAccTenantOwner_rotationKeepsGranteesFutureTables(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user, user2, reader := uniqueName("fut"), uniqueName("app"), uniqueName("app"), uniqueName("reader")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user, user2, reader)
	})
	pw := "Fut-pw-1"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{
				Config: s.serverHCL("") + ownerHCL(db, user, pw, 1, ""),
				Check: s.check(func() error {
					s.CreateLogin(t, reader, "Reader-pw-1")
					// What tenant_grant does: default privileges FOR ROLE the owner.
					return s.as(user, pw, db,
						fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", s.ident(db), s.ident(reader)),
						fmt.Sprintf("GRANT USAGE ON SCHEMA public TO %s", s.ident(reader)),
						fmt.Sprintf("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO %s", s.ident(reader)))
				}),
			},
			{
				Config: s.serverHCL("") + ownerHCL(db, user2, pw, 1, ""),
				Check: s.check(func() error {
					if err := s.as(user2, pw, db, "CREATE TABLE after_rotation (v int)", "INSERT INTO after_rotation VALUES (7)"); err != nil {
						return err
					}
					if err := s.as(reader, "Reader-pw-1", db, "SELECT v FROM after_rotation"); err != nil {
						return fmt.Errorf("the grantee lost access to tables created after the rotation: %v", err)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccTenantOwner_retainPreviousPasswordIgnoredOnMariaDB: the MySQL
// 8.0.14+ dual-password option is accepted and ignored on MariaDB: the old
// password stops working at once, nothing stays retained, and the next plan
// is empty. (The MySQL 8 statements are pinned by the golden files.)
func TestAccTenantOwner_retainPreviousPasswordIgnoredOnMariaDB(t *testing.T) {
	s := testAccServerOnly(t, "mariadb", "MariaDB has no dual passwords: the MySQL option is ignored there (MySQL: TestAccMySQL_dualPasswords)")
	db, user := uniqueName("ret"), uniqueName("app")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	addr := "tenantdb_tenant_owner.o"
	rotated := s.serverHCL("") + ownerHCL(db, user, "Ret-pw-2", 2, "retain_previous_password = true")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		TerraformVersionChecks:   writeOnlyTerraform,
		Steps: []resource.TestStep{
			{Config: s.serverHCL("") + ownerHCL(db, user, "Ret-pw-1", 1, "retain_previous_password = true")},
			{
				Config: rotated,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_password_retained"), knownvalue.Bool(false)),
				},
				Check: s.check(func() error {
					if err := s.as(user, "Ret-pw-1", db, "SELECT 1"); err == nil {
						return fmt.Errorf("MariaDB has no dual passwords, yet the old one still works")
					}
					return s.as(user, "Ret-pw-2", db, "SELECT 1")
				}),
			},
			{Config: rotated, PlanOnly: true},
		},
	})
}
