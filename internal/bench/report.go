// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// median of xs (0 when empty).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// sampleAt finds the successful sample of a workload, round and phase.
func (res *Result) sampleAt(work string, round int, phase string) (Sample, bool) {
	for _, s := range res.Samples {
		if s.Workload == work && s.Round == round && s.Phase == phase {
			return s, s.Failed == ""
		}
	}
	return Sample{}, false
}

// Stat is a workload's median over the rounds whose phase succeeded.
type Stat struct {
	Runs                                int
	Wall, CPU, Core, Provider           float64 // seconds
	ProviderMiB                         float64
	Conns, Peak, DDL, Reads, Other      float64
	ServerCPU                           float64 // seconds
	Server, ConnsOK, PeakOK, StmtsOK    bool
	ServerCPUOK                         bool
	WallVsFloor, WallVsData             float64 // median of per-round ratios; 0: none
	CPUVsFloor, CPUVsData               float64
	WallVsShape, CPUVsShape             float64 // against the shape floor (SHAPE=1)
	ProviderCPUVsFloor, ReadsPerResouce float64
	SSHAccepted, SSHProcs, SSHMost      float64 // BASTION=1: medians of the SSH counts
}

// Stats computes a workload's medians and ratios for a phase.
func (res *Result) Stats(work, phase string) Stat {
	var st Stat
	var wall, cpu, core, prov, mib, conns, peak, ddl, reads, other, srvCPU []float64
	var wf, wd, cf, cd, pf, ws, cs []float64
	var sshAccepted, sshProcs, sshMost []float64
	st.ConnsOK, st.PeakOK, st.StmtsOK, st.ServerCPUOK = true, true, true, true
	for round := 1; round <= res.Config.Rounds; round++ {
		s, ok := res.sampleAt(work, round, phase)
		if !ok {
			continue
		}
		st.Runs++
		st.Server = s.Server
		wall = append(wall, s.Wall.Seconds())
		cpu = append(cpu, s.CPU.Seconds())
		core = append(core, s.CoreCPU.Seconds())
		prov = append(prov, s.ProviderCPU.Seconds())
		mib = append(mib, float64(s.ProviderHWM)/(1<<20))
		conns = append(conns, float64(s.Conns))
		peak = append(peak, float64(s.PeakConns))
		ddl = append(ddl, float64(s.Stmts.DDL))
		reads = append(reads, float64(s.Stmts.Reads))
		other = append(other, float64(s.Stmts.Other))
		srvCPU = append(srvCPU, s.ServerCPU.Seconds())
		st.ServerCPUOK = st.ServerCPUOK && s.ServerCPUOK
		sshAccepted = append(sshAccepted, float64(s.SSHAccepted))
		sshProcs = append(sshProcs, float64(s.SSHProcs))
		sshMost = append(sshMost, float64(s.SSHMost))
		st.ConnsOK = st.ConnsOK && s.ConnsOK
		st.PeakOK = st.PeakOK && s.PeakOK
		st.StmtsOK = st.StmtsOK && s.StmtsOK
		if f, ok := res.sampleAt(WorkFloor, round, phase); ok {
			if f.Wall > 0 {
				wf = append(wf, s.Wall.Seconds()/f.Wall.Seconds())
			}
			if f.CPU > 0 {
				cf = append(cf, s.CPU.Seconds()/f.CPU.Seconds())
			}
			if f.ProviderCPU > 0 {
				pf = append(pf, s.ProviderCPU.Seconds()/f.ProviderCPU.Seconds())
			}
		}
		if sh, ok := res.sampleAt(WorkShape, round, phase); ok && sh.Wall > 0 && sh.CPU > 0 {
			ws = append(ws, s.Wall.Seconds()/sh.Wall.Seconds())
			cs = append(cs, s.CPU.Seconds()/sh.CPU.Seconds())
		}
		if d, ok := res.sampleAt(WorkTFData, round, phase); ok {
			if d.Wall > 0 {
				wd = append(wd, s.Wall.Seconds()/d.Wall.Seconds())
			}
			if d.CPU > 0 {
				cd = append(cd, s.CPU.Seconds()/d.CPU.Seconds())
			}
		}
	}
	st.Wall, st.CPU, st.Core, st.Provider = median(wall), median(cpu), median(core), median(prov)
	st.ProviderMiB = median(mib)
	st.Conns, st.Peak, st.DDL, st.Reads, st.Other = median(conns), median(peak), median(ddl), median(reads), median(other)
	st.ServerCPU = median(srvCPU)
	st.WallVsFloor, st.WallVsData, st.CPUVsFloor, st.CPUVsData = median(wf), median(wd), median(cf), median(cd)
	st.ProviderCPUVsFloor = median(pf)
	st.WallVsShape, st.CPUVsShape = median(ws), median(cs)
	st.ReadsPerResouce = st.Reads / float64(Resources(res.Config.Tenants))
	st.SSHAccepted, st.SSHProcs, st.SSHMost = median(sshAccepted), median(sshProcs), median(sshMost)
	return st
}

