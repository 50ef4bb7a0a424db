// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }

// needsTerraform skips without TF_ACC (as every acceptance test here) and
// fails loudly when terraform is missing.
func needsTerraform(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("runs terraform: set TF_ACC=1 (make test does)")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Fatal("terraform is not on PATH: the demo tests need terraform >= 1.11")
	}
}

// runDemo runs the demo in-process as `make demo` does, with HOME pointed
// at an empty directory, logs its output and wall time, and fails if it
// wrote anything to HOME. The Go toolchain's own per-user state (build
// cache, module cache, telemetry counters under the config dir) stays where
// it was: `go run` itself writes there, as any go command does.
func runDemo(t *testing.T, ctx context.Context, cfg Config) (Result, string) {
	t.Helper()
	var goEnv map[string]string
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &goEnv); err != nil {
		t.Fatal(err)
	}
	if goEnv["XDG_CONFIG_HOME"], err = os.UserConfigDir(); err != nil {
		t.Fatal(err)
	}
	for k, v := range goEnv {
		t.Setenv(k, v)
	}
	// The harness finds the servers' Debian roots and PostgreSQL 18 under
	// HOME by default: name them before HOME moves.
	for env, find := range map[string]func() (string, error){
		testserver.EnvMySQLRoot: testserver.MySQLRoot, testserver.EnvMariaDB11Root: testserver.MariaDB11Root,
		testserver.EnvPostgres18BinDir: testserver.Postgres18BinDir,
	} {
		if dir, err := find(); err == nil {
			t.Setenv(env, dir)
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)

	var buf bytes.Buffer
	cfg.Out = &buf
	cfg.RepoRoot = "../.."
	start := time.Now()
	res := Run(ctx, cfg)
	wall := time.Since(start)
	t.Logf("demo output (exit %d, wall time %s):\n%s", res.ExitCode, wall.Round(100*time.Millisecond), buf.String())

	var written []string
	_ = filepath.WalkDir(home, func(p string, _ fs.DirEntry, _ error) error {
		if p != home {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("the demo wrote to HOME: %v", written)
	}
	return res, buf.String()
}

// requireCleanedUp fails unless the temp dir and the throwaway server's dir
// are gone and nothing listens on the server's port any more.
func requireCleanedUp(t *testing.T, res Result, throwaway bool) {
	t.Helper()
	if res.TempDir == "" {
		t.Fatal("the run reported no temp dir")
	}
	for _, d := range []string{res.TempDir, res.ServerDir} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the demo (stat: %v)", d, err)
		}
	}
	if throwaway {
		if res.ServerDir == "" || res.Addr == "" {
			t.Fatalf("the run reported no throwaway server: %+v", res)
		}
		if c, err := net.DialTimeout("tcp", res.Addr, time.Second); err == nil {
			c.Close()
			t.Errorf("the throwaway server still listens on %s", res.Addr)
		}
	}
}

// The lines a passing run must print, whatever the engine: each is one of
// the things the issue asks the demo to show.
var wantLines = []string{
	"✓ built the provider",
	"✓ created the login reporting outside Terraform",
	"✓ terraform apply: 6 added",
	"✓ no password in terraform.tfstate",
	"✓ owner acme_app logs in to acme_wms and creates a table",
	"✓ owner globex_app logs in to globex_crm and creates a table",
	"✓ neither owner can reach the other's database",
	"✓ reporting reads acme_wms (1 row) but cannot write",
	"✓ password_wo_version 1 → 2 rotated acme_app's password: the new one works, the old one fails",
	"✓ terraform plan: no changes",
	"✓ terraform destroy: 6 destroyed; DatabaseRetained",
	"✓ acme_wms and globex_crm were retained (the default) and still hold their rows (orders: 1, customers: 1); the owner logins are gone",
}

func requirePass(t *testing.T, res Result, out string, more ...string) {
	t.Helper()
	if res.ExitCode != ExitPass || strings.Contains(out, "✗") {
		t.Fatalf("the demo did not pass (exit %d)", res.ExitCode)
	}
	for _, w := range append(wantLines, more...) {
		if !strings.Contains(out, "\n"+w) {
			t.Errorf("no line starting %q", w)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS: ") {
		t.Errorf("last line %q is not the PASS verdict", last)
	}
}

// TestDemo is `make demo` for each engine, on a throwaway server (MySQL
// 9.7 from the Debian root when TENANTDB_TEST_ENGINES names mysql).
func TestDemo(t *testing.T) {
	needsTerraform(t)
	for _, engine := range []string{"postgres", "mariadb", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			if !testserver.EngineSelected(engine) {
				t.Skipf("%s leaves out %s", testserver.EnvEngines, engine)
			}
			if testserver.StandIn(engine) {
				// The demo starts the machine's own binaries (10.11, 15),
				// not the stand-in: the family's own run has done it.
				t.Skipf("the demo starts the machine's %s, not the release %s names: run once, in the %s run", engine, testserver.EnvEngines, engine)
			}
			if engine == "mysql" {
				// runDemo gives the demo a HOME of its own: name the root.
				root, err := testserver.MySQLRoot()
				if err != nil {
					t.Fatal(err)
				}
				t.Setenv(testserver.EnvMySQLRoot, root)
			}
			res, out := runDemo(t, context.Background(), Config{Engine: engine})
			requirePass(t, res, out, "✓ started ", "✓ stopped the server, removed the temp files")
			requireCleanedUp(t, res, true)
		})
	}
}

