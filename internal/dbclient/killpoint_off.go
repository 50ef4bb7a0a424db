// SPDX-License-Identifier: MPL-2.0

//go:build !killpoints

package dbclient

import "github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

// afterStatement is the kill-point suite's hook (killpoint_on.go, built
// only with -tags killpoints); in the provider users run it does nothing.
func afterStatement(ddl.Statement) {}
