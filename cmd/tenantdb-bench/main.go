// SPDX-License-Identifier: MPL-2.0

// Command tenantdb-bench is `make bench` and `make bench-smoke`: the
// provider at scale against the real terraform CLI and a throwaway server,
// beside a do-nothing framework provider, terraform_data and (PEERS=1) the
// peer provider, interleaved per round (internal/bench; BENCHMARKS.md).
//
//	make bench                          # MariaDB, N=500, 5 rounds
//	make bench ENGINE=postgres N=200 ROUNDS=3 PEERS=1 PROFILE=1
//	make bench-smoke                    # N=5, 1 round, no peers: fails on a failed phase or DDL in a no-op
//
// Environment (flags override): N, ENGINE (mariadb, postgres), ROUNDS,
// PEERS (1: include the peer), NO_TFDATA (1: leave terraform_data out),
// SHAPE (1: add the shape floor, tenantdb's schemas with no code), NO_CA (1:
// tenantdb and the shape floor with tls = "require" and no CA), CA_CERTS (K:
// the CA file is a bundle of K certificates holding the server's CA, as a
// cloud provider's CA file for all its regions), PROFILE (1: profile one no-op plan),
// PROFILE_ONLY (1: the profile without the rounds),
// PARALLELISM (terraform -parallelism), BASTION (1: add tenantdb through
// an SSH bastion, a real sshd the bench starts), OUT (report file),
// TENANTDB_BENCH_CACHE (peer binaries and reports; default
// ~/.cache/tenantdb/bench), KEEP (1: keep the temp dir). Exit status: 0
// every phase did what it should, 1 a phase failed, 2 the bench could not
// run, 130 interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/bench"
)

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s=%s is not a number\n", name, v)
			os.Exit(2)
		}
		return n
	}
	return def
}

func envBool(name string) bool {
	switch os.Getenv(name) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func main() {
	var cfg bench.Config
	flag.IntVar(&cfg.Tenants, "n", envInt("N", 500), "tenants (each: database, owner, grant); default $N or 500")
	flag.StringVar(&cfg.Engine, "engine", os.Getenv("ENGINE"), "mariadb (default) or postgres; default $ENGINE")
	flag.IntVar(&cfg.Rounds, "rounds", envInt("ROUNDS", 5), "rounds; default $ROUNDS or 5")
	flag.BoolVar(&cfg.Peers, "peers", envBool("PEERS"), "include the peer provider; default $PEERS")
	flag.BoolVar(&cfg.Shape, "shape", envBool("SHAPE"), "add the shape floor (cmd/benchshape: tenantdb's schemas, no code); default $SHAPE")
	flag.StringVar(&cfg.GrantRefresh, "grant-refresh", os.Getenv("GRANT_REFRESH"), "tenantdb's postgres_grant_refresh (\"database\": the shallow refresh); default $GRANT_REFRESH")
	flag.BoolVar(&cfg.NoCA, "no-ca", envBool("NO_CA"), "tenantdb and the shape floor connect with tls = \"require\" and no CA; default $NO_CA")
	flag.IntVar(&cfg.CACerts, "ca-certs", envInt("CA_CERTS", 1), "certificates in the CA file the provider's ca_certs reads (the server's CA and K-1 RSA fillers); default $CA_CERTS or 1")
	flag.BoolVar(&cfg.NoTFData, "no-tfdata", envBool("NO_TFDATA"), "leave terraform_data out (tenantdb and the floor only); default $NO_TFDATA")
	flag.BoolVar(&cfg.Profile, "profile", envBool("PROFILE"), "profile one no-op plan of tenantdb; default $PROFILE")
	flag.BoolVar(&cfg.ProfileOnly, "profile-only", envBool("PROFILE_ONLY"), "no rounds, only the profile (memory and CPU of one no-op plan); default $PROFILE_ONLY")
	flag.BoolVar(&cfg.Bastion, "bastion", envBool("BASTION"), "add tenantdb through an SSH bastion (a real sshd the bench starts); default $BASTION")
	flag.IntVar(&cfg.Parallelism, "parallelism", envInt("PARALLELISM", 0), "terraform -parallelism (0: terraform's default)")
	flag.StringVar(&cfg.ReportPath, "out", os.Getenv("OUT"), "report file (default: the cache's results/ dir)")
	flag.BoolVar(&cfg.Keep, "keep", envBool("KEEP"), "keep the temp dir (terraform logs, profiles)")
	flag.Parse()

	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	interrupted := false
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "\n%v: stopping, then cleaning up (again to quit at once)\n", sig)
		interrupted = true
		cancel()
		<-sigs
		os.Exit(130)
	}()

	res, err := bench.Run(ctx, cfg)
	// PROFILE_ONLY runs no rounds: its report is the profile alone.
	if res != nil && (len(res.Samples) > 0 || res.Profile != nil) {
		report := bench.Report(res)
		fmt.Print(report)
		if path, werr := bench.WriteReport(res, report); werr != nil {
			fmt.Fprintf(os.Stderr, "writing the report: %v\n", werr)
		} else {
			fmt.Fprintf(os.Stderr, "bench: report written to %s\n", path)
		}
	}
	switch {
	case interrupted:
		os.Exit(130)
	case err != nil:
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(2)
	case len(res.Failures) > 0:
		fmt.Fprintf(os.Stderr, "bench: %d phase(s) failed:\n", len(res.Failures))
		for _, f := range res.Failures {
			fmt.Fprintf(os.Stderr, "  %s\n", f)
		}
		os.Exit(1)
	}
}
