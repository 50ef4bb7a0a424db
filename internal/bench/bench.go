// SPDX-License-Identifier: MPL-2.0

// Package bench is `make bench` (cmd/tenantdb-bench): it measures the
// provider at scale against the real terraform CLI and a throwaway server,
// only ever as same-run ratios (DESIGN.md, "Scale").
//
// Each round runs four workloads one after the other, each through four
// phases (create, no-op plan, no-op apply, destroy) in its own working
// directory:
//
//	A tenantdb        the provider built from this checkout: one
//	                  tenantdb_db_server, then per tenant a database
//	                  (deletion_policy = "delete"), an owner (write-only
//	                  password) and a grant to a login that already exists
//	B floor           cmd/benchfloor: the same graph in a
//	                  terraform-plugin-framework provider that does nothing
//	C terraform_data  the same graph in terraform_data (no plugin at all)
//	D peer            with PEERS=1: petoju/mysql (MariaDB) or
//	                  cyrilgdn/postgresql (PostgreSQL) on the equivalent
//	                  workload, from binaries in the bench cache
//
// Per phase it records wall time; CPU time of terraform and every process
// it waited for (the wait's rusage), split into terraform's own (Terraform
// core) and its children's (the provider plugins) from /proc/<pid>/stat
// read between terraform's exit and its reap; the provider processes' peak
// RSS (VmHWM, polled); and, for the workloads that talk to the server, the
// connections the workload's login opened (MariaDB USER_STATISTICS,
// PostgreSQL log_connections), its peak concurrent sessions (polled), and
// its statements by kind from the server's statement log
// (internal/testserver). The report gives medians over rounds and each
// workload's per-round ratio to the floor and to terraform_data (median of
// the ratios).
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// Config is what `make bench` passes.
type Config struct {
	Tenants  int    // N (default 500)
	Engine   string // "mariadb" (default) or "postgres"
	Rounds   int    // default 5
	Peers    bool   // include the peer provider (binaries in CacheDir)
	NoTFData bool   // leave terraform_data out (growth runs: tenantdb and the floor only)
	Shape    bool   // add the shape floor: tenantdb's schemas, no code (cmd/benchshape)
	NoCA     bool   // tenantdb and the shape floor use tls = "require" without a CA
	// GrantRefresh is tenantdb's postgres_grant_refresh ("database": the
	// shallow PostgreSQL refresh; "" the default).
	GrantRefresh string
	CACerts      int  // certificates in the CA file (the server's CA and CACerts-1 fillers); 0 or 1: the CA alone
	Profile      bool // also profile one no-op plan of tenantdb (CPU and heap)
	ProfileOnly  bool // no rounds: only the profile (implies Profile)
	Parallelism  int  // terraform -parallelism; 0: terraform's default (10)
	// Bastion adds tenantdb through an SSH bastion (BASTION=1): the same
	// workload right after the direct one, reaching the server through a
	// real OpenSSH server the bench starts (testserver.LaunchSSHD).
	Bastion    bool
	ReportPath string // where the markdown report goes ("": CacheDir/results/...)
	RepoRoot   string // "": found from the working directory
	CacheDir   string // "": $TENANTDB_BENCH_CACHE or ~/.cache/tenantdb/bench
	Keep       bool   // keep the temp dir (working dirs, terraform logs, profiles)
	Out        io.Writer
	Log        io.Writer // progress lines
}

// Phase is one terraform command of a workload's cycle.
type Phase struct {
	Key   string
	Title string
}

// Phases, in the order each workload runs them.
var Phases = []Phase{
	// A plan of every create, on an empty state: what a pull request's
	// plan costs (tenantdb reads what the creates would meet: issue 57).
	{"planc", "plan of creates"},
	{"create", "create (apply)"},
	{"plan", "no-op plan"},
	{"apply", "no-op apply"},
	{"destroy", "destroy"},
}

