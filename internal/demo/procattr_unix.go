// SPDX-License-Identifier: MPL-2.0

//go:build unix && !linux

package demo

import "syscall"

// childProcAttr puts a child in its own process group: the demo relays
// Ctrl-C to it itself.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
