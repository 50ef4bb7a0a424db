// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// noSecretInPlan fails when the plan, rendered as JSON, contains a secret.
type noSecretInPlan struct{ secrets []string }

func (c noSecretInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	b, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	for _, s := range c.secrets {
		if strings.Contains(string(b), s) {
			resp.Error = fmt.Errorf("the plan contains a secret")
		}
	}
}

// TestAccSecrets_adminPasswordNowhere passes the admin password through the
// provider block from an ephemeral variable, runs with TF_LOG=TRACE, and
// searches state, plans, both logs and an error diagnostic for it.
func TestAccSecrets_adminPasswordNowhere(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			secret := s.Admin.Password
			logs := t.TempDir()
			t.Setenv(AdminPasswordEnv(s.name), "") // only the provider block supplies it
			t.Setenv("TF_ACC_LOG", "TRACE")
			t.Setenv("TF_LOG", "TRACE")
			t.Setenv("TF_ACC_LOG_PATH", filepath.Join(logs, "terraform.log"))
			name, pre := uniqueName("sec"), uniqueName("secpre")
			t.Cleanup(func() { s.dropDatabase(t, name, pre) })
			hcl := fmt.Sprintf(`
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
provider "tenantdb" {
  admin_passwords = { %s = var.admin_password }
}
`, s.name) + s.serverHCL("") + tenantDatabaseHCL(name, `deletion_policy = "delete"`)
			vars := config.Variables{"admin_password": config.StringVariable(secret)}
			inState := func(st *terraform.State) error {
				b, _ := json.Marshal(st)
				if strings.Contains(string(b), secret) {
					return fmt.Errorf("the state contains the admin password")
				}
				return nil
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: hcl, ConfigVariables: vars, Check: inState,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{noSecretInPlan{[]string{secret}}}},
					},
					{
						// A refusal's diagnostics must not carry it either.
						PreConfig:       func() { s.exec(t, "", "CREATE DATABASE "+s.ident(pre)) },
						Config:          hcl + tenantDatabaseHCL(pre, ""),
						ConfigVariables: vars,
						ExpectError:     regexp.MustCompile(`DatabasePreExists`),
					},
					{
						Config: hcl, ConfigVariables: vars, Check: inState,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
					},
				},
			})
			var searched int
			var sawDatabase bool
			filepath.Walk(logs, func(p string, info os.FileInfo, err error) error {
				if err != nil || info.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				searched += len(b)
				sawDatabase = sawDatabase || (strings.Contains(string(b), name) && strings.Contains(string(b), "tenantdb statement"))
				if strings.Contains(string(b), secret) {
					t.Errorf("%s contains the admin password", p)
				}
				return nil
			})
			if !sawDatabase {
				t.Fatalf("the logs never show the statements on database %s: they do not cover the apply, so the search proves nothing", name)
			}
			if searched < 10000 {
				t.Fatalf("only %d bytes of TRACE logs were written: the search proves nothing", searched)
			}
			t.Logf("searched %d bytes of TRACE logs", searched)
		})
	}
}