// Sample is one phase of one workload in one round.
type Sample struct {
	Workload string
	Round    int
	Phase    string

	Wall        time.Duration
	CPU         time.Duration // terraform and every child it waited for (rusage)
	CoreCPU     time.Duration // terraform's own
	ProviderCPU time.Duration // terraform's waited-for children: the provider plugins
	ProviderHWM uint64        // largest peak RSS of a provider process (polled)
	TFHWM       uint64        // terraform's peak RSS (polled)
	Providers   int           // provider processes seen

	Server    bool // the workload talks to the server (the counts below mean something)
	Conns     int  // connections the login opened
	ConnsOK   bool
	PeakConns int // peak concurrent sessions of the login (polled)
	PeakOK    bool
	Stmts     StatementCounts
	StmtsOK   bool
	// ServerCPU: the server's CPU in the phase (a local server: its
	// processes, exited backends included), until the login's sessions
	// are gone; it shares the machine's cores with terraform.
	ServerCPU   time.Duration
	ServerCPUOK bool

	// Through the bastion: the SSH connections the bastion accepted (its
	// log), the provider processes seen with one open, the connections
	// they opened in all and the most one process opened (polled).
	SSH                          bool
	SSHAccepted                  int
	SSHProcs, SSHOpened, SSHMost int

	Failed string // why the phase failed; "" when it did what it should
}

// Result is a whole run.
type Result struct {
	Config    Config
	Env       Environment
	Workloads []string // in run order
	Labels    map[string]string
	Samples   []Sample
	Profile   *ProfileSummary
	Failures  []string
}

// Environment describes the machine and versions for the report.
type Environment struct {
	Started          time.Time
	CPUs, Mem, Model string
	Go, Terraform    string
	Server           string
	TenantDB         string // git revision of the checkout
	Peer             string
}

type workload struct {
	key              string
	label            string
	dir              string
	login            string // server login to count ("" none)
	prefix           string // name prefix of what it creates ("" none)
	config           func(round int) string
	env              []string
	strict           bool             // a no-op phase that runs DDL is a failure (tenantdb)
	noServerResource bool             // the peers have no resource for the server: 3N resources, not 3N+1
	sshd             *testserver.SSHD // the bastion the workload goes through (nil: direct)
}

func (w *workload) resources(n int) int {
	if w.noServerResource {
		return 3 * n
	}
	return Resources(n)
}

