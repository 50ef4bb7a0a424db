// SPDX-License-Identifier: MPL-2.0

// Command profiled is the provider with a CPU and heap profiler around
// providerserver.Serve, for `make bench PROFILE=1` only (never released):
// with TENANTDB_BENCH_PROFILE_DIR set, each provider process terraform
// starts writes cpu-<pid>.pprof and heap-<pid>.pprof there when terraform
// stops it. Without the variable it is the provider.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

func main() {
	provider.QuietSDKLogs()
	dir := os.Getenv("TENANTDB_BENCH_PROFILE_DIR")
	var cpu *os.File
	if dir != "" {
		var err error
		cpu, err = os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			log.Fatal(err)
		}
	}
	err := providerserver.Serve(context.Background(), provider.New("bench-profiled"), providerserver.ServeOpts{
		Address: "registry.terraform.io/tenantdb/tenantdb",
	})
	if cpu != nil {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		if heap, herr := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid()))); herr == nil {
			runtime.GC() // up-to-date in-use figures; alloc_space counts every allocation regardless
			_ = pprof.WriteHeapProfile(heap)
			_ = heap.Close()
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}
