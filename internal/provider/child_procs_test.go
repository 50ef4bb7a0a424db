// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"slices"
	"strings"
)

// childGoMaxProcs runs the Go processes the tests start (terraform, and the
// provider binary of the CLI tests) on one P unless GOMAXPROCS is set.
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
func childGoMaxProcs() {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	child := os.Getenv("TENANTDB_TEST_CHILD_GOMAXPROCS")
	if child == "" {
		child = "1"
	}
	if child != "default" {
		os.Setenv("GOMAXPROCS", child)
		childGoMaxProcsSet = true
	}
}

// childGoMaxProcsSet: childGoMaxProcs set GOMAXPROCS for the children.
var childGoMaxProcsSet bool

// withoutChildGoMaxProcs is env without the GOMAXPROCS childGoMaxProcs
// set: a `go build` the tests run keeps its parallel compiles (its -p is
// GOMAXPROCS).
func withoutChildGoMaxProcs(env []string) []string {
	if !childGoMaxProcsSet {
		return env
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
}