// TestDemoExistingServer runs the demo on a server it did not start, as
// its admin only: it checks the names are free first, and afterwards the
// server holds nothing of the demo's. It also covers the TLS modes the
// throwaway runs (verify-full) do not.
func TestDemoExistingServer(t *testing.T) {
	needsTerraform(t)
	for engine, tls := range map[string]string{"postgres": "verify-ca", "mariadb": "require", "mysql": "verify-full"} {
		t.Run(engine, func(t *testing.T) {
			srv := testserver.SharedKind(t, engine) // the demo's ENGINE values are the harness's kinds
			if srv.CAPEM == "" {
				tls = srv.TLSMode() // a backend without our CA
			}
			cfg := Config{Engine: engine, Existing: &Existing{
				Host: srv.Host, Port: srv.Port, Admin: srv.Admin.Username, Password: srv.Admin.Password,
				TLS: tls, CAPEM: srv.CAPEM,
			}}
			res, out := runDemo(t, context.Background(), cfg)
			requirePass(t, res, out,
				"✓ connected to ",
				"✓ acme_wms, globex_crm, acme_app, globex_app, reporting do not exist yet",
				"✓ removed the demo's databases and logins from "+srv.Addr()+", removed the temp files")
			requireCleanedUp(t, res, false)
			requireNoDemoObjects(t, srv)
		})
	}
}

// TestDemoRefusesTakenNames: on a server it did not start, the demo stops
// before creating anything when one of its names is taken, and leaves what
// it found alone.
func TestDemoRefusesTakenNames(t *testing.T) {
	needsTerraform(t)
	srv := testserver.Shared(t, "mysql")
	srv.MustExec(t, "CREATE DATABASE globex_crm")
	defer srv.MustExec(t, "DROP DATABASE globex_crm")
	cfg := Config{Engine: "mariadb", Existing: &Existing{
		Host: srv.Host, Port: srv.Port, Admin: srv.Admin.Username, Password: srv.Admin.Password,
		TLS: srv.TLSMode(), CAPEM: srv.CAPEM,
	}}
	res, out := runDemo(t, context.Background(), cfg)
	if res.ExitCode != ExitFail || !strings.Contains(out, "✗ check the demo's names are free: globex_crm already on ") {
		t.Fatalf("exit %d; want %d and the taken name reported", res.ExitCode, ExitFail)
	}
	if strings.Contains(out, "terraform apply") || strings.Contains(out, "removed the demo's") {
		t.Error("the demo went on, or removed something, after finding a taken name")
	}
	requireCleanedUp(t, res, false)
	db, err := srv.SuperDB("")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'globex_crm'").Scan(&n); err != nil || n != 1 {
		t.Errorf("globex_crm is gone (count %d, %v)", n, err)
	}
	requireNoDemoObjects(t, srv, "globex_crm")
}

// requireNoDemoObjects fails if the server has any of the demo's databases
// or logins, except those in keep.
func requireNoDemoObjects(t *testing.T, srv *testserver.Server, keep ...string) {
	t.Helper()
	db, err := srv.SuperDB("")
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('acme_wms','globex_crm') " +
		"UNION ALL SELECT User FROM mysql.user WHERE User IN ('acme_app','globex_app','reporting')"
	if srv.Engine == enginePostgres {
		q = "SELECT datname FROM pg_database WHERE datname IN ('acme_wms','globex_crm') " +
			"UNION ALL SELECT rolname FROM pg_roles WHERE rolname IN ('acme_app','globex_app','reporting')"
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(" "+strings.Join(keep, " ")+" ", " "+name+" ") {
			t.Errorf("%s is still on the server", name)
		}
	}
}

