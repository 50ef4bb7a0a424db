// SPDX-License-Identifier: MPL-2.0

// Package demo is `make demo` (cmd/tenantdb-demo): it builds the provider
// from this checkout, gets a server (a throwaway one it starts itself, or
// one the user names), applies examples/demo with the real terraform CLI
// pointed at the build through a generated CLI config, and then checks, as
// the tenants' users would, what the configuration promises: each owner
// logs in and creates a table, no owner reaches the other tenant's
// database, the reporting login reads but cannot write, a password rotation
// by version bump locks the old password out, the next plan is empty, and
// destroy leaves the databases and their rows on the server. One line per
// step, a verdict, and an exit code; the server is stopped and the temp
// files removed on every exit, Ctrl-C included.
//
// The provider does all the provisioning. The demo's own SQL only logs in
// as the logins Terraform made, creates the reporting login that must exist
// before Terraform runs, reads what destroy left, and, on a server it did
// not start, removes what it made at the end.
package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Exit codes.
const (
	ExitPass        = 0
	ExitFail        = 1   // a step failed
	ExitNoServer    = 2   // nothing to run on, or a tool is missing: said before anything ran
	ExitInterrupted = 130 // Ctrl-C (SIGINT) or SIGTERM
)

// The names examples/demo/main.tf uses.
const (
	acmeDB, acmeOwner, acmeTable       = "acme_wms", "acme_app", "orders"
	globexDB, globexOwner, globexTable = "globex_crm", "globex_app", "customers"
	reportingLogin                     = "reporting"
	demoResources                      = 6 // db_server, 2 databases, 2 owners, 1 grant
)

// Config is what `make demo` passes.
type Config struct {
	Engine   string    // "postgres" (default), "mariadb" or "mysql"
	Existing *Existing // nil: start a throwaway server
	RepoRoot string    // "": found from the working directory
	Out      io.Writer // nil: os.Stdout
	// Keep: after the checks, leave the throwaway server running and print
	// how to connect, until Ctrl-C (make demo KEEP=1).
	Keep bool

	// Seams for tests.
	localBinaries   func(flavor) (string, bool)
	dockerAvailable func() bool
	beforeStep      func(name string)
}

// Result is how a run ended, and what it used (for tests that check the
// cleanup).
type Result struct {
	ExitCode  int
	TempDir   string // the demo's temp dir (provider build, CLI config, HOME, working dir): removed at exit
	ServerDir string // a throwaway local server's data dir: removed at exit
	Addr      string // host:port of the server
}

// target is the server the demo runs on.
type target struct {
	engine  string // "postgres" or "mysql"
	host    string
	port    int
	admin   login
	tls     string
	caPEM   string
	version string
	dir     string       // throwaway local server: its temp dir
	stop    func() error // throwaway server: stops it; nil for an existing server
}

func (t *target) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// product is "PostgreSQL 15.14", "MariaDB 10.11.14" or "MySQL 8.4.3".
func (t *target) product() string {
	v := strings.Fields(t.version + " ")[0]
	switch {
	case t.engine == enginePostgres:
		return "PostgreSQL " + v
	case strings.Contains(strings.ToLower(t.version), "mariadb"):
		v, _, _ = strings.Cut(v, "-")
		return "MariaDB " + v
	}
	v, _, _ = strings.Cut(v, "-")
	return "MySQL " + v
}

// run is one demo run.
type run struct {
	cfg     Config
	ctx     context.Context
	out     io.Writer
	started time.Time

	steps, failed int
	interrupted   bool

	flavor flavor
	src    source
	root   string
	tmp    string
	tgt    *target
	tf     *terraformCLI
	vars   map[string]string // terraform's variables (TF_VAR_*)
	// reportingPW is the reporting login's password: the demo's, not Terraform's.
	reportingPW string
	secrets     []string // every password the run used, for the state check
	// tidy: on a server the demo did not start, the names it checked were
	// free and so may remove at the end.
	tidy    bool
	cleaned bool
}

