// SPDX-License-Identifier: MPL-2.0

// Command profiled is the provider with a CPU and heap profiler around
// pluginserver.Serve, for `make bench PROFILE=1` only (never released):
// with TENANTDB_BENCH_PROFILE_DIR set, each provider process terraform
// starts writes cpu-<pid>.pprof and heap-<pid>.pprof there when terraform
// stops it, and livepeak-<pid>.pprof (what was live at the live heap's
// peak; read it with -sample_index=inuse_space) while it serves. Without
// the variable it is the provider.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/provider"
)

func main() {
	pluginserver.QuietSDKLogs()
	pluginserver.LimitMemory()
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
		go watchLiveHeap(filepath.Join(dir, fmt.Sprintf("livepeak-%d.pprof", os.Getpid())))
	}
	err := pluginserver.Serve(provider.Address, providerserver.NewProtocol6(provider.New("bench-profiled")()), false)
	if cpu != nil {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		if heap, herr := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid()))); herr == nil {
			// Twice: a heap profile shows the heap as of the GC before the last
			// one, so one GC would still show what was live while serving.
			runtime.GC()
			runtime.GC()
			_ = pprof.WriteHeapProfile(heap)
			_ = heap.Close()
		}
		// Goroutines still alive once Serve returned, grouped by stack: a
		// request's goroutine left behind holds its whole context.
		if g, gerr := os.Create(filepath.Join(dir, fmt.Sprintf("goroutines-%d.txt", os.Getpid()))); gerr == nil {
			_ = pprof.Lookup("goroutine").WriteTo(g, 1)
			_ = g.Close()
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}

// watchLiveHeap writes a heap profile to path each time the live heap (as
// of the last GC) is 4 MiB above its previous peak: the profile then shows
// what was live at the peak, which the profile at exit cannot.
func watchLiveHeap(path string) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	for range time.Tick(100 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if live := sample[0].Value.Uint64(); live > peak+4<<20 {
			peak = live
			if f, err := os.Create(path); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
			if f, err := os.Create(path + ".goroutines.txt"); err == nil {
				fmt.Fprintf(f, "live heap %d\n", live)
				_ = pprof.Lookup("goroutine").WriteTo(f, 1)
				_ = f.Close()
			}
		}
	}
}
