// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// Terraform plans every resource once more before a destroy plan: the
// refresh that precedes it runs as a normal plan, creates included (a
// resource in the configuration but not in state), and its errors stop the
// destroy. A preflight refusal there (a name taken since, the loser of a
// race for one) would stop the destroy over a resource the destroy never
// creates. No request says which kind of plan it is, so the provider asks
// the process that started it: terraform (or tofu), whose arguments and
// TF_CLI_ARGS say whether it destroys. Elsewhere (a platform without
// /proc, a provider served in-process by terraform-plugin-testing) the
// answer is "no", and the preflight runs as in any plan; the acceptance
// tests that serve the provider in-process for one terraform command of
// their own tell it from that command's arguments (cli_inprocess_test.go).
var terraformDestroying = sync.OnceValue(func() bool {
	return destroyingArgs(parentArgs(), os.Getenv)
})

// terraformDestroys reports whether the terraform command the provider
// serves plans a destroy: as the provider was told (a test serving it
// in-process for a command of its own), else as its parent says.
func (d *providerData) terraformDestroys() bool {
	if d.destroying != nil {
		return d.destroying()
	}
	return terraformDestroying()
}

// parentArgs is the command line of this process's parent, or nil.
func parentArgs() []string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/cmdline")
	if err != nil || len(raw) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}

// destroyingArgs reports whether a terraform command line (its arguments
// and the TF_CLI_ARGS variables getenv gives) plans a destroy: `destroy`,
// or `plan`/`apply` with -destroy.
func destroyingArgs(args []string, getenv func(string) string) bool {
	if len(args) < 2 {
		return false
	}
	sub, rest := "", []string(nil)
	for i, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			sub, rest = a, args[i+2:]
			break
		}
	}
	switch sub {
	case "destroy":
		return true
	case "plan", "apply":
	default:
		return false
	}
	rest = append(rest, strings.Fields(getenv("TF_CLI_ARGS"))...)
	rest = append(rest, strings.Fields(getenv("TF_CLI_ARGS_"+sub))...)
	for _, a := range rest {
		switch strings.TrimPrefix(a, "-") {
		case "-destroy", "destroy", "-destroy=true", "destroy=true":
			return true
		}
	}
	return false
}