func secs(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

func ratio(x float64) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", x)
}

func count(x float64, ok, server bool) string {
	if !server {
		return "–"
	}
	if !ok {
		return "?"
	}
	if x == float64(int64(x)) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.1f", x)
}

func mib(x float64) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", x)
}

// Report renders the result as markdown.
func Report(res *Result) string {
	var b strings.Builder
	cfg, env := res.Config, res.Env
	engine := "MariaDB"
	if e, _ := parseEngine(cfg.Engine); e == "postgres" {
		engine = "PostgreSQL"
	}
	fmt.Fprintf(&b, "## %s, N=%d tenants (%d resources per workload), %d rounds\n\n", engine, cfg.Tenants, Resources(cfg.Tenants), cfg.Rounds)
	par := "10 (terraform's default)"
	if cfg.Parallelism > 0 {
		par = fmt.Sprint(cfg.Parallelism)
	}
	fmt.Fprintf(&b, "- %s; %s CPUs (%s), %s memory\n", env.Started.UTC().Format("2006-01-02 15:04 MST"), env.CPUs, env.Model, env.Mem)
	tls := "TLS verify-full"
	if cfg.CACerts > 1 {
		tls = fmt.Sprintf("TLS verify-full, a CA file of %d certificates (CA_CERTS)", cfg.CACerts)
	}
	if cfg.NoCA {
		tls = `TLS; tenantdb and the shape floor with tls = "require" and no CA (NO_CA)`
	}
	fmt.Fprintf(&b, "- terraform %s, %s; server %s (throwaway, local, %s, statement log on)\n", env.Terraform, env.Go, env.Server, tls)
	fmt.Fprintf(&b, "- tenantdb at %s; parallelism %s; order per round: %s\n", env.TenantDB, par, strings.Join(res.Workloads, ", "))
	if env.Peer != "" {
		fmt.Fprintf(&b, "- peer: %s\n", env.Peer)
	}
	b.WriteString("- medians over the rounds whose phase succeeded; ×floor, ×terraform_data (and ×shape) are medians of same-round ratios\n")
	b.WriteString("- CPU: terraform and its provider plugins (rusage); core: terraform's own; provider: the plugins'; " +
		"server CPU: the server's processes (a local server), until the login's sessions are gone, on the same cores; " +
		"conns, peak, statements: the workload's own login, as the server counts and logs them\n\n")

	hasShape := slices.Contains(res.Workloads, WorkShape)
	hasData := slices.Contains(res.Workloads, WorkTFData)
	phases := Phases
	if cfg.Rounds == 0 {
		phases = nil // PROFILE_ONLY: no rounds ran
	}
	for _, ph := range phases {
		fmt.Fprintf(&b, "### %s\n\n", ph.Title)
		shapeHead, shapeRule := "", ""
		if hasShape {
			shapeHead, shapeRule = " wall ×shape | CPU ×shape |", "---:|---:|"
		}
		dataHead, dataRule := "", ""
		if hasData {
			dataHead, dataRule = " ×terraform_data |", "---:|"
		}
		b.WriteString("| workload | wall s | ×floor |" + dataHead + " CPU s | ×floor |" + dataHead + shapeHead +
			" core CPU s | provider CPU s | server CPU s | provider peak MiB | conns opened | peak conns | DDL/DCL | reads | other | reads/resource |\n")
		b.WriteString("|---|---:|---:|" + dataRule + "---:|---:|" + dataRule + shapeRule + "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, w := range res.Workloads {
			st := res.Stats(w, ph.Key)
			label := res.Labels[w]
			if st.Runs == 0 {
				fmt.Fprintf(&b, "| %s | failed | | | | | | | | | | | | | | | |\n", label)
				continue
			}
			if st.Runs < cfg.Rounds {
				label += fmt.Sprintf(" (%d/%d ok)", st.Runs, cfg.Rounds)
			}
			rpr := "–"
			if st.Server && st.StmtsOK {
				rpr = fmt.Sprintf("%.2f", st.ReadsPerResouce)
			}
			shapeCols := ""
			if hasShape {
				shapeCols = fmt.Sprintf(" %s | %s |", ratio(st.WallVsShape), ratio(st.CPUVsShape))
			}
			wallData, cpuData := "", ""
			if hasData {
				wallData, cpuData = " "+ratio(st.WallVsData)+" |", " "+ratio(st.CPUVsData)+" |"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |%s %s | %s |%s%s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				label, secs(st.Wall), ratio(st.WallVsFloor), wallData,
				secs(st.CPU), ratio(st.CPUVsFloor), cpuData, shapeCols, secs(st.Core), secs(st.Provider),
				serverSecs(st.ServerCPU, st.ServerCPUOK, st.Server), mib(st.ProviderMiB),
				count(st.Conns, st.ConnsOK, st.Server), count(st.Peak, st.PeakOK, st.Server),
				count(st.DDL, st.StmtsOK, st.Server), count(st.Reads, st.StmtsOK, st.Server), count(st.Other, st.StmtsOK, st.Server), rpr)
		}
		b.WriteString("\n")
	}

	if slices.Contains(res.Workloads, WorkBastion) && cfg.Rounds > 0 {
		b.WriteString(bastionReport(res))
	}
	if len(res.Failures) > 0 {
		b.WriteString("### Failures\n\n")
		for _, f := range res.Failures {
			fmt.Fprintf(&b, "- %s\n", f)
		}
		b.WriteString("\n")
	}
	if p := res.Profile; p != nil {
		b.WriteString(profileReport(p))
	}

	b.WriteString("<details><summary>Every run</summary>\n\n")
	b.WriteString("| round | workload | phase | wall s | CPU s | core s | provider s | server s | provider MiB | provider procs | conns | peak | DDL | reads | other | status |\n")
	b.WriteString("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range res.Samples {
		status := "ok"
		if s.Failed != "" {
			status = "FAILED"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n",
			s.Round, s.Workload, s.Phase, secs(s.Wall.Seconds()), secs(s.CPU.Seconds()), secs(s.CoreCPU.Seconds()),
			secs(s.ProviderCPU.Seconds()), serverSecs(s.ServerCPU.Seconds(), s.ServerCPUOK, s.Server), mib(float64(s.ProviderHWM)/(1<<20)), s.Providers,
			count(float64(s.Conns), s.ConnsOK, s.Server), count(float64(s.PeakConns), s.PeakOK, s.Server),
			count(float64(s.Stmts.DDL), s.StmtsOK, s.Server), count(float64(s.Stmts.Reads), s.StmtsOK, s.Server),
			count(float64(s.Stmts.Other), s.StmtsOK, s.Server), status)
	}
	b.WriteString("\n</details>\n")
	return b.String()
}