// Run runs the demo and returns how it ended. Cancelling ctx (Ctrl-C)
// interrupts the step in progress; the cleanup still runs.
func Run(ctx context.Context, cfg Config) Result {
	if cfg.Out == nil {
		cfg.Out = os.Stdout
	}
	r := &run{cfg: cfg, ctx: ctx, out: cfg.Out, started: time.Now()}
	code := r.main()
	res := Result{ExitCode: code, TempDir: r.tmp}
	if r.tgt != nil {
		res.ServerDir, res.Addr = r.tgt.dir, r.tgt.addr()
	}
	return res
}

func (r *run) main() int {
	var err error
	if r.flavor, err = parseFlavor(r.cfg.Engine); err != nil {
		fmt.Fprintf(r.out, "✗ %v\n", err)
		return ExitNoServer
	}
	// Everything that can be missing is checked before anything slow runs.
	src, ok := chooseSource(r.cfg, r.flavor)
	if !ok {
		fmt.Fprint(r.out, noServerMessage(r.flavor))
		return ExitNoServer
	}
	r.src = src
	v, err := terraformVersion(r.ctx)
	if err == nil && !atLeast111(v) {
		err = fmt.Errorf("terraform %s is too old", v)
	}
	if err != nil {
		fmt.Fprintf(r.out, "✗ %v: the demo needs terraform >= 1.11 (write-only arguments) on PATH: https://developer.hashicorp.com/terraform/install\n", err)
		return ExitNoServer
	}
	if _, err := exec.LookPath("go"); err != nil {
		fmt.Fprintln(r.out, "✗ go is not on PATH: the demo builds the provider from this checkout")
		return ExitNoServer
	}
	if r.root, err = findRepoRoot(r.cfg.RepoRoot); err != nil {
		fmt.Fprintf(r.out, "✗ %v\n", err)
		return ExitNoServer
	}
	fmt.Fprintf(r.out, "tenantdb demo: %s, %s, terraform %s\n", r.flavor.product(), r.src.describe(r.flavor), v)

	defer r.cleanup() // on a panic too; a no-op once done
	r.allSteps()      // stops at the first failure of a step later steps need
	if r.cfg.Keep {
		r.keepUntilInterrupted()
	}
	r.cleanup()
	return r.verdict()
}

// allSteps are the steps, in order; a step whose failure leaves nothing
// for the next ones to show ends the run.
func (r *run) allSteps() {
	if !r.step("build", "build the provider", r.build) ||
		!r.step("server", "get a server", r.server) {
		return
	}
	if r.src.kind == sourceExisting && !r.step("free", "check the demo's names are free", r.namesFree) {
		return
	}
	if !r.step("reporting", "create the reporting login", r.createReporting) ||
		!r.step("apply", "terraform apply", r.apply) {
		return
	}
	r.step("state", "check the state for passwords", r.stateHasNoPassword)
	if !r.step("owner-acme", "owner "+acmeOwner+" creates a table", r.ownerCreatesTable(acmeOwner, acmeDB, acmeTable)) ||
		!r.step("owner-globex", "owner "+globexOwner+" creates a table", r.ownerCreatesTable(globexOwner, globexDB, globexTable)) {
		return
	}
	r.step("isolation", "tenant isolation", r.isolation)
	r.step("reporting-read", "reporting reads, cannot write", r.reportingReads)
	r.step("rotate", "password rotation", r.rotate)
	r.step("plan", "terraform plan", r.plan)
	if !r.step("destroy", "terraform destroy", r.destroy) {
		return
	}
	r.step("retained", "databases retained", r.retained)
}

