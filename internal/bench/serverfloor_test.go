// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// BenchmarkServerDDLFloor measures what the server alone spends on the
// statements every tenant needs, with no Terraform and no provider: the
// bench's server (same settings, statement log on), the bench's admin
// login, TENANTDB_FLOOR_N tenants (default 500) over 10 workers (Terraform's
// default parallelism). Create: the database (from template0), its owner
// login, the owner made the database's owner, PUBLIC's rights revoked, and
// SELECT for bench_reader on the database's tables now and later (on
// PostgreSQL through a connection into the tenant database, as every
// provider must). Destroy: drop the database and the owner.
//
// It is the part of a provider's create and destroy that no provider code
// can remove; the shape floor (make bench SHAPE=1) is the part Terraform
// and the schemas cost. On a 2-core machine the two compete for the same
// cores, so a provider's create is about their sum (BENCHMARKS.md).
//
//	TENANTDB_FLOOR_ENGINE=postgres go test ./internal/bench -run '^$' -bench ServerDDLFloor -benchtime 1x
func BenchmarkServerDDLFloor(b *testing.B) {
	engine := os.Getenv("TENANTDB_FLOOR_ENGINE")
	if engine == "" {
		engine = testserver.EnginePostgres
	}
	n := 500
	if v, err := strconv.Atoi(os.Getenv("TENANTDB_FLOOR_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	s, err := startServer(ctx, engine)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.stop() }()
	admin, err := s.srv.Open(s.srv.Admin, "")
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(10)
	admin.SetMaxIdleConns(10)

	var created, destroyed time.Duration
	for round := 0; round < b.N; round++ {
		prefix := fmt.Sprintf("floor%d_", round)
		start := time.Now()
		if err := forTenants(n, func(i int) error { return s.floorCreate(ctx, admin, prefix, i) }); err != nil {
			b.Fatal(err)
		}
		c := time.Since(start)
		start = time.Now()
		if err := forTenants(n, func(i int) error { return s.floorDestroy(ctx, admin, prefix, i) }); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		created, destroyed = created+c, destroyed+d
		b.Logf("%s, %d tenants, 10 workers: create %.2f s, destroy %.2f s", s.srv.Flavor, n, c.Seconds(), d.Seconds())
	}
	b.ReportMetric(created.Seconds()/float64(b.N), "create-s")
	b.ReportMetric(destroyed.Seconds()/float64(b.N), "destroy-s")
}

// forTenants runs fn for tenants 0..n-1 on 10 workers; the first error wins.
func forTenants(n int, fn func(i int) error) error {
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for w := 0; w < 10; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return first
}

func execAll(ctx context.Context, db *sql.DB, stmts ...string) error {
	for _, st := range stmts {
		if _, err := db.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}

func (s *benchServer) floorCreate(ctx context.Context, admin *sql.DB, prefix string, i int) error {
	db, owner := fmt.Sprintf("%sdb%d", prefix, i), fmt.Sprintf("%so%d", prefix, i)
	if s.engine == testserver.EngineMySQL {
		return execAll(ctx, admin,
			"CREATE DATABASE `"+db+"`",
			"CREATE USER '"+owner+"'@'%' IDENTIFIED BY 'Floor-pw-1'",
			"GRANT ALL PRIVILEGES ON `"+db+"`.* TO '"+owner+"'@'%'",
			"GRANT SELECT ON `"+db+"`.* TO '"+readerLogin+"'@'%'")
	}
	if err := execAll(ctx, admin,
		`CREATE DATABASE "`+db+`" TEMPLATE template0`,
		`CREATE ROLE "`+owner+`" LOGIN PASSWORD 'Floor-pw-1'`,
		`GRANT "`+owner+`" TO CURRENT_USER`,
		`ALTER DATABASE "`+db+`" OWNER TO "`+owner+`"`,
		`REVOKE ALL ON DATABASE "`+db+`" FROM PUBLIC`,
		`GRANT CONNECT ON DATABASE "`+db+`" TO `+readerLogin); err != nil {
		return err
	}
	tenant, err := s.srv.Open(s.srv.Admin, db)
	if err != nil {
		return err
	}
	defer tenant.Close()
	return execAll(ctx, tenant,
		`GRANT USAGE ON SCHEMA public TO `+readerLogin,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO `+readerLogin,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "`+owner+`" IN SCHEMA public GRANT SELECT ON TABLES TO `+readerLogin)
}

func (s *benchServer) floorDestroy(ctx context.Context, admin *sql.DB, prefix string, i int) error {
	db, owner := fmt.Sprintf("%sdb%d", prefix, i), fmt.Sprintf("%so%d", prefix, i)
	if s.engine == testserver.EngineMySQL {
		return execAll(ctx, admin, "DROP DATABASE `"+db+"`", "DROP USER '"+owner+"'@'%'",
			"REVOKE ALL PRIVILEGES ON `"+db+"`.* FROM '"+readerLogin+"'@'%'")
	}
	return execAll(ctx, admin, `DROP DATABASE "`+db+`"`, `DROP ROLE "`+owner+`"`)
}
