// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ProfileEnv names the directory where the profiled provider
// (cmd/tenantdb-bench/profiled) writes cpu-<pid>.pprof and heap-<pid>.pprof.
const ProfileEnv = "TENANTDB_BENCH_PROFILE_DIR"

// ProfileSummary is the CPU and heap profile of one no-op plan of tenantdb.
type ProfileSummary struct {
	Plan   Sample // the profiled plan as measured (profiling adds a little)
	Dir    string
	Files  []string
	Err    string
	CPU    ProfileView
	Allocs ProfileView // alloc_space
}

// ProfileView is one sample type of the merged profiles.
type ProfileView struct {
	Unit   string // "s" or "MB"
	Total  float64
	Groups []ProfileGroup
	Top    string // go tool pprof -top
}

// ProfileGroup is the share of a group of packages: Flat where the sample's
// leaf is in the group, Cum where any frame of the stack is.
type ProfileGroup struct {
	Name      string
	Flat, Cum float64
}

// profile applies tenantdb's configuration with the normal build, runs a
// no-op plan with the profiled build, and destroys.
func (r *runner) profile(w *workload) *ProfileSummary {
	sum := &ProfileSummary{Dir: filepath.Join(r.tmp, "profile")}
	r.logf("profile: create, then a no-op plan with the profiled provider (%s)", sum.Dir)
	if err := os.MkdirAll(sum.Dir, 0o755); err != nil {
		sum.Err = err.Error()
		return sum
	}
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(w.config(0)), 0o644); err != nil {
		sum.Err = err.Error()
		return sum
	}
	create := r.phase(w, 0, phaseOf("create"), r.cliConfig, nil)
	if create.Failed == "" {
		sum.Plan = r.phase(w, 0, phaseOf("plan"), r.profileCLIConfig, []string{ProfileEnv + "=" + sum.Dir})
		if sum.Plan.Failed != "" {
			sum.Err = "the profiled plan failed: " + sum.Plan.Failed
		}
	} else {
		sum.Err = "create failed: " + create.Failed
	}
	if d := r.phase(w, 0, phaseOf("destroy"), r.cliConfig, nil); d.Failed != "" {
		r.res.Failures = append(r.res.Failures, "profile destroy: "+d.Failed)
	}
	if sum.Err != "" {
		r.res.Failures = append(r.res.Failures, "profile: "+sum.Err)
		return sum
	}
	cpu, _ := filepath.Glob(filepath.Join(sum.Dir, "cpu-*.pprof"))
	heap, _ := filepath.Glob(filepath.Join(sum.Dir, "heap-*.pprof"))
	sum.Files = append(cpu, heap...)
	if len(cpu) == 0 || len(heap) == 0 {
		sum.Err = "the profiled provider wrote no profile (did terraform stop it before it could write?)"
		r.res.Failures = append(r.res.Failures, "profile: "+sum.Err)
		return sum
	}
	var err error
	if sum.CPU, err = analyze(r.ctx, cpu, "", "s"); err != nil {
		sum.Err = err.Error()
	}
	if sum.Allocs, err = analyze(r.ctx, heap, "alloc_space", "MB"); err != nil {
		sum.Err = err.Error()
	}
	return sum
}

// Groups, matched by function-name prefix in order.
var profileGroups = []struct {
	name     string
	prefixes []string
}{
	// releasingServer sits in every RPC's stack; counting it as our code
	// would make "our code, cumulative" every request. Its own frames
	// (flat) are what it costs.
	{"request wrapper (pluginserver.Serve, releasingServer, requestContext)", []string{
		pluginserverPkg + "releasingServer.", pluginserverPkg + "(*releasingServer).", pluginserverPkg + "unary[",
		pluginserverPkg + "(*requestContext).", pluginserverPkg + "newRequestContext", pluginserverPkg + "Serve"}},
	{"our code (github.com/tenantdb/...)", []string{"github.com/tenantdb/"}},
	{"terraform-plugin-framework", []string{"github.com/hashicorp/terraform-plugin-framework"}},
	{"plugin protocol (terraform-plugin-go, go-plugin, gRPC, protobuf, msgpack)", []string{
		"github.com/hashicorp/terraform-plugin-go", "github.com/hashicorp/go-plugin", "google.golang.org/grpc",
		"google.golang.org/protobuf", "github.com/vmihailenco/", "golang.org/x/net/"}},
	{"logging (terraform-plugin-log, hclog)", []string{"github.com/hashicorp/terraform-plugin-log", "github.com/hashicorp/go-hclog"}},
	{"database drivers (database/sql, pgx, go-sql-driver)", []string{"database/sql", "github.com/jackc/", "github.com/go-sql-driver/"}},
	{"crypto and TLS", []string{"crypto/", "golang.org/x/crypto/", "vendor/golang.org/x/crypto/"}},
	{"Go runtime (GC, scheduler, memory, syscalls)", []string{"runtime.", "runtime/", "internal/runtime/", "syscall.", "internal/poll.", "internal/syscall/"}},
}