// Run runs the bench and returns the result; the report is written by
// the caller (Report, WriteReport). An error is a bench that could not
// run; failed phases are in Result.Failures.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if !supported {
		return nil, errors.New("the bench reads /proc: it runs on Linux only")
	}
	if cfg.Tenants <= 0 {
		cfg.Tenants = 500
	}
	if cfg.Rounds <= 0 {
		cfg.Rounds = 5
	}
	if cfg.ProfileOnly {
		cfg.Profile, cfg.Rounds = true, 0
	}
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	engine, err := parseEngine(cfg.Engine)
	if err != nil {
		return nil, err
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = DefaultCacheDir()
	}
	if cfg.RepoRoot == "" {
		if cfg.RepoRoot, err = findRepoRoot(); err != nil {
			return nil, err
		}
	}
	tfVersion, err := terraformVersion(ctx)
	if err != nil {
		return nil, err
	}
	var peerBin, peerLabel string
	if cfg.Peers {
		if peerBin, peerLabel, err = findPeer(cfg.CacheDir, engine); err != nil {
			return nil, err
		}
	}

	tmp, err := os.MkdirTemp("", "tenantdb-bench-")
	if err != nil {
		return nil, err
	}
	if cfg.Keep {
		fmt.Fprintf(cfg.Log, "bench: keeping %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	r := &runner{cfg: cfg, ctx: ctx, tmp: tmp, engine: engine}

	bins := map[string]string{}
	r.logf("building the provider and the floor provider")
	for _, b := range []struct{ key, name, pkg string }{
		{"tenantdb", "terraform-provider-tenantdb", "."},
		{"floor", "terraform-provider-tenantdbfloor", "./cmd/benchfloor"},
		{"shape", "terraform-provider-tenantdbshape", "./cmd/benchshape"},
	} {
		if b.key == "shape" && !cfg.Shape {
			continue
		}
		dir := filepath.Join(tmp, "bin", b.key)
		if err := goBuild(ctx, cfg.RepoRoot, filepath.Join(dir, b.name), b.pkg, true); err != nil {
			return nil, err
		}
		bins[b.key] = dir
	}
	if cfg.Profile {
		dir := filepath.Join(tmp, "bin", "profiled")
		if err := goBuild(ctx, cfg.RepoRoot, filepath.Join(dir, "terraform-provider-tenantdb"), "./cmd/tenantdb-bench/profiled", false); err != nil {
			return nil, err
		}
		bins["profiled"] = dir
	}
	overrides := map[string]string{addrTenantDB: bins["tenantdb"], addrFloor: bins["floor"]}
	if cfg.Shape {
		overrides[addrShape] = bins["shape"]
	}
	if peerBin != "" {
		addr := addrMySQL
		if engine == testserver.EnginePostgres {
			addr = addrPostgres
		}
		overrides[addr] = filepath.Dir(peerBin)
	}
	if r.cliConfig, err = writeCLIConfig(filepath.Join(tmp, "terraform.rc"), overrides); err != nil {
		return nil, err
	}
	if cfg.Profile {
		overrides[addrTenantDB] = bins["profiled"]
		if r.profileCLIConfig, err = writeCLIConfig(filepath.Join(tmp, "terraform-profiled.rc"), overrides); err != nil {
			return nil, err
		}
	}

	r.logf("starting a throwaway %s server", engine)
	srv, err := startServer(ctx, engine)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := srv.stop(); err != nil {
			r.logf("stopping the server: %v", err)
		}
	}()
	r.srv = srv
	var sshd *testserver.SSHD
	if cfg.Bastion {
		r.logf("starting an OpenSSH bastion")
		dir := filepath.Join(tmp, "sshd")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if sshd, err = testserver.LaunchSSHD(dir); err != nil {
			return nil, err
		}
		defer func() {
			if err := sshd.Stop(); err != nil {
				r.logf("stopping the bastion: %v", err)
			}
		}()
	}
	cpus, mem, model := machine()
	res := &Result{Config: cfg, Labels: map[string]string{}, Env: Environment{
		Started: time.Now(), CPUs: cpus, Mem: mem, Model: model,
		Go: runtime.Version(), Terraform: tfVersion, Server: srv.srv.Version(),
		TenantDB: gitRevision(cfg.RepoRoot), Peer: peerLabel,
	}}
	r.res = res

	target := Target{Engine: engine, Host: srv.srv.Host, Port: srv.srv.Port, Admin: srv.srv.Admin.Username,
		TLS: srv.srv.TLSMode(), HasCA: srv.srv.CAPEM != ""}
	// tenantdb's (and the shape floor's) target: with NO_CA, tls =
	// "require" and no ca_certs (before the CA moved to the provider, this
	// showed what the CA repeated in every tenant resource's state cost).
	tdTarget := target
	if cfg.NoCA {
		tdTarget.TLS, tdTarget.HasCA = "require", false
	}
	tdTarget.GrantRefresh = cfg.GrantRefresh
	ownerPassword := "Ow-" + randomHex(12)
	n := cfg.Tenants
	works := []*workload{
		{key: WorkTenantDB, label: "tenantdb", login: srv.srv.Admin.Username, prefix: "tdb", strict: true,
			config: func(round int) string { return TenantDBConfig(tdTarget, n, round) },
			env:    []string{"TENANTDB_ADMIN_PASSWORD_MAIN=" + srv.srv.Admin.Password, "TF_VAR_owner_password=" + ownerPassword}},
		{key: WorkFloor, label: "floor (do-nothing framework provider)",
			config: func(round int) string { return FloorConfig(n, round) }},
	}
	if sshd != nil {
		bt := tdTarget
		bt.Bastion = &Bastion{Port: sshd.Port, User: sshd.User}
		// Right after the direct workload: the two run under the most
		// alike conditions.
		works = slices.Insert(works, 1, &workload{key: WorkBastion, label: "tenantdb through an SSH bastion", login: srv.srv.Admin.Username,
			prefix: "tdbb", strict: true, sshd: sshd,
			config: func(round int) string { return TenantDBBastionConfig(bt, n, round) },
			env:    works[0].env})
	}
	if cfg.Shape {
		works = append(works, &workload{key: WorkShape, label: "shape floor (tenantdb's schemas, no code)",
			config: func(round int) string { return ShapeConfig(tdTarget, n, round) },
			env:    []string{"TF_VAR_owner_password=" + ownerPassword}})
	}
	if !cfg.NoTFData {
		works = append(works, &workload{key: WorkTFData, label: "terraform_data",
			config: func(round int) string { return TerraformDataConfig(n, round) }})
	}
	if peerBin != "" {
		p := &workload{key: WorkPeer, label: peerLabel, login: peerLogin, prefix: "peer", noServerResource: true,
			env: []string{"TF_VAR_owner_password=" + ownerPassword}}
		if engine == testserver.EngineMySQL {
			p.config = func(round int) string { return MySQLPeerConfig(target, n, round) }
			p.env = append(p.env, "MYSQL_PASSWORD="+srv.peerPassword)
		} else {
			p.config = func(round int) string { return PostgresPeerConfig(target, n, round) }
			p.env = append(p.env, "PGPASSWORD="+srv.peerPassword, "PGCONNECT_TIMEOUT=30")
		}
		works = append(works, p)
	}
	caPEM := srv.srv.CAPEM
	if cfg.CACerts > 1 && target.HasCA {
		// A cloud-sized bundle (every workload reads the same file,
		// peers included), the server's CA in the middle.
		if caPEM, err = testserver.CABundle(cfg.CACerts, srv.srv.CAPEM, cfg.CACerts/2); err != nil {
			return nil, err
		}
	}
	for _, w := range works {
		w.dir = filepath.Join(tmp, "work", w.key)
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			return nil, err
		}
		if target.HasCA {
			if err := os.WriteFile(filepath.Join(w.dir, caFile), []byte(caPEM), 0o644); err != nil {
				return nil, err
			}
		}
		if w.sshd != nil {
			for name, text := range map[string]string{bastionKeyFile: w.sshd.ClientKeyPEM, knownHostsFile: w.sshd.KnownHosts} {
				if err := os.WriteFile(filepath.Join(w.dir, name), []byte(text), 0o600); err != nil {
					return nil, err
				}
			}
		}
		res.Workloads = append(res.Workloads, w.key)
		res.Labels[w.key] = w.label
	}
	if err := os.MkdirAll(filepath.Join(tmp, "logs"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(tmp, "home"), 0o700); err != nil {
		return nil, err
	}

	r.logf("%s, N=%d tenants (%d resources per workload), %d rounds, workloads: %s",
		srv.srv.Version(), n, Resources(n), cfg.Rounds, strings.Join(res.Workloads, ", "))
	for round := 1; round <= cfg.Rounds; round++ {
		for _, w := range works {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			r.cycle(w, round)
		}
	}
	if cfg.Profile {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		res.Profile = r.profile(works[0])
	}
	return res, nil
}

