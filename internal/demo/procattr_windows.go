// SPDX-License-Identifier: MPL-2.0

package demo

import "syscall"

// childProcAttr: nothing to set on Windows.
func childProcAttr() *syscall.SysProcAttr { return nil }
