// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// BenchmarkRefresh500 is what a refresh of 500 tenant databases costs the
// provider in one process: 500 Database reads against a real server. The
// snapshot variant is what the provider does; direct is one query each.
func BenchmarkRefresh500(b *testing.B) {
	for _, engine := range engines {
		ts := testserver.SharedKind(b, engine)
		names := make([]ddl.DatabaseName, 500)
		super, err := ts.SuperDB("")
		if err != nil {
			b.Fatal(err)
		}
		for i := range names {
			name := fmt.Sprintf("bench_%d", i)
			names[i], _ = ddl.NewDatabaseName(ddl.Engine(ts.Engine), name)
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
					reg := newRegistry()
					s, err := reg.Server(ctx, benchSpec(b, ts))
					if err != nil {
						b.Fatal(err)
					}
					for _, n := range names {
						if mode == "snapshot" {
							_, err = s.proof.Database(ctx, n)
						} else {
							_, err = s.proof.DatabaseDirect(ctx, n)
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

func benchSpec(b *testing.B, ts *testserver.Server) connect.Spec {
	pw, err := ddl.NewPassword(ts.Admin.Password)
	if err != nil {
		b.Fatal(err)
	}
	return connect.Spec{Name: "bench", Engine: ddl.Engine(ts.Engine), Host: ts.Host, Port: ts.Port,
		Username: ts.Admin.Username, Password: pw, TLS: connect.TLSVerifyFull, CAPEM: ts.CAPEM}
}

// BenchmarkGrantRefreshPG100 is the PostgreSQL part of a refresh that
// MariaDB does not have: a tenant grant's privileges live in its database's
// own catalogs, so reading 100 grants opens 100 connections, ten at a time
// as Terraform's parallelism does. It reports the server's CPU (the
// backends' time, reaped into the postmaster) beside the client's.
func BenchmarkGrantRefreshPG100(b *testing.B) {
	ts := testserver.Shared(b, testserver.EnginePostgres)
	super, err := ts.SuperDB("")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := super.Exec(`DO $$ BEGIN CREATE ROLE bench_grantee LOGIN; EXCEPTION WHEN duplicate_object THEN END $$`); err != nil {
		b.Fatal(err)
	}
	names := make([]ddl.DatabaseName, 100)
	for i := range names {
		name := fmt.Sprintf("bgrant_%d", i)
		names[i], _ = ddl.NewDatabaseName(ddl.EnginePostgres, name)
		_, _ = super.Exec(fmt.Sprintf(`CREATE DATABASE %q OWNER %q`, name, ts.Admin.Username))
	}
	grantee, _ := ddl.NewUsername(ddl.EnginePostgres, "bench_grantee")
	// verified is what the provider does; unverified leaves out the
	// admin-session check (one query per new connection), to measure it.
	for _, verify := range []bool{true, false} {
		name := map[bool]string{true: "verified", false: "unverified"}[verify]
		b.Run(name, func(b *testing.B) {
			session.VerifyTenantSessions = verify
			defer func() { session.VerifyTenantSessions = true }()
			benchGrantRefresh(b, ts, names, grantee)
		})
	}
}

// benchGrantRefresh reads the grant of grantee on each of names, ten at a
// time, in a new registry per iteration (every connection is new).
func benchGrantRefresh(b *testing.B, ts *testserver.Server, names []ddl.DatabaseName, grantee ddl.Username) {
	ctx := context.Background()
	var conns, reads int64
	server0, client0 := childCPU(b, ts.PID()), selfCPU(b)
	for b.Loop() {
		reg := newRegistry()
		s, err := reg.Server(ctx, benchSpec(b, ts))
		if err != nil {
			b.Fatal(err)
		}
		work := make(chan ddl.DatabaseName)
		errs := make(chan error, 10)
		for range 10 {
			go func() {
				var first error
				for n := range work {
					if _, err := s.ReadGrant(ctx, n, grantee); err != nil && first == nil {
						first = err
					}
				}
				errs <- first
			}()
		}
		for _, n := range names {
			work <- n
		}
		close(work)
		for range 10 {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		conns, reads = reg.ConnectionsOpened(), reg.ReadQueries()
		reg.Close()
	}
	b.ReportMetric(float64(conns), "conns/refresh")
	b.ReportMetric(float64(reads), "reads/refresh")
	b.ReportMetric((childCPU(b, ts.PID())-server0).Seconds()*1e3/float64(b.N), "server-ms/refresh")
	b.ReportMetric((selfCPU(b)-client0).Seconds()*1e3/float64(b.N), "client-ms/refresh")
}

// selfCPU is this process's CPU time (user + system).
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// childCPU is the CPU time of pid's reaped children (utime+stime of
// /proc/<pid>/stat's cutime and cstime).
func childCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	cut, _ := strconv.ParseInt(f[13], 10, 64)
	cst, _ := strconv.ParseInt(f[14], 10, 64)
	return time.Duration(cut+cst) * 10 * time.Millisecond // USER_HZ = 100
}

// BenchmarkPoolKeyCABundle is the pool key every resource operation
// computes, with a 111-certificate CA bundle (139 KB): the CA is hashed once
// per process, not per call.
func BenchmarkPoolKeyCABundle(b *testing.B) {
	bundle, err := testserver.CABundle(111, testserver.UnrelatedCAPEM(b), 50)
	if err != nil {
		b.Fatal(err)
	}
	pw, _ := ddl.NewPassword("pw")
	spec := connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "db", Port: 3306, Username: "a", Password: pw,
		TLS: connect.TLSVerifyFull, CAPEM: bundle}
	for b.Loop() {
		_ = spec.PoolKey()
	}
}
