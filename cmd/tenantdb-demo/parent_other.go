// SPDX-License-Identifier: MPL-2.0

//go:build !linux

package main

// dieWithParent: only Linux can signal a process when its parent ends.
func dieWithParent() {}
