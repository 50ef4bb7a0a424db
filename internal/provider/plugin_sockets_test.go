// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
)

// pluginSocketsInOwnDir has every go-plugin server of this test binary's
// run create its Unix socket in one directory, removed when the binary ends
// (TestMain): the providers served in-process, the kill-point binary in
// debug mode and the provider processes terraform starts all read
// PLUGIN_UNIX_SOCKET_DIR (go-plugin's server; terraform passes its
// environment on). A server removes its socket only when it closes its
// listener itself: a provider killed by its test, or by terraform after a
// command, leaves it behind in TMPDIR, thousands a suite (5,157 in /tmp
// after a day of runs). The directory's name is short: a socket's path has
// at most 107 bytes. A PLUGIN_UNIX_SOCKET_DIR of the caller's is kept.
func pluginSocketsInOwnDir() {
	if _, set := os.LookupEnv("PLUGIN_UNIX_SOCKET_DIR"); set {
		return
	}
	dir, err := os.MkdirTemp("", "tdbplug")
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: a directory for the plugin sockets: %v\n", err)
		os.Exit(1)
	}
	os.Setenv("PLUGIN_UNIX_SOCKET_DIR", dir)
	cleanupDirs = append(cleanupDirs, dir)
}
