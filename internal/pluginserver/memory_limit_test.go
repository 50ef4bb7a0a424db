// SPDX-License-Identifier: MPL-2.0

package pluginserver

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestLimitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // restore whatever the test binary had

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "")
	LimitMemory()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limit = %d, want the user's (unchanged)", got)
	}

	t.Setenv("GOMEMLIMIT", "")
	if err := os.Unsetenv("GOMEMLIMIT"); err != nil {
		t.Fatal(err)
	}
	LimitMemory()
	if got := debug.SetMemoryLimit(-1); got != providerMemoryLimit {
		t.Errorf("GOMEMLIMIT unset: limit = %d, want %d", got, providerMemoryLimit)
	}
}
