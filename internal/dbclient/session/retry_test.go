// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestRetryPolicy pins the control flow of retries (the server behaviour
// behind each class is tested against real servers in classify_test.go).
func TestRetryPolicy(t *testing.T) {
	old := RetryBase
	RetryBase = time.Millisecond
	t.Cleanup(func() { RetryBase = old })
	spec := connect.Spec{Name: "unit", Engine: ddl.EngineMySQL, Host: "127.0.0.1", Port: 1}
	lost := driver.ErrBadConn
	readOnly := &mysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --read-only option so it cannot execute this statement"}
	denied := &mysql.MySQLError{Number: 1044, Message: "denied"}
	cases := []struct {
		name       string
		idempotent bool
		errs       []error // returned in turn; then success
		calls      int
		reason     ddl.Reason
		wantErr    bool
	}{
		{"lost connection, idempotent: retried", true, []error{lost, lost}, 3, "", false},
		{"lost connection, claim: returned at once", false, []error{lost}, 1, "", true},
		{"transient, claim: retried (nothing ran)", false, []error{readOnly, readOnly}, 3, "", false},
		{"terminal: never retried", true, []error{denied}, 1, "", true},
		{"budget spent: PrimaryUnavailable", true, []error{readOnly, readOnly, readOnly, readOnly, readOnly, readOnly}, RetryAttempts, ddl.PrimaryUnavailable, true},
	}
	for _, c := range cases {
		calls := 0
		err := RetryIf(context.Background(), spec, c.idempotent, func(context.Context) error {
			calls++
			if calls <= len(c.errs) {
				return c.errs[calls-1]
			}
			return nil
		})
		if (err != nil) != c.wantErr || calls != c.calls || ddl.ReasonOf(err) != c.reason {
			t.Errorf("%s: err=%v calls=%d reason=%q; want err=%v calls=%d reason=%q", c.name, err, calls, ddl.ReasonOf(err), c.wantErr, c.calls, c.reason)
		}
	}
}
