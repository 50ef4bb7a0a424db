// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
)

// noLoginsLeft is a CheckDestroy: none of users exists after destroy.
func (s accServer) noLoginsLeft(t *testing.T, users ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, u := range users {
			if s.loginExists(t, u) {
				return fmt.Errorf("login %s of the run is left after destroy", u)
			}
		}
		return nil
	}
}

// TestAccTenantOwner_twoPendingLogins: two logins pending their drop at
// once. The drop fault point fails the drop of a and of b (keyed by name;
// the provider runs in the test process); rotating a -> b -> c leaves both
// pending: previous_username is "a, b" (oldest first) and both still log
// in. Once the fault is gone the next apply drops both, previous_username
// is null, the plan is empty and destroy leaves no login of the run.
// pendingLogins.add replacing the list instead of appending fails this test
// (previous_username is "b" and a is never dropped); the single-pending
// test (TestAccTenantOwner_pendingLoginsSurviveRotations) does not see it.
func TestAccTenantOwner_twoPendingLogins(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db := uniqueName("tpl")
			a, b, c := uniqueName("tpla"), uniqueName("tplb"), uniqueName("tplc")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, a, b, c)
			})
			pw := "Two-pend-1"
			cfg := func(user string) string { return s.serverHCL("") + ownerHCL(db, user, pw, 1, "") }
			addr := "tenantdb_tenant_owner.o"
			var disarms []func()
			release := func() {
				for _, d := range disarms {
					d()
				}
				disarms = nil
			}
			t.Cleanup(release)
			previous := func(want knownvalue.Check) statecheck.StateCheck {
				return statecheck.ExpectKnownValue(addr, tfjsonpath.New("previous_username"), want)
			}
			loginsWork := func(users ...string) error {
				for _, u := range users {
					if err := s.as(u, pw, "", "SELECT 1"); err != nil {
						return fmt.Errorf("login %s does not work: %v", u, err)
					}
				}
				return nil
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				TerraformVersionChecks:   writeOnlyTerraform,
				CheckDestroy:             s.noLoginsLeft(t, a, b, c),
				Steps: []resource.TestStep{
					{Config: cfg(a)},
					{
						PreConfig: func() {
							for _, u := range []string{a, b} {
								disarms = append(disarms, faultpoint.Inject(faultpoint.DropOldOwner, errors.New("injected: the drop failed"), u))
							}
						},
						Config:             cfg(b),
						ConfigStateChecks:  []statecheck.StateCheck{previous(knownvalue.StringExact(a))},
						ExpectNonEmptyPlan: true, // the pending drop is planned again
					},
					{
						Config:             cfg(c),
						ConfigStateChecks:  []statecheck.StateCheck{previous(knownvalue.StringExact(a + ", " + b))},
						Check:              s.check(func() error { return loginsWork(a, b, c) }),
						ExpectNonEmptyPlan: true,
					},
					{
						PreConfig:         release,
						Config:            cfg(c),
						ConfigStateChecks: []statecheck.StateCheck{previous(knownvalue.Null())},
						ConfigPlanChecks:  emptyAfterApply(),
						Check: s.check(func() error {
							for _, u := range []string{a, b} {
								if s.loginExists(t, u) {
									return fmt.Errorf("the pending login %s was not dropped once it could be", u)
								}
							}
							return loginsWork(c)
						}),
					},
				},
			})
		})
	}
}
