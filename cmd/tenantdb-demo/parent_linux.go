// SPDX-License-Identifier: MPL-2.0

package main

import (
	"os"
	"syscall"
)

// dieWithParent asks the kernel for SIGTERM when the parent process ends,
// which the demo handles like Ctrl-C: stop, clean up, exit.
func dieWithParent() {
	ppid := os.Getppid()
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	if os.Getppid() != ppid { // the parent ended before the request took effect
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}