// step runs one step and prints its line. It returns false when the step
// failed or the run was interrupted.
func (r *run) step(name, title string, fn func() (string, error)) bool {
	if r.interrupted || r.ctx.Err() != nil {
		r.interrupted = true
		return false
	}
	if r.cfg.beforeStep != nil {
		r.cfg.beforeStep(name)
	}
	r.steps++
	t0 := time.Now()
	msg, err := fn()
	took := time.Since(t0)
	if r.ctx.Err() != nil {
		r.interrupted = true
		fmt.Fprintf(r.out, "✗ %s: interrupted\n", title)
		return false
	}
	if err != nil {
		r.failed++
		fmt.Fprintf(r.out, "✗ %s: %s\n", title, indent(err.Error()))
		return false
	}
	if took >= time.Second {
		msg += fmt.Sprintf(" (%.1fs)", took.Seconds())
	}
	fmt.Fprintf(r.out, "✓ %s\n", msg)
	return true
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ") }

func (r *run) verdict() int {
	took := time.Since(r.started).Seconds()
	switch {
	case r.interrupted:
		fmt.Fprintf(r.out, "INTERRUPTED after %d steps (%.1fs)\n", r.steps, took)
		return ExitInterrupted
	case r.failed > 0:
		fmt.Fprintf(r.out, "FAIL: %d of %d steps failed (%.1fs)\n", r.failed, r.steps, took)
		return ExitFail
	}
	fmt.Fprintf(r.out, "PASS: %d of %d steps passed (%.1fs)\n", r.steps, r.steps, took)
	return ExitPass
}

// cleanup runs on every exit: it removes what the demo made on a server it
// did not start, stops a throwaway server, and removes the temp dir. It is
// the last step line; a failure turns the verdict into FAIL.
func (r *run) cleanup() {
	if r.cleaned || (r.tmp == "" && r.tgt == nil) {
		return
	}
	r.cleaned = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 2*time.Minute)
	defer cancel()
	var done []string
	var errs []error
	if r.tgt != nil && r.tidy {
		stmts := r.tgt.dropSQL([]string{acmeDB, globexDB}, []string{acmeOwner, globexOwner, reportingLogin})
		if err := r.tgt.exec(ctx, r.tgt.admin, "", stmts...); err != nil {
			errs = append(errs, fmt.Errorf("remove the demo's databases and logins from %s: %w", r.tgt.addr(), err))
		} else {
			done = append(done, fmt.Sprintf("removed the demo's databases and logins from %s", r.tgt.addr()))
		}
	}
	if r.tgt != nil && r.tgt.stop != nil {
		if err := r.tgt.stop(); err != nil {
			errs = append(errs, err)
		} else {
			done = append(done, "stopped the server")
		}
	}
	if r.tmp != "" {
		if err := os.RemoveAll(r.tmp); err != nil {
			errs = append(errs, err)
		} else {
			done = append(done, "removed the temp files")
		}
	}
	r.steps++
	if err := errors.Join(errs...); err != nil {
		r.failed++
		fmt.Fprintf(r.out, "✗ clean up: %s\n", indent(err.Error()))
		return
	}
	fmt.Fprintf(r.out, "✓ %s\n", strings.Join(done, ", "))
}

// ---------------------------------------------------------------------------
// The steps. Each returns its success line or an error.

func (r *run) build() (string, error) {
	tmp, err := os.MkdirTemp("", "tenantdb-demo-")
	if err != nil {
		return "", err
	}
	r.tmp = tmp
	bin := filepath.Join(tmp, "bin")
	// -s -w: no symbol table or DWARF, a quicker link for a binary nobody debugs.
	cmd := exec.CommandContext(r.ctx, "go", "build", "-ldflags=-s -w", "-o", filepath.Join(bin, "terraform-provider-tenantdb"), ".")
	cmd.Dir = r.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	work := filepath.Join(tmp, "work")
	if err := copyTF(filepath.Join(r.root, "examples", "demo"), work); err != nil {
		return "", err
	}
	if r.tf, err = newTerraformCLI(tmp, bin, work); err != nil {
		return "", err
	}
	return "built the provider; terraform runs it through a generated CLI config (dev_overrides)", nil
}

func (r *run) server() (string, error) {
	if r.src.kind == sourceExisting {
		return r.connectExisting()
	}
	t, err := startThrowaway(r.ctx, r.flavor, r.src)
	if err != nil {
		return "", err
	}
	r.tgt = t
	return fmt.Sprintf("started %s on %s, TLS %s, admin %s with only the documented rights",
		t.product(), t.addr(), t.tls, t.admin.user), nil
}