type runner struct {
	cfg              Config
	ctx              context.Context
	tmp              string
	engine           string
	srv              *benchServer
	cliConfig        string
	profileCLIConfig string
	res              *Result
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "bench: "+format+"\n", args...)
}

func (r *runner) fail(s *Sample, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.Failed == "" {
		s.Failed = msg
	} else {
		s.Failed += "; " + msg
	}
}

// cycle runs one workload's four phases for a round.
func (r *runner) cycle(w *workload, round int) {
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(w.config(round)), 0o644); err != nil {
		r.res.Failures = append(r.res.Failures, fmt.Sprintf("round %d %s: %v", round, w.key, err))
		return
	}
	created := true
	for _, ph := range Phases {
		if !created && (ph.Key == "plan" || ph.Key == "apply") {
			continue // nothing to plan: go on to destroy what a failed create left
		}
		s := r.phase(w, round, ph, r.cliConfig, nil)
		if ph.Key == "create" && s.Failed != "" {
			created = false
		}
		r.res.Samples = append(r.res.Samples, s)
		status := "ok"
		if s.Failed != "" {
			status = "FAILED: " + s.Failed
			r.res.Failures = append(r.res.Failures, fmt.Sprintf("round %d %s %s: %s", round, w.key, ph.Title, s.Failed))
		}
		extra := ""
		if s.Server {
			extra = fmt.Sprintf(", server %.1fs CPU, %d conns (peak %d), %d DDL, %d reads, %d other", s.ServerCPU.Seconds(), s.Conns, s.PeakConns,
				s.Stmts.DDL, s.Stmts.Reads, s.Stmts.Other)
		}
		if s.SSH {
			extra += fmt.Sprintf(", %d SSH conns accepted, %d provider processes with one (at most %d each)", s.SSHAccepted, s.SSHProcs, s.SSHMost)
		}
		r.logf("round %d/%d %-14s %-14s %6.1fs wall, %6.1fs CPU (provider %.1fs, %.0f MiB)%s: %s",
			round, r.cfg.Rounds, w.key, ph.Title, s.Wall.Seconds(), s.CPU.Seconds(), s.ProviderCPU.Seconds(),
			float64(s.ProviderHWM)/(1<<20), extra, status)
	}
}

