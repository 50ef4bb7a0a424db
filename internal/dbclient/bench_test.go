// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// BenchmarkRefresh500 is what a refresh of 500 tenant databases costs the
// provider in one process: 500 Database reads against a real server. The
// snapshot variant is what the provider does; direct is one query each.
func BenchmarkRefresh500(b *testing.B) {
	for _, engine := range engines {
		ts := testserver.Shared(b, engine)
		names := make([]ddl.DatabaseName, 500)
		super, err := ts.SuperDB("")
		if err != nil {
			b.Fatal(err)
		}
		for i := range names {
			name := fmt.Sprintf("bench_%d", i)
			names[i], _ = ddl.NewDatabaseName(ddl.Engine(engine), name)
			q := fmt.Sprintf("CREATE DATABASE IF NOT EXISTS `%s`", name)
			if engine == testserver.EnginePostgres {
				q = fmt.Sprintf(`CREATE DATABASE %q`, name)
			}
			if _, err := super.Exec(q); err != nil && engine != testserver.EnginePostgres {
				b.Fatal(err)
			}
		}
		for _, mode := range []string{"snapshot", "direct"} {
			b.Run(engine+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				var queries, conns int64
				for b.Loop() {
					reg := NewRegistry()
					s, err := reg.Server(ctx, benchSpec(b, ts))
					if err != nil {
						b.Fatal(err)
					}
					for _, n := range names {
						if mode == "snapshot" {
							_, err = s.Database(ctx, n)
						} else {
							_, err = s.databaseDirect(ctx, n)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					queries, conns = reg.ReadQueries(), reg.ConnectionsOpened()
					reg.Close()
				}
				b.ReportMetric(float64(queries), "queries/refresh")
				b.ReportMetric(float64(conns), "conns/refresh")
			})
		}
	}
}

func benchSpec(b *testing.B, ts *testserver.Server) Spec {
	pw, err := ddl.NewPassword(ts.Admin.Password)
	if err != nil {
		b.Fatal(err)
	}
	return Spec{Name: "bench", Engine: ddl.Engine(ts.Engine), Host: ts.Host, Port: ts.Port,
		Username: ts.Admin.Username, Password: pw, TLS: TLSVerifyFull, CAPEM: ts.CAPEM}
}
