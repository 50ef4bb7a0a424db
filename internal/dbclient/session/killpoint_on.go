// SPDX-License-Identifier: MPL-2.0

//go:build killpoints

package session

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Kill points for the Terraform kill-point suite (make test-faults). Only
// a provider binary built with -tags killpoints has this file; the one
// users run has killpoint_off.go. With TENANTDB_KILLPOINT_FILE set, every
// statement that succeeded is appended to that file (its redacted text),
// and after the TENANTDB_KILLPOINT_AFTER-th the provider stops dead, as if
// its host vanished: the suite then SIGKILLs terraform and the provider at
// exactly that statement boundary. TENANTDB_KILLPOINT_AFTER=0 only counts.
var killpoint struct {
	sync.Mutex
	n int
}

func afterStatement(st ddl.Statement) {
	statementFinished(st)
	file := os.Getenv("TENANTDB_KILLPOINT_FILE")
	if file == "" {
		return
	}
	after, _ := strconv.Atoi(os.Getenv("TENANTDB_KILLPOINT_AFTER"))
	killpoint.Lock()
	killpoint.n++
	line := fmt.Sprintf("%d %s\n", killpoint.n, st)
	if killpoint.n == after {
		line += "stopped\n"
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, _ = f.WriteString(line)
		_ = f.Close()
	}
	if killpoint.n == after {
		select {} // keep the lock: every other statement stops here too
	}
	killpoint.Unlock()
}