// serverSecs is the server's CPU column: "–" for a workload that does
// not talk to the server, "?" where it could not be read.
func serverSecs(v float64, ok, server bool) string {
	switch {
	case !server:
		return "–"
	case !ok:
		return "?"
	}
	return secs(v)
}

func profileReport(p *ProfileSummary) string {
	var b strings.Builder
	b.WriteString("### Profile of one no-op plan (tenantdb, profiled build)\n\n")
	if p.Err != "" {
		fmt.Fprintf(&b, "Profile failed: %s\n\n", p.Err)
		return b.String()
	}
	s := p.Plan
	fmt.Fprintf(&b, "Wall %ss; CPU %ss = Terraform core (terraform's own process) %ss + provider processes %ss (%d processes). Profiles: %s\n\n",
		secs(s.Wall.Seconds()), secs(s.CPU.Seconds()), secs(s.CoreCPU.Seconds()), secs(s.ProviderCPU.Seconds()), s.Providers, p.Dir)
	for _, v := range []struct {
		title string
		view  ProfileView
	}{{"Provider CPU", p.CPU}, {"Provider allocations (alloc_space)", p.Allocs}} {
		fmt.Fprintf(&b, "%s, total %.2f %s, by group (flat: the sample's leaf function is in the group; cum: any frame is):\n\n", v.title, v.view.Total, v.view.Unit)
		b.WriteString("| group | flat | flat % | cum % |\n|---|---:|---:|---:|\n")
		for _, g := range v.view.Groups {
			if g.Cum == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %.2f %s | %.0f%% | %.0f%% |\n", g.Name, g.Flat, v.view.Unit, pct(g.Flat, v.view.Total), pct(g.Cum, v.view.Total))
		}
		fmt.Fprintf(&b, "\n```\n%s\n```\n\n", v.view.Top)
	}
	return b.String()
}

func pct(x, total float64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * x / total
}

// WriteReport writes the report to cfg.ReportPath, or to
// <cache>/results/bench-<engine>-n<N>-<time>.md, and returns the path.
func WriteReport(res *Result, report string) (string, error) {
	path := res.Config.ReportPath
	if path == "" {
		e, _ := parseEngine(res.Config.Engine)
		name := fmt.Sprintf("bench-%s-n%d-%s.md", map[string]string{"mysql": "mariadb", "postgres": "postgres"}[e],
			res.Config.Tenants, res.Env.Started.Format("20060102-150405"))
		path = filepath.Join(res.Config.CacheDir, "results", name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(report), 0o644)
}
