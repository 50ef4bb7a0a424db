// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"runtime/debug"
)

// providerMemoryLimit is the Go heap's soft limit (runtime/debug
// SetMemoryLimit) for a provider process. The framework allocates per
// attribute of every request, so with the default GOGC a no-op plan's peak
// grows with the number of resources (about 165 MiB at 1,500 resources, see
// BENCHMARKS.md) although little of it is live for long. Under the limit the
// collector runs more often instead of growing the heap; a heap that really
// needs more still gets it (the limit is soft).
const providerMemoryLimit = 144 << 20

// LimitMemory sets providerMemoryLimit unless GOMEMLIMIT is set (then the
// user's value holds). Call it first thing in main.
func LimitMemory() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(providerMemoryLimit)
}