// phase runs one terraform command and measures it.
func (r *runner) phase(w *workload, round int, ph Phase, cliConfig string, extraEnv []string) Sample {
	s := Sample{Workload: w.key, Round: round, Phase: ph.Key, Server: w.login != ""}
	ctx := r.ctx
	var args []string
	switch ph.Key {
	case "create", "apply":
		args = []string{"apply", "-auto-approve"}
	case "plan", "planc":
		args = []string{"plan", "-detailed-exitcode"}
	case "destroy":
		args = []string{"destroy", "-auto-approve"}
	}
	args = append(args, "-input=false", "-no-color")
	if r.cfg.Parallelism > 0 {
		args = append(args, "-parallelism="+strconv.Itoa(r.cfg.Parallelism))
	}

	var mark testserver.LogMark
	var conns0 int
	var serverCPU0 time.Duration
	if s.Server {
		r.srv.trimLog(ctx)
		var err error
		if mark, err = r.srv.srv.LogMark(ctx); err != nil {
			r.fail(&s, "statement log: %v", err)
		}
		conns0, s.ConnsOK, err = r.srv.connections(ctx, w.login)
		if err != nil {
			r.fail(&s, "connection count: %v", err)
		}
	}
	var peak *peakWatch
	if s.Server {
		peak = r.srv.watchPeak(w.login, 25*time.Millisecond)
	}
	sshPort, sshLog := 0, 0
	if w.sshd != nil {
		s.SSH, sshPort, sshLog = true, w.sshd.Port, len(w.sshd.Log())
	}

	logPath := filepath.Join(r.tmp, "logs", fmt.Sprintf("%s-r%d-%s.log", w.key, round, ph.Key))
	out, err := os.Create(logPath)
	if err != nil {
		r.fail(&s, "%v", err)
		return s
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "terraform", args...)
	cmd.Dir = w.dir
	cmd.Env = append(append(r.baseEnv(cliConfig), w.env...), extraEnv...)
	var tail tailBuffer
	cmd.Stdout = io.MultiWriter(out, &tail)
	cmd.Stderr = cmd.Stdout
	if s.Server {
		// After the bench's own statements (trimming the log, the marks):
		// from here on the server works for terraform.
		serverCPU0, s.ServerCPUOK = serverCPU(r.srv.srv.PID())
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.fail(&s, "start terraform: %v", err)
		if peak != nil {
			peak.finish()
		}
		return s
	}
	pw := watchProcess(cmd.Process.Pid, 20*time.Millisecond, sshPort)
	werr := waitExited(cmd.Process.Pid)
	s.Wall = time.Since(start)
	times, timesOK := readProcTimes(cmd.Process.Pid)
	polledCPU, provHWM, tfHWM, provs := pw.finish()
	runErr := cmd.Wait()
	if peak != nil {
		s.PeakConns, err = peak.finish()
		s.PeakOK = err == nil
	}
	if werr != nil {
		r.fail(&s, "wait for terraform: %v", werr)
	}
	if cmd.ProcessState != nil {
		s.CPU = rusageCPU(cmd.ProcessState.SysUsage())
	}
	if timesOK {
		s.CoreCPU, s.ProviderCPU = times.self, times.children
	} else {
		s.ProviderCPU = polledCPU
		s.CoreCPU = s.CPU - polledCPU
	}
	s.ProviderHWM, s.TFHWM, s.Providers = provHWM, tfHWM, provs
	if s.SSH {
		s.SSHProcs, s.SSHOpened, s.SSHMost = pw.sshCounts()
		s.SSHAccepted = strings.Count(w.sshd.Log()[sshLog:], "Accepted publickey for ")
		r.checkBastion(&s)
	}

	text := tail.String()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		code = exitErr.ExitCode()
	} else if runErr != nil {
		r.fail(&s, "terraform: %v", runErr)
	}
	switch {
	case ph.Key == "plan" && code == 2:
		r.fail(&s, "the no-op plan is not empty: %s", lastLines(text, 12))
	case ph.Key == "planc":
		if want := fmt.Sprintf("Plan: %d to add, 0 to change, 0 to destroy", w.resources(r.cfg.Tenants)); code != 2 || !strings.Contains(text, want) {
			r.fail(&s, "the plan of creates exited %d without %q: %s", code, want, lastLines(text, 12))
		}
	case code != 0:
		r.fail(&s, "terraform %s exited %d: %s", args[0], code, lastLines(text, 12))
	case ph.Key == "create":
		if want := fmt.Sprintf("Resources: %d added, 0 changed, 0 destroyed", w.resources(r.cfg.Tenants)); !strings.Contains(text, want) {
			r.fail(&s, "create did not say %q: %s", want, lastLines(text, 4))
		}
	case ph.Key == "apply":
		if !strings.Contains(text, "Resources: 0 added, 0 changed, 0 destroyed") {
			r.fail(&s, "the no-op apply changed something: %s", lastLines(text, 12))
		}
	case ph.Key == "destroy":
		if want := fmt.Sprintf("Resources: %d destroyed", w.resources(r.cfg.Tenants)); !strings.Contains(text, want) {
			r.fail(&s, "destroy did not say %q: %s", want, lastLines(text, 4))
		}
	}

	if s.Server {
		// Every connection closes with the provider process: none is left
		// open once terraform has exited.
		if open, err := r.srv.openAfter(ctx, w.login, 3*time.Second); err != nil {
			r.fail(&s, "open sessions: %v", err)
		} else if open > 0 {
			r.fail(&s, "terraform exited and %s still has %d sessions open", w.login, open)
		}
		if cpu1, ok := serverCPU(r.srv.srv.PID()); ok && s.ServerCPUOK {
			s.ServerCPU = cpu1 - serverCPU0
		} else {
			s.ServerCPUOK = false
		}
		conns1, ok, err := r.srv.connections(ctx, w.login)
		if err != nil {
			r.fail(&s, "connection count: %v", err)
		}
		s.Conns, s.ConnsOK = conns1-conns0, s.ConnsOK && ok
		if !mark.IsZero() {
			stmts, err := r.srv.srv.StatementsSince(ctx, mark, w.login)
			if err != nil {
				r.fail(&s, "statement log: %v", err)
			} else {
				s.Stmts, s.StmtsOK = classify(r.engine, stmts), true
				if r.cfg.Keep {
					r.saveStatements(w, round, ph, stmts)
				}
				if w.strict && (ph.Key == "plan" || ph.Key == "apply" || ph.Key == "planc") && s.Stmts.DDL > 0 {
					var ddl []string
					for _, st := range stmts {
						if testserver.IsDDL(r.engine, st.Text) && len(ddl) < 3 {
							ddl = append(ddl, testserver.RedactSecrets(st.Text))
						}
					}
					r.fail(&s, "the %s ran %d DDL/DCL statements, e.g. %s", ph.Title, s.Stmts.DDL, strings.Join(ddl, " | "))
				}
			}
		}
		if ph.Key == "destroy" && w.prefix != "" {
			dbs, logins, err := r.srv.leftovers(ctx, fmt.Sprintf("%s%d_", w.prefix, round))
			switch {
			case err != nil:
				r.fail(&s, "leftover check: %v", err)
			case dbs > 0 || logins > 0:
				r.fail(&s, "destroy left %d databases and %d logins on the server", dbs, logins)
			}
		}
	}
	return s
}

