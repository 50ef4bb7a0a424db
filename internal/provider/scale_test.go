// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScalePlan measures a no-op `terraform plan` of N tenant databases
// against the floor of N terraform_data resources, with the real provider
// binary (dev_overrides) and a real server. It runs only when asked:
//
//	TENANTDB_SCALE_TENANTS=500 make bench-plan
//
// It reports numbers and asserts nothing about time (tests never do).
func TestScalePlan(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TENANTDB_SCALE_TENANTS"))
	if n <= 0 {
		t.Skip("set TENANTDB_SCALE_TENANTS=N to measure a plan of N tenant databases")
	}
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			os.Setenv("TF_ACC", "1")
			s := testAccServer(t, engine)
			dir := t.TempDir()
			env := append(providerBinaryEnv(t), AdminPasswordEnv(s.name)+"="+s.Admin.Password)

			tenants := filepath.Join(dir, "tenants")
			floor := filepath.Join(dir, "floor")
			fwFloor := filepath.Join(dir, "framework-floor")
			for _, d := range []string{tenants, floor, fwFloor} {
				os.MkdirAll(d, 0o755)
			}
			var hcl, floorHCL, fwHCL strings.Builder
			fwHCL.WriteString(`terraform {
  required_providers {
    tenantdbfloor = { source = "tenantdb/tenantdbfloor" }
  }
}
`)
			serverObject := fmt.Sprintf(`{ name = %q, engine = %q, host = %q, port = %d, username = %q, tls = "verify-full", ca_cert = %q }`,
				s.name, s.Engine, s.Host, s.Port, s.Admin.Username, s.CAPEM)
			hcl.WriteString(`terraform {
  required_providers {
    tenantdb = { source = "tenantdb/tenantdb" }
  }
}
` + s.serverHCL(""))
			prefix := uniqueName("scale")
			for i := 0; i < n; i++ {
				fmt.Fprintf(&hcl, "resource \"tenantdb_tenant_database\" \"t%d\" {\n  server = tenantdb_db_server.main.ref\n  name   = \"%s_%d\"\n}\n", i, prefix, i)
				fmt.Fprintf(&floorHCL, "resource \"terraform_data\" \"t%d\" {\n  input = \"%s_%d\"\n}\n", i, prefix, i)
				fmt.Fprintf(&fwHCL, "resource \"tenantdbfloor_tenant_database\" \"t%d\" {\n  server = %s\n  name   = \"%s_%d\"\n}\n", i, serverObject, prefix, i)
			}
			os.WriteFile(filepath.Join(tenants, "main.tf"), []byte(hcl.String()), 0o644)
			os.WriteFile(filepath.Join(floor, "main.tf"), []byte(floorHCL.String()), 0o644)
			os.WriteFile(filepath.Join(fwFloor, "main.tf"), []byte(fwHCL.String()), 0o644)
			t.Cleanup(func() {
				for i := 0; i < n; i++ {
					s.dropDatabase(t, fmt.Sprintf("%s_%d", prefix, i))
				}
			})

			start := time.Now()
			runEnv(t, tenants, env, "terraform", "apply", "-auto-approve", "-input=false")
			applyTime := time.Since(start)
			runEnv(t, floor, env, "terraform", "init", "-input=false")
			runEnv(t, floor, env, "terraform", "apply", "-auto-approve", "-input=false")
			runEnv(t, fwFloor, env, "terraform", "apply", "-auto-approve", "-input=false")

			conns0 := s.connections(t)
			best := func(dir string, extra ...string) time.Duration {
				var min time.Duration
				for i := 0; i < 3; i++ {
					start := time.Now()
					runEnv(t, dir, env, "terraform", append([]string{"plan", "-input=false", "-detailed-exitcode"}, extra...)...)
					if d := time.Since(start); min == 0 || d < min {
						min = d
					}
				}
				return min
			}
			if cmd := os.Getenv("TENANTDB_SCALE_PROFILE"); cmd != "" {
				// e.g. "perf record -g -o /tmp/plan.perf --": profile one plan.
				args := append(strings.Fields(cmd), "terraform", "plan", "-input=false")
				runEnv(t, tenants, env, args[0], args[1:]...)
			}
			tenantPlan := best(tenants)
			conns := s.connections(t) - conns0
			floorPlan := best(floor)
			fwFloorPlan := best(fwFloor)
			noRefresh := best(tenants, "-refresh=false")
			pct := func(a, b time.Duration) float64 { return 100 * (float64(a)/float64(b) - 1) }
			t.Logf("%s: %d tenants: apply %s; no-op plan %s (without refresh %s); floors: terraform_data %s (%+.0f%%), "+
				"same schema in an empty framework provider %s (%+.0f%%); %d server connections over 3 plans",
				engine, n, applyTime.Round(time.Millisecond), tenantPlan.Round(time.Millisecond), noRefresh.Round(time.Millisecond),
				floorPlan.Round(time.Millisecond), pct(tenantPlan, floorPlan),
				fwFloorPlan.Round(time.Millisecond), pct(tenantPlan, fwFloorPlan), conns)
		})
	}
}

// connections is the server's count of connections ever accepted.
func (s accServer) connections(t *testing.T) int {
	t.Helper()
	var n int
	if s.Engine == "postgres" {
		// Sessions opened since stats reset, all databases.
		if err := s.super(t, "").QueryRow(`SELECT COALESCE(SUM(sessions), 0) FROM pg_stat_database`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var name string
	if err := s.super(t, "").QueryRow(`SHOW GLOBAL STATUS LIKE 'Connections'`).Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// providerBinaryEnv builds the provider binary and returns an environment in
// which the real terraform CLI uses it (dev_overrides), as users run it.
func providerBinaryEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	runEnv(t, "", os.Environ(), "go", "build", "-o", filepath.Join(bin, "terraform-provider-tenantdb"), "../..")
	runEnv(t, "", os.Environ(), "go", "build", "-o", filepath.Join(bin, "terraform-provider-tenantdbfloor"), "../benchfloor")
	cli := filepath.Join(dir, "tf.rc")
	if err := os.WriteFile(cli, []byte(fmt.Sprintf(`provider_installation {
  dev_overrides {
    "registry.terraform.io/tenantdb/tenantdb"      = %q
    "registry.terraform.io/tenantdb/tenantdbfloor" = %q
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
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