const otherGroup = "other (standard library and other modules)"

const pluginserverPkg = "github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver."

func groupOf(fn string) string {
	for _, g := range profileGroups {
		for _, p := range g.prefixes {
			if strings.HasPrefix(fn, p) {
				return g.name
			}
		}
	}
	return otherGroup
}

// analyze merges the profiles with go tool pprof and groups their samples.
func analyze(ctx context.Context, files []string, sampleIndex, unit string) (ProfileView, error) {
	v := ProfileView{Unit: unit}
	args := []string{"tool", "pprof"}
	if sampleIndex != "" {
		args = append(args, "-sample_index="+sampleIndex)
	}
	top, err := exec.CommandContext(ctx, "go", append(append(args, "-top", "-nodecount=20"), files...)...).Output()
	if err != nil {
		return v, fmt.Errorf("go tool pprof -top: %v", err)
	}
	v.Top = trimTop(string(top))
	traces, err := exec.CommandContext(ctx, "go", append(append(args, "-traces"), files...)...).Output()
	if err != nil {
		return v, fmt.Errorf("go tool pprof -traces: %v", err)
	}
	flat, cum, total := groupTraces(string(traces), unit)
	v.Total = total
	for _, g := range profileGroups {
		v.Groups = append(v.Groups, ProfileGroup{Name: g.name, Flat: flat[g.name], Cum: cum[g.name]})
	}
	v.Groups = append(v.Groups, ProfileGroup{Name: otherGroup, Flat: flat[otherGroup], Cum: cum[otherGroup]})
	sort.SliceStable(v.Groups, func(i, j int) bool { return v.Groups[i].Flat > v.Groups[j].Flat })
	return v, nil
}

// trimTop keeps pprof's table (from the "flat  flat%" header on).
func trimTop(s string) string {
	if i := strings.Index(s, "      flat  flat%"); i >= 0 {
		// keep the "Showing nodes ..." line above the header
		if j := strings.LastIndex(s[:i], "Showing"); j >= 0 {
			return strings.TrimRight(s[j:], "\n")
		}
		return strings.TrimRight(s[i:], "\n")
	}
	return strings.TrimRight(s, "\n")
}

// groupTraces reads `go tool pprof -traces`: blocks separated by
// "-----------+---..." lines, each starting with the sample's value and
// leaf function, then one caller per line. Label lines ("bytes:...") are
// skipped.
func groupTraces(text, unit string) (flat, cum map[string]float64, total float64) {
	flat, cum = map[string]float64{}, map[string]float64{}
	var value float64
	var frames []string
	flush := func() {
		if len(frames) > 0 {
			flat[groupOf(frames[0])] += value
			seen := map[string]bool{}
			for _, f := range frames {
				g := groupOf(f)
				if !seen[g] {
					seen[g] = true
					cum[g] += value
				}
			}
			total += value
		}
		frames, value = nil, 0
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	started := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			flush()
			started = true
			continue
		}
		if !started || strings.TrimSpace(line) == "" {
			continue
		}
		// "<value> <function>" on the first line of a block; "<spaces><function>" after.
		if strings.HasPrefix(strings.TrimSpace(line), "bytes:") || strings.Contains(line, "|") {
			continue
		}
		fields := strings.Fields(line)
		if len(frames) == 0 && value == 0 && len(fields) >= 2 {
			if v, ok := parseQuantity(fields[0], unit); ok {
				value = v
				frames = append(frames, fields[1])
				continue
			}
		}
		if len(fields) >= 1 {
			frames = append(frames, fields[0])
		}
	}
	flush()
	return flat, cum, total
}

// parseQuantity reads pprof values: durations (10ms, 1.20s, 500us, 3ns,
// 1min) into seconds, sizes (512kB, 1.50MB, 2GB, 100B) into MB.
func parseQuantity(s, unit string) (float64, bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	scale := map[string]float64{}
	if unit == "s" {
		scale = map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "hrs": 3600}
	} else {
		scale = map[string]float64{"B": 1.0 / (1 << 20), "kB": 1.0 / 1024, "KB": 1.0 / 1024, "MB": 1, "GB": 1024, "TB": 1 << 20}
	}
	f, ok := scale[s[i:]]
	if !ok {
		return 0, false
	}
	return n * f, true
}
