// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestAddressJoinsHostAndPort: both drivers get the host and port joined
// with net.JoinHostPort, so an IPv6 host (written bare, ::1) is bracketed
// exactly once ([::1]:3306), and host names and IPv4 are unchanged.
func TestAddressJoinsHostAndPort(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"::1":          "[::1]:%d",
		"2001:db8::42": "[2001:db8::42]:%d",
		"127.0.0.1":    "127.0.0.1:%d",
		"db.internal":  "db.internal:%d",
	} {
		my := Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306, TLS: TLSDisable}
		cfg, err := my.MySQLConfig("")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Addr != fmt.Sprintf(want, 3306) || cfg.Net != "tcp" {
			t.Errorf("mysql %q: Net %q Addr %q, want tcp %q", host, cfg.Net, cfg.Addr, fmt.Sprintf(want, 3306))
		}
		pg := Spec{Name: "s", Engine: ddl.EnginePostgres, Host: host, Port: 5432, TLS: TLSDisable}
		pcfg, err := pg.PgxConfig("")
		if err != nil {
			t.Fatal(err)
		}
		network, addr := pgconn.NetworkAddress(pcfg.Host, pcfg.Port)
		if pcfg.Host != host || network != "tcp" || addr != fmt.Sprintf(want, 5432) {
			t.Errorf("postgres %q: Host %q dials %s %q, want tcp %q", host, pcfg.Host, network, addr, fmt.Sprintf(want, 5432))
		}
		if got := pg.Addr(); got != fmt.Sprintf(want, 5432) {
			t.Errorf("Spec.addr() = %q", got)
		}
	}
	// The spec refuses what the provider refuses at plan time, before any dial.
	for _, host := range []string{"[::1]", "db:3306", " db", ""} {
		err := Spec{Name: "s", Engine: ddl.EngineMySQL, Host: host, Port: 3306}.Check()
		if ddl.ReasonOf(err) != ddl.InvalidIdentifier {
			t.Errorf("host %q: %v, want InvalidIdentifier", host, err)
		}
	}
	for _, port := range []int{0, -1, 65536} {
		err := Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db", Port: port}.Check()
		if err == nil || !strings.Contains(err.Error(), "outside 1-65535") {
			t.Errorf("port %d: %v", port, err)
		}
	}
}