// saveStatements writes what the login ran (passwords redacted) beside
// terraform's output, for KEEP=1 runs.
func (r *runner) saveStatements(w *workload, round int, ph Phase, stmts []testserver.Statement) {
	var b strings.Builder
	for _, st := range stmts {
		fmt.Fprintf(&b, "[%s] %s\n", st.Kind, strings.ReplaceAll(testserver.RedactSecrets(st.Text), "\n", " "))
	}
	_ = os.WriteFile(filepath.Join(r.tmp, "logs", fmt.Sprintf("%s-r%d-%s.sql", w.key, round, ph.Key)), []byte(b.String()), 0o600)
}

// baseEnv is the environment terraform runs in: the caller's, without
// anything that changes what terraform or a provider does (TF_*, PG*,
// MYSQL_*, TENANTDB_*, HOME, XDG_*), with the bench's CLI config and HOME.
func (r *runner) baseEnv(cliConfig string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "TF_"), strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "PG"),
			strings.HasPrefix(name, "MYSQL_"), strings.HasPrefix(name, "TENANTDB_"),
			name == "HOME", name == "CHECKPOINT_DISABLE":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+filepath.Join(r.tmp, "home"),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
	)
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 64<<10 {
		t.b = append([]byte(nil), t.b[len(t.b)-64<<10:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " / ")
}

func parseEngine(s string) (string, error) {
	switch strings.ToLower(s) {
	case "", "mariadb", "mysql":
		return testserver.EngineMySQL, nil
	case "postgres", "postgresql", "pg":
		return testserver.EnginePostgres, nil
	}
	return "", fmt.Errorf("ENGINE=%s: want mariadb or postgres", s)
}

// DefaultCacheDir is $TENANTDB_BENCH_CACHE, else ~/.cache/tenantdb/bench.
func DefaultCacheDir() string {
	if d := os.Getenv("TENANTDB_BENCH_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tenantdb-bench-cache")
	}
	return filepath.Join(home, ".cache", "tenantdb", "bench")
}

