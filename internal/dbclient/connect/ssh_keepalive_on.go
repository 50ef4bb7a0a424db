// SPDX-License-Identifier: MPL-2.0

//go:build killpoints

package connect

import (
	"os"
	"time"
)

// In a provider built with -tags killpoints only (the Terraform fault
// tests'; never the one users run): TENANTDB_TEST_SSH_KEEPALIVE (a Go
// duration) replaces the 10 s keepalive interval, so a test that stops a
// bastion's session mid-apply sees the link given up within a second
// instead of 30 (TestAccSSHBastion_pins).
func init() {
	if d, err := time.ParseDuration(os.Getenv("TENANTDB_TEST_SSH_KEEPALIVE")); err == nil && d > 0 {
		sshKeepAliveInterval = d
	}
}
