// SPDX-License-Identifier: MPL-2.0

//go:build killpoints

package session

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
)

// Timeout points: the kill-point suite's timeout dimension (only a
// provider built with -tags killpoints has this file). With
// TENANTDB_TIMEOUTPOINT_FILE set, every statement sent to a server (BEGIN,
// COMMIT, savepoints and undo steps included) is appended to that file
// before it is sent; the TENANTDB_TIMEOUTPOINT_AT-th ends its operation's
// context timeoutPointDelay after it was handed to the server, as
// operation_timeout would: MySQL/MariaDB then get KILL QUERY of its
// connection, PostgreSQL a cancel request, unless it already finished (a
// cancel that arrives after the statement: the next step sees the ended
// context). TENANTDB_TIMEOUTPOINT_AT=0 only counts.
var timeoutPoint struct {
	sync.Mutex
	n int
}

// timeoutPointDelay: long enough for the statement to reach the server,
// short enough to land while most DDL still runs
// (TENANTDB_TIMEOUTPOINT_DELAY_US overrides it).
const timeoutPointDelay = 2 * time.Millisecond

func init() {
	file := os.Getenv("TENANTDB_TIMEOUTPOINT_FILE")
	if file == "" {
		return
	}
	at, _ := strconv.Atoi(os.Getenv("TENANTDB_TIMEOUTPOINT_AT"))
	delay := timeoutPointDelay
	if us, err := strconv.Atoi(os.Getenv("TENANTDB_TIMEOUTPOINT_DELAY_US")); err == nil {
		delay = time.Duration(us) * time.Microsecond
	}
	hook := func(ctx context.Context, st ddl.Statement) {
		timeoutPoint.Lock()
		defer timeoutPoint.Unlock()
		timeoutPoint.n++
		line := fmt.Sprintf("%d %s\n", timeoutPoint.n, st)
		if timeoutPoint.n == at {
			if cancel, ok := faultpoint.OperationCancel(ctx); ok {
				time.AfterFunc(delay, cancel)
				line += "timeout\n"
			} else {
				line += "no operation to end\n"
			}
		}
		if f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
	StatementHook.Store(&hook)
}