func (r *run) connectExisting() (string, error) {
	e := r.cfg.Existing
	t := &target{engine: r.flavor.engine(), host: e.Host, port: e.Port, admin: login{e.Admin, e.Password}, tls: e.TLS, caPEM: e.CAPEM}
	if t.port == 0 {
		t.port = 3306
		if t.engine == enginePostgres {
			t.port = 5432
		}
	}
	if t.admin.user == "" {
		t.admin.user = "tenantdb_admin"
	}
	if t.tls == "" {
		t.tls = "require"
		if t.caPEM != "" {
			t.tls = "verify-full"
		}
	}
	if t.host == "" || t.admin.password == "" {
		return "", errors.New("DEMO_HOST and DEMO_ADMIN_PASSWORD are needed to use a server you run")
	}
	conn, err := t.open(r.ctx, t.admin, "")
	if err != nil {
		return "", fmt.Errorf("connect to %s as %s (TLS %s): %w", t.addr(), t.admin.user, t.tls, err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(r.ctx, t.versionQuery()).Scan(&t.version); err != nil {
		return "", err
	}
	r.tgt = t
	return fmt.Sprintf("connected to %s on %s as %s, TLS %s", t.product(), t.addr(), t.admin.user, t.tls), nil
}

// namesFree: on a server the demo did not start it creates only names that
// are free, and so may remove exactly those at the end.
func (r *run) namesFree() (string, error) {
	dbs, err := r.tgt.existingDatabases(r.ctx, []string{acmeDB, globexDB})
	if err != nil {
		return "", err
	}
	logins, err := r.tgt.existingLogins(r.ctx, []string{acmeOwner, globexOwner, reportingLogin})
	if err != nil {
		return "", err
	}
	if taken := append(dbs, logins...); len(taken) > 0 {
		return "", fmt.Errorf("%s already on %s: the demo creates these names and touches nothing it did not make; drop them or use another server",
			strings.Join(taken, ", "), r.tgt.addr())
	}
	r.tidy = true
	return fmt.Sprintf("%s, %s, %s, %s, %s do not exist yet (the demo removes them at the end)",
		acmeDB, globexDB, acmeOwner, globexOwner, reportingLogin), nil
}

func (r *run) createReporting() (string, error) {
	pw := randomPassword()
	r.secrets = append(r.secrets, pw)
	stmt, err := r.tgt.createLoginSQL(login{reportingLogin, pw})
	if err != nil {
		return "", err
	}
	if err := r.tgt.exec(r.ctx, r.tgt.admin, "", stmt); err != nil {
		return "", err
	}
	r.reportingPW = pw
	return "created the login " + reportingLogin + " outside Terraform (a grant never creates its principal)", nil
}

func (r *run) apply() (string, error) {
	acme, globex := randomPassword(), randomPassword()
	r.secrets = append(r.secrets, acme, globex, r.tgt.admin.password)
	r.vars = map[string]string{
		"engine":                      r.tgt.engine,
		"host":                        r.tgt.host,
		"port":                        strconv.Itoa(r.tgt.port),
		"admin_username":              r.tgt.admin.user,
		"tls":                         r.tgt.tls,
		"reporting_username":          reportingLogin,
		"admin_password":              r.tgt.admin.password,
		"acme_owner_password":         acme,
		"globex_owner_password":       globex,
		"acme_owner_password_version": "1",
	}
	if r.tgt.caPEM != "" {
		r.vars["ca_cert"] = r.tgt.caPEM
	}
	res, err := r.tf.run(r.ctx, r.vars, "apply", "-auto-approve", "-input=false")
	if err != nil {
		return "", err
	}
	if res.exitCode != 0 {
		return "", res.failure()
	}
	if res.changes.Add != demoResources {
		return "", fmt.Errorf("added %d resources, want %d", res.changes.Add, demoResources)
	}
	return fmt.Sprintf("terraform apply: %d added (server, 2 databases, 2 owners with write-only passwords, 1 grant)", res.changes.Add), nil
}

// stateHasNoPassword reads terraform.tfstate: it must hold the resources
// (so the search searched something) and none of the passwords.
func (r *run) stateHasNoPassword() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.tf.dir, "terraform.tfstate"))
	if err != nil {
		return "", err
	}
	for _, must := range []string{acmeDB, globexDB, acmeOwner, `"password_wo_version"`} {
		if !bytes.Contains(b, []byte(must)) {
			return "", fmt.Errorf("terraform.tfstate does not mention %s: nothing to check", must)
		}
	}
	for _, s := range r.secrets {
		if bytes.Contains(b, []byte(s)) {
			return "", errors.New("a password is in terraform.tfstate")
		}
	}
	return "no password in terraform.tfstate (write-only: sent to the server, never stored)", nil
}

