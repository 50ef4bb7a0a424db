// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"slices"
	"strings"
)

// childRuntimeSettings runs the Go processes the tests start (terraform,
// and the provider binary of the CLI tests) on one P unless GOMAXPROCS is
// set, and without garbage collection below 1 GiB unless GOGC is (below).
// Nearly all of the suite's CPU is those processes' start-up and their
// short commands (TESTING.md, "Where the time goes": terraform's package
// init alone is about 110 ms a command), which a second P only makes
// dearer: idle Ps spinning, more threads, a parallel GC of a tiny heap.
// Measured on MariaDB (TestAccTenantDatabase_lifecycle and
// TestAccTenantGrant_lifecycle, 134 terraform commands): 26.0 CPU s with
// the default, 23.8 with one P, the wall time the same. The suite runs
// three go tests side by side on two cores, so no command is made to wait
// on a core it would otherwise have had. The test binary itself keeps its
// Ps (its parallel subtests and in-process providers).
func childRuntimeSettings() {
	childSetting("GOMAXPROCS", "TENANTDB_TEST_CHILD_GOMAXPROCS", "1")
	// The same processes without a garbage collection until their heap
	// reaches 1 GiB: a terraform command or a provider process lives well
	// under a second and allocates a few tens of MB, so the collections a
	// default GOGC runs are pure cost (issue 55: measured in TESTING.md,
	// "Where the CPU goes, by process"). GOMEMLIMIT keeps a long command
	// bounded.
	if childSetting("GOGC", "TENANTDB_TEST_CHILD_GOGC", "off") && os.Getenv("GOGC") == "off" {
		childSetting("GOMEMLIMIT", "TENANTDB_TEST_CHILD_GOMEMLIMIT", "1GiB")
	}
}

// childSetting sets the runtime variable name for the child processes to
// def, or to what the variable override says ("default": leave it unset),
// unless name is set already. The test binary itself read its runtime
// settings when it started, so only the children see the change. It
// reports whether it set name.
func childSetting(name, override, def string) bool {
	if _, set := os.LookupEnv(name); set {
		return false
	}
	value := os.Getenv(override)
	if value == "" {
		value = def
	}
	if value == "default" {
		return false
	}
	os.Setenv(name, value)
	childSettingsSet = append(childSettingsSet, name)
	return true
}

// childSettingsSet are the runtime variables childRuntimeSettings set for the
// children.
var childSettingsSet []string

// withoutChildRuntimeSettings is env without the runtime variables
// childRuntimeSettings set: a `go build` the tests run keeps its parallel
// compiles (its -p is GOMAXPROCS) and its collector.
func withoutChildRuntimeSettings(env []string) []string {
	if len(childSettingsSet) == 0 {
		return env
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(childSettingsSet, name)
	})
}
