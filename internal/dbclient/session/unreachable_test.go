// SPDX-License-Identifier: MPL-2.0

package session

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestIsUnreachable: what a plan-time check skips with a warning (the
// server not reached, or a name not resolving yet) and what it reports as
// the apply would (the server reached and saying no).
func TestIsUnreachable(t *testing.T) {
	t.Parallel()
	dns := &net.DNSError{Err: "no such host", Name: "db.new.internal", IsNotFound: true}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"unavailable after the retries", &ddl.Error{Reason: ddl.PrimaryUnavailable}, true},
		{"a name that does not resolve", fmt.Errorf("dial: %w", dns), true},
		{"a name that does not resolve, worded", &connect.ConfigError{Kind: "DNS", Msg: "host not found"}, true},
		{"a certificate that does not verify", &connect.ConfigError{Kind: "TLS", Msg: "x509"}, false},
		{"an unsupported version", &ddl.Error{Reason: ddl.UnsupportedServer}, false},
		{"the admin's login rejected", &mysql.MySQLError{Number: 1045}, false},
		{"too many connections", &mysql.MySQLError{Number: 1040}, true},
		{"anything else", errors.New("x"), false},
	} {
		if got := IsUnreachable(c.err); got != c.want {
			t.Errorf("%s: IsUnreachable = %v, want %v", c.name, got, c.want)
		}
	}
}
