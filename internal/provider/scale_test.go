// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The scale measurement that lived here (TestScalePlan) is `make bench`
// now: cmd/tenantdb-bench and internal/bench, with the do-nothing floor
// provider in cmd/benchfloor (see BENCHMARKS.md). What stays are the
// helpers other tests use to run the real terraform CLI against the
// provider binary.

// providerBinaryEnv builds the provider binary and returns an environment in
// which the real terraform CLI uses it (dev_overrides), as users run it.
func providerBinaryEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := prebuiltProvider("")
	if bin == "" {
		bin = filepath.Join(dir, "bin")
		runEnv(t, "", os.Environ(), "go", "build", "-o", filepath.Join(bin, "terraform-provider-tenantdb"), "../..")
	}
	cli := filepath.Join(dir, "tf.rc")
	if err := os.WriteFile(cli, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/tenantdb/tenantdb" = %q
    "registry.opentofu.org/tenantdb/tenantdb" = %q
  }
  direct {}
}
`, bin, bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
}

func runEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := tryEnv(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func tryEnv(dir string, env []string, name string, args ...string) (string, error) {
	if name == "go" {
		env = withoutChildRuntimeSettings(env)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