// TestDemoInterrupted cancels the run while terraform apply runs (what
// Ctrl-C does through cmd/tenantdb-demo): the demo stops terraform, stops
// the server, removes its files and exits 130.
func TestDemoInterrupted(t *testing.T) {
	needsTerraform(t)
	if !testserver.EngineSelected("mariadb") || testserver.StandIn("mariadb") {
		// What is proven is the demo's own interrupt path, not a server's:
		// once, with the machine's MariaDB.
		t.Skipf("runs once, with the machine's MariaDB: %s=%q leaves it out", testserver.EnvEngines, os.Getenv(testserver.EnvEngines))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{Engine: "mariadb", beforeStep: func(step string) {
		if step == "apply" {
			time.AfterFunc(250*time.Millisecond, cancel)
		}
	}}
	res, out := runDemo(t, ctx, cfg)
	if res.ExitCode != ExitInterrupted || !strings.Contains(out, "✗ terraform apply: interrupted") ||
		!strings.Contains(out, "\nINTERRUPTED after ") {
		t.Fatalf("exit %d; want %d, the apply reported interrupted and the INTERRUPTED verdict", res.ExitCode, ExitInterrupted)
	}
	if !strings.Contains(out, "✓ stopped the server, removed the temp files") {
		t.Error("no cleanup line")
	}
	requireCleanedUp(t, res, true)
}

// TestDemoNoServer: with no server binaries, no Docker and no DEMO_HOST the
// demo stops at once, before building anything, with the install command.
func TestDemoNoServer(t *testing.T) {
	for _, engine := range []string{"postgres", "mariadb", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			var buf bytes.Buffer
			res := Run(context.Background(), Config{
				Engine:          engine,
				Out:             &buf,
				localBinaries:   func(flavor) (string, bool) { return "", false },
				dockerAvailable: func() bool { return false },
			})
			out := buf.String()
			t.Logf("output:\n%s", out)
			if res.ExitCode != ExitNoServer || res.TempDir != "" {
				t.Fatalf("exit %d, temp dir %q; want %d and nothing made", res.ExitCode, res.TempDir, ExitNoServer)
			}
			if !strings.HasPrefix(out, "✗ no server for the demo") || !strings.Contains(out, "DEMO_HOST=") {
				t.Error("no reason or no DEMO_HOST alternative")
			}
			f, _ := parseFlavor(engine)
			if cmd := installCommand(f); cmd != "" && !strings.Contains(out, "\n      "+cmd+"\n") {
				t.Errorf("the install command %q is not on a line of its own", cmd)
			}
			if ids := osRelease(); (ids["debian"] || ids["ubuntu"]) && f != flavorMySQL && !strings.Contains(installCommand(f), "apt-get install -y ") {
				t.Errorf("on Debian/Ubuntu the install command is %q", installCommand(f))
			}
			if f == flavorMySQL && (!strings.Contains(out, "from Docker") || !strings.Contains(out, installCommand(flavorMariaDB))) {
				t.Error("ENGINE=mysql without Docker does not say it needs Docker, or how to get MariaDB instead")
			}
		})
	}
}

func TestParsing(t *testing.T) {
	for v, want := range map[string]bool{"1.11.4": true, "1.12.0-beta1": true, "2.0.0": true, "1.10.5": false, "x": false} {
		if atLeast111(v) != want {
			t.Errorf("atLeast111(%q) = %v", v, !want)
		}
	}
	for version, want := range map[string]string{
		"15.18 (Debian 15.18-0+deb12u1)": "PostgreSQL 15.18",
		"10.11.14-MariaDB-0+deb12u2-log": "MariaDB 10.11.14",
		"8.4.3":                          "MySQL 8.4.3",
	} {
		engine := engineMySQL
		if strings.Contains(version, "Debian 15") {
			engine = enginePostgres
		}
		if got := (&target{engine: engine, version: version}).product(); got != want {
			t.Errorf("product(%q) = %q, want %q", version, got, want)
		}
	}
	if _, err := parseFlavor("oracle"); err == nil {
		t.Error("ENGINE=oracle accepted")
	}
}

// TestDemoTLSModesCheckTheCA: the demo's own connections refuse a server
// whose certificate another CA signed in verify-ca and verify-full, and
// accept it with the right CA.
func TestDemoTLSModesCheckTheCA(t *testing.T) {
	needsTerraform(t)
	srv := testserver.Shared(t, "postgres")
	if srv.CAPEM == "" {
		t.Skip("the server's backend has no CA of ours")
	}
	otherCA := testserver.UnrelatedCAPEM(t)
	for _, mode := range []string{"verify-ca", "verify-full"} {
		for _, c := range []struct {
			ca string
			ok bool
		}{{srv.CAPEM, true}, {otherCA, false}} {
			tgt := &target{engine: enginePostgres, host: srv.Host, port: srv.Port, tls: mode, caPEM: c.ca}
			db, err := tgt.open(context.Background(), login{srv.Admin.Username, srv.Admin.Password}, "")
			if err == nil {
				db.Close()
			}
			if (err == nil) != c.ok {
				t.Errorf("%s with the %s CA: err = %v", mode, map[bool]string{true: "server's", false: "wrong"}[c.ok], err)
			}
		}
	}
}