func (r *run) ownerCreatesTable(owner, db, table string) func() (string, error) {
	return func() (string, error) {
		if err := r.tgt.exec(r.ctx, login{owner, r.ownerPassword(owner)}, db, r.tgt.createTableSQL(table)...); err != nil {
			return "", err
		}
		return fmt.Sprintf("owner %s logs in to %s and creates a table", owner, db), nil
	}
}

func (r *run) ownerPassword(owner string) string {
	if owner == acmeOwner {
		return r.vars["acme_owner_password"]
	}
	return r.vars["globex_owner_password"]
}

// isolation: each owner tries the other tenant's database.
func (r *run) isolation() (string, error) {
	var why string
	for _, c := range []struct{ owner, db string }{{acmeOwner, globexDB}, {globexOwner, acmeDB}} {
		_, err := r.tgt.count(r.ctx, login{c.owner, r.ownerPassword(c.owner)}, c.db, "SELECT 1")
		if err == nil {
			return "", fmt.Errorf("%s reached %s", c.owner, c.db)
		}
		if !denied(err) {
			return "", fmt.Errorf("%s on %s failed, but not with a permission error: %w", c.owner, c.db, err)
		}
		if why == "" {
			why = serverMessage(err)
		}
	}
	return fmt.Sprintf("neither owner can reach the other's database (%s)", why), nil
}

func (r *run) reportingReads() (string, error) {
	l := login{reportingLogin, r.reportingPW}
	n, err := r.tgt.count(r.ctx, l, acmeDB, "SELECT COUNT(*) FROM "+acmeTable)
	if err != nil {
		return "", fmt.Errorf("%s cannot read %s.%s: %w", reportingLogin, acmeDB, acmeTable, err)
	}
	err = r.tgt.exec(r.ctx, l, acmeDB, "INSERT INTO "+acmeTable+" (id, item) VALUES (2, 'from reporting')")
	if err == nil {
		return "", fmt.Errorf("%s wrote to %s.%s", reportingLogin, acmeDB, acmeTable)
	}
	if !denied(err) {
		return "", fmt.Errorf("%s's INSERT failed, but not with a permission error: %w", reportingLogin, err)
	}
	return fmt.Sprintf("%s reads %s (%d row) but cannot write (%s)", reportingLogin, acmeDB, n, serverMessage(err)), nil
}

func (r *run) rotate() (string, error) {
	old, next := r.vars["acme_owner_password"], randomPassword()
	r.secrets = append(r.secrets, next)
	r.vars["acme_owner_password"], r.vars["acme_owner_password_version"] = next, "2"
	res, err := r.tf.run(r.ctx, r.vars, "apply", "-auto-approve", "-input=false")
	if err != nil {
		return "", err
	}
	if res.exitCode != 0 {
		return "", res.failure()
	}
	if res.changes.Change != 1 || res.changes.Add+res.changes.Remove != 0 {
		return "", fmt.Errorf("apply changed %d, added %d, destroyed %d; want exactly 1 in-place change", res.changes.Change, res.changes.Add, res.changes.Remove)
	}
	if err := r.tgt.exec(r.ctx, login{acmeOwner, next}, acmeDB, "SELECT 1"); err != nil {
		return "", fmt.Errorf("the new password does not log in: %w", err)
	}
	err = r.tgt.exec(r.ctx, login{acmeOwner, old}, acmeDB, "SELECT 1")
	if err == nil {
		return "", errors.New("the old password still logs in")
	}
	if !badPassword(err) {
		return "", fmt.Errorf("the old password failed, but not as a wrong password: %w", err)
	}
	if b, err := os.ReadFile(filepath.Join(r.tf.dir, "terraform.tfstate")); err != nil || bytes.Contains(b, []byte(next)) {
		return "", fmt.Errorf("the new password is in terraform.tfstate (or it cannot be read: %v)", err)
	}
	return fmt.Sprintf("password_wo_version 1 → 2 rotated %s's password: the new one works, the old one fails (%s)",
		acmeOwner, serverMessage(err)), nil
}

