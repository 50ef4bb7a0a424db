// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccUpgrade_earlierDeploymentPlansNothing (issue 54): a tenant made
// by an earlier release (its state, and on MySQL its ledger: the owner
// rows of issue 43, no grant rows) is taken over in place by this build
// with no change planned, applies clean, and is destroyed by it with
// nothing left: the owner dropped, and the grantee's SELECT (granted by the
// earlier release, recorded only in state) revoked. The earlier build is
// given by TENANTDB_TEST_OLD_PROVIDER, a directory holding its
// terraform-provider-tenantdb binary; `make test-upgrade` builds 65d3dd4
// (the last release before the ledger recorded grants) and runs it. Not
// in `make test`: it builds a second provider.
func TestAccUpgrade_earlierDeploymentPlansNothing(t *testing.T) {
	old := os.Getenv("TENANTDB_TEST_OLD_PROVIDER")
	if old == "" {
		t.Skip("TENANTDB_TEST_OLD_PROVIDER is not set (make test-upgrade builds an earlier release)")
	}
	if _, err := os.Stat(filepath.Join(old, "terraform-provider-tenantdb")); err != nil {
		t.Fatalf("TENANTDB_TEST_OLD_PROVIDER: %v", err)
	}
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		db, owner, grantee := uniqueName("upg"), uniqueName("upgo"), uniqueName("upgg")
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.dropLogins(t, owner, grantee)
		})
		s.principal(t, grantee)
		w := newCLIWorkspace(t)
		current := w.env
		w.env = oldProviderEnv(t, old)
		w.write(s.serverHCL("") + trustHCL(db, owner, grantee, ""))
		w.run("apply", "-auto-approve").mustSucceed(t, "the earlier release creates the tenant")
		if got := s.ledgerGranted(t, grantee, db); got != "" {
			t.Fatalf("the earlier release recorded a grant (%q): the test would prove nothing", got)
		}

		w.env = current
		w.requireEmptyPlan(t, "after the upgrade (nothing may change in place)")
		w.run("apply", "-auto-approve").mustSucceed(t, "an apply after the upgrade")
		w.requireEmptyPlan(t, "after the first apply of this build")
		destroyed := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy by this build")
		if s.loginExists(t, owner) {
			t.Fatal("destroy left the owner login the earlier release made")
		}
		if got := s.dbRows(t, db, grantee); len(got) > 0 {
			t.Fatalf("destroy left the grantee %v on %s:\n%+v", got, db, destroyed.Diagnostics)
		}
	})
}

// oldProviderEnv is the environment that makes the CLI use the provider
// binary in dir (dev_overrides), as buildProvider's does for this build.
func oldProviderEnv(t *testing.T, dir string) []string {
	t.Helper()
	rc := filepath.Join(t.TempDir(), "old.rc")
	body := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/tenantdb/tenantdb\" = %q\n  }\n  direct {}\n}\n", dir)
	if err := os.WriteFile(rc, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range newCLIWorkspace(t).env {
		if !strings.HasPrefix(e, "TF_CLI_CONFIG_FILE=") {
			env = append(env, e)
		}
	}
	return append(env, "TF_CLI_CONFIG_FILE="+rc)
}
