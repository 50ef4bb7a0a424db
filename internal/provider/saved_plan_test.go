// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The HCP Terraform flow: a plan in one process (`terraform plan -out`),
// its apply in another (`terraform apply <planfile>`), ephemeral variables
// given again at apply time, the admin password from the environment
// (TENANTDB_ADMIN_PASSWORD_<NAME>, as a workspace variable would). A
// speculative plan needs nothing more.

const savedPlanOwnerVar = `
variable "owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}
`

// planThenApply runs `terraform plan -out` and `terraform apply <plan>` as
// two commands, and checks the saved plan holds no password.
func planThenApply(t *testing.T, w *cliWorkspace, what string, secrets []string, planArgs ...string) {
	t.Helper()
	plan := filepath.Join(w.dir, "tfplan")
	w.run(append([]string{"plan", "-out=" + plan}, planArgs...)...).mustSucceed(t, what+": plan -out")
	zr, err := zip.OpenReader(plan)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		all.Write(b)
	}
	zr.Close()
	if all.Len() < 500 || !strings.Contains(all.String(), "tenantdb_tenant_owner") {
		t.Fatalf("%s: the saved plan does not hold the owner: the search below would prove nothing", what)
	}
	for _, s := range secrets {
		if strings.Contains(all.String(), s) {
			t.Fatalf("%s: the saved plan holds a password", what)
		}
	}
	// The plan file comes last: run would add -json after it.
	out, err := tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), "apply", "-no-color", plan)
	if err != nil {
		t.Fatalf("%s: apply the saved plan: %v\n%s", what, err, out)
	}
}

// TestAccSavedPlan_hcpFlow: create, a password rotation (version bump), a
// username rotation and destroy, each planned and applied as separate
// commands; a speculative plan in between. Owners log in with the password
// the apply-time variable gives.
func TestAccSavedPlan_hcpFlow(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipOnStandIn(t, engine, "Terraform's saved-plan flow: the same statements whatever the release")
			s := testAccServer(t, engine)
			db, a, b := uniqueName("hcp"), uniqueName("hcpa"), uniqueName("hcpb")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				s.dropLogins(t, a, b)
			})
			w := newCLIWorkspace(t)
			cfg := func(user string, version int) string {
				return s.serverHCL("") + savedPlanOwnerVar + strings.Replace(ownerHCL(db, user, "X", version, ""),
					`password_wo         = "X"`, `password_wo         = var.owner_password`, 1)
			}
			pw1, pw2 := "Hcp-pw-1", "Hcp-pw-2"
			setPW := func(pw string) { w.env = append(w.env, "TF_VAR_owner_password="+pw) }
			secrets := []string{pw1, pw2}

			setPW(pw1)
			w.write(cfg(a, 1))
			planThenApply(t, w, "create", secrets)
			if err := s.as(a, pw1, db, "SELECT 1"); err != nil {
				t.Fatalf("the owner does not log in after create: %v", err)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "speculative plan: no changes")

			setPW(pw2)
			w.write(cfg(a, 2))
			planThenApply(t, w, "password rotation", secrets)
			if err := s.as(a, pw2, db, "SELECT 1"); err != nil {
				t.Fatalf("the new password does not work: %v", err)
			}
			if err := s.as(a, pw1, db, "SELECT 1"); err == nil {
				t.Fatal("the old password still works after the rotation")
			}

			w.write(cfg(b, 2))
			planThenApply(t, w, "username rotation", secrets)
			if err := s.as(b, pw2, db, "SELECT 1"); err != nil {
				t.Fatalf("the new login does not work: %v", err)
			}
			if s.loginExists(t, a) {
				t.Fatal("the old login survived the rotation")
			}

			planThenApply(t, w, "destroy", secrets, "-destroy")
			if s.loginExists(t, b) {
				t.Fatal("destroy left the login")
			}
		})
	}
}