func (r *run) plan() (string, error) {
	res, err := r.tf.run(r.ctx, r.vars, "plan", "-input=false", "-detailed-exitcode")
	if err != nil {
		return "", err
	}
	switch res.exitCode {
	case 0:
		return "terraform plan: no changes", nil
	case 2:
		return "", fmt.Errorf("the plan is not empty: %s", strings.Join(res.planned, ", "))
	}
	return "", res.failure()
}

func (r *run) destroy() (string, error) {
	res, err := r.tf.run(r.ctx, r.vars, "destroy", "-auto-approve", "-input=false")
	if err != nil {
		return "", err
	}
	if res.exitCode != 0 {
		return "", res.failure()
	}
	w, ok := res.warning("DatabaseRetained")
	if !ok {
		return "", errors.New("no DatabaseRetained warning")
	}
	if res.changes.Remove != demoResources {
		return "", fmt.Errorf("destroyed %d resources, want %d", res.changes.Remove, demoResources)
	}
	return fmt.Sprintf("terraform destroy: %d destroyed; %s", res.changes.Remove, w.Summary), nil
}

// retained checks, as the admin, that both databases and their rows are
// still there and the owner logins Terraform made are gone.
func (r *run) retained() (string, error) {
	dbs, err := r.tgt.existingDatabases(r.ctx, []string{acmeDB, globexDB})
	if err != nil {
		return "", err
	}
	if len(dbs) != 2 {
		return "", fmt.Errorf("after destroy the server has %v of %s and %s", dbs, acmeDB, globexDB)
	}
	var rows []string
	for _, c := range []struct{ db, table string }{{acmeDB, acmeTable}, {globexDB, globexTable}} {
		n, err := r.tgt.count(r.ctx, r.tgt.admin, c.db, "SELECT COUNT(*) FROM "+c.table)
		if err != nil {
			return "", fmt.Errorf("read %s.%s: %w", c.db, c.table, err)
		}
		if n != 1 {
			return "", fmt.Errorf("%s.%s has %d rows, want 1", c.db, c.table, n)
		}
		rows = append(rows, fmt.Sprintf("%s: %d", c.table, n))
	}
	owners, err := r.tgt.existingLogins(r.ctx, []string{acmeOwner, globexOwner})
	if err != nil {
		return "", err
	}
	if len(owners) > 0 {
		return "", fmt.Errorf("the owner logins %v are still there", owners)
	}
	return fmt.Sprintf("%s and %s were retained (the default) and still hold their rows (%s); the owner logins are gone",
		acmeDB, globexDB, strings.Join(rows, ", ")), nil
}

// ---------------------------------------------------------------------------

// findRepoRoot returns dir, or the nearest parent of the working directory
// holding this module's go.mod and examples/demo.
func findRepoRoot(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for d := wd; ; d = filepath.Dir(d) {
			if isRepoRoot(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				return "", fmt.Errorf("%s is not inside a terraform-provider-tenantdb checkout: run make demo from the repository", wd)
			}
		}
	}
	if !isRepoRoot(dir) {
		return "", fmt.Errorf("%s is not a terraform-provider-tenantdb checkout (go.mod, examples/demo)", dir)
	}
	return filepath.Abs(dir)
}

func isRepoRoot(d string) bool {
	b, err := os.ReadFile(filepath.Join(d, "go.mod"))
	if err != nil || !bytes.Contains(b, []byte("module github.com/tenantdb/terraform-provider-tenantdb\n")) {
		return false
	}
	_, err = os.Stat(filepath.Join(d, "examples", "demo", "main.tf"))
	return err == nil
}

// copyTF copies the *.tf files of src into a new directory dst.
func copyTF(src, dst string) error {
	files, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no *.tf in %s", src)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
