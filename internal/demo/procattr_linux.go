// SPDX-License-Identifier: MPL-2.0

package demo

import "syscall"

// childProcAttr puts a child in its own process group (the demo relays
// Ctrl-C to it itself) and has the kernel end it if the demo dies.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
