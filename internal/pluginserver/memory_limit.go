// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"os"
	"runtime/debug"
)

// providerMemoryLimit is the Go heap's soft limit (runtime/debug
// SetMemoryLimit) for a provider process: a ceiling, not a tuning. With
// releasingServer a no-op plan's live heap stays flat whatever the number
// of resources (the measured peaks are in BENCHMARKS.md, "Growth"), so the
// collector never meets the limit in normal use; should something
// hold much more, the collector runs more often before the heap grows past
// it (the limit is soft: a heap that really needs more still gets it).
const providerMemoryLimit = 144 << 20

// LimitMemory sets providerMemoryLimit unless GOMEMLIMIT is set (then the
// user's value holds). Call it first thing in main.
func LimitMemory() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(providerMemoryLimit)
}
