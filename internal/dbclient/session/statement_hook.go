// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"sync/atomic"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// statementHook, when set, is called just before each statement is sent
// to the server (inside a PostgreSQL transaction too, BEGIN and COMMIT
// included), on the goroutine that sends it. Only tests set it (this
// package's, and the kill-point build's timeout points,
// killpoint_on.go): they end an operation's context right as a chosen
// statement runs, so the server really gets the KILL QUERY or cancel
// request an operation_timeout sends. The provider users run never sets
// it; the check is one atomic load.
var StatementHook atomic.Pointer[func(ctx context.Context, st ddl.Statement)]

// statementStarting calls the hook, if any.
func statementStarting(ctx context.Context, st ddl.Statement) {
	if h := StatementHook.Load(); h != nil {
		(*h)(ctx, st)
	}
}

// finishedHook, when set (tests only, as statementHook), is called after
// each statement the server completed (afterStatement): a test ends the
// operation's context there to play a cancel that reaches the server after
// the statement committed.
var FinishedHook atomic.Pointer[func(st ddl.Statement)]

// statementFinished calls the finished hook, if any.
func statementFinished(st ddl.Statement) {
	if h := FinishedHook.Load(); h != nil {
		(*h)(st)
	}
}
