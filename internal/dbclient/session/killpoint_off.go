// SPDX-License-Identifier: MPL-2.0

//go:build !killpoints

package session

import "github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

// afterStatement is the kill-point suite's hook (killpoint_on.go, built
// only with -tags killpoints); in the provider users run it calls only the
// test hook (StatementHook, statement.go), which nothing sets there.
func afterStatement(st ddl.Statement) { statementFinished(st) }