// Peer binaries live in the cache as bin/<name>/terraform-provider-<name>,
// with the version they were built from in bin/<name>/VERSION.
func findPeer(cache, engine string) (bin, label string, err error) {
	name, repo := "mysql", "petoju/terraform-provider-mysql"
	if engine == testserver.EnginePostgres {
		name, repo = "postgresql", "cyrilgdn/terraform-provider-postgresql"
	}
	dir := filepath.Join(cache, "bin", name)
	bin = filepath.Join(dir, "terraform-provider-"+name)
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", "", fmt.Errorf("PEERS=1: no peer provider at %s: build %s from its source into that path "+
			"(see BENCHMARKS.md, \"Peers\"), or run without PEERS", bin, repo)
	}
	version := "?"
	if b, err := os.ReadFile(filepath.Join(dir, "VERSION")); err == nil {
		version = strings.TrimSpace(string(b))
	}
	owner, _, _ := strings.Cut(repo, "/")
	return bin, fmt.Sprintf("%s/%s %s", owner, name, version), nil
}

func writeCLIConfig(path string, overrides map[string]string) (string, error) {
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for _, addr := range []string{addrTenantDB, addrFloor, addrShape, addrMySQL, addrPostgres} {
		if dir, ok := overrides[addr]; ok {
			fmt.Fprintf(&b, "    %q = %q\n", addr, dir)
		}
	}
	b.WriteString("  }\n  direct {}\n}\n")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

func goBuild(ctx context.Context, root, out, pkg string, strip bool) error {
	args := []string{"build", "-o", out}
	if strip {
		args = append(args, "-ldflags=-s -w") // as a release build (goreleaser) strips
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

func terraformVersion(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("terraform"); err != nil {
		return "", errors.New("terraform is not on PATH: the bench needs terraform >= 1.11")
	}
	cmd := exec.CommandContext(ctx, "terraform", "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("terraform version: %v", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimPrefix(strings.TrimSpace(first), "Terraform "), nil
}

func findRepoRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil &&
			bytes.Contains(b, []byte("module github.com/tenantdb/terraform-provider-tenantdb\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("run the bench from the provider's checkout (no go.mod of github.com/tenantdb/terraform-provider-tenantdb above the working directory)")
		}
		d = parent
	}
}

// gitRevision is the checkout's commit, "+changes" when the work tree differs.
func gitRevision(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		rev += "+changes"
	}
	return rev
}

// phaseOf is the phase with key.
func phaseOf(key string) Phase {
	for _, ph := range Phases {
		if ph.Key == key {
			return ph
		}
	}
	panic("no bench phase " + key)
}
