// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cliWorkspace runs the real terraform CLI against the built provider
// binary (dev_overrides), as users do, in a directory of its own; where the
// provider's own processes prove nothing, terraform reaches the provider
// through TF_REATTACH_PROVIDERS instead (cliProviderFor,
// cli_inprocess_test.go). It exists
// for what terraform-plugin-testing cannot do: apply or destroy with
// -refresh=false, edit the state file between runs (state written by an
// earlier provider version), and read every diagnostic, warnings included,
// from terraform's machine-readable output.
type cliWorkspace struct {
	t   *testing.T
	dir string
	env []string
	// base is env as the workspace started; tags the provider's build
	// tags and bin its directory; ownProcess: every command starts the
	// provider binary. With them cliProviderFor decides where a command's
	// provider runs (cli_inprocess_test.go).
	base       []string
	tags       string
	bin        string
	ownProcess bool
}

// builtProvider is one provider binary per set of build tags, built once
// per test binary: the one users run (no tags), and the kill-point suite's
// (-tags killpoints).
type builtProvider struct {
	once sync.Once
	bin  string // the directory of terraform-provider-tenantdb
	env  []string
	err  error
}

var (
	builtProvidersMu sync.Mutex
	builtProviders   = map[string]*builtProvider{}
)

// newCLIWorkspace builds the provider once per test binary.
func newCLIWorkspace(t *testing.T) *cliWorkspace { return newCLIWorkspaceTagged(t, "") }

// newCLIWorkspaceTagged is newCLIWorkspace with a provider built with the
// given build tags.
func newCLIWorkspaceTagged(t *testing.T, tags string) *cliWorkspace {
	t.Helper()
	builtProvidersMu.Lock()
	b := builtProviders[tags]
	if b == nil {
		b = &builtProvider{}
		builtProviders[tags] = b
	}
	builtProvidersMu.Unlock()
	b.once.Do(func() { b.bin, b.env, b.err = buildProvider(tags) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return &cliWorkspace{t: t, dir: t.TempDir(), env: b.env, base: b.env, tags: tags, bin: b.bin}
}

// buildProvider builds the provider with tags and returns its directory and
// the environment that makes the CLI use it (dev_overrides). scripts/testacc.sh builds both
// once for all of its runs (TENANTDB_TEST_PROVIDER_BINS, from the same
// checkout): a go build is a link of several CPU seconds, and ten runs
// each built two.
func buildProvider(tags string) (string, []string, error) {
	dir, err := os.MkdirTemp("", "tenantdb-cli-")
	if err != nil {
		return "", nil, err
	}
	builtProvidersMu.Lock()
	cleanupDirs = append(cleanupDirs, dir)
	builtProvidersMu.Unlock()
	bin := filepath.Join(dir, "bin")
	if prebuilt := prebuiltProvider(tags); prebuilt != "" {
		bin = prebuilt
	} else {
		args := []string{"build", "-o", filepath.Join(bin, "terraform-provider-tenantdb")}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		if out, err := tryEnv("", os.Environ(), "go", append(args, "../..")...); err != nil {
			return "", nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	cli := filepath.Join(dir, "tf.rc")
	// source = "tenantdb/tenantdb" means registry.terraform.io/... to
	// terraform and registry.opentofu.org/... to OpenTofu: override both.
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/tenantdb/tenantdb\" = %q\n    \"registry.opentofu.org/tenantdb/tenantdb\" = %q\n  }\n  direct {}\n}\n", bin, bin)
	if err := os.WriteFile(cli, []byte(rc), 0o644); err != nil {
		return "", nil, err
	}
	return bin, []string{"TF_CLI_CONFIG_FILE=" + cli, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"}, nil
}

// prebuiltProvider is the directory of the provider built with tags ("" or
// "killpoints") that TENANTDB_TEST_PROVIDER_BINS holds
// (DIR/plain/terraform-provider-tenantdb, DIR/killpoints/...), or "" when
// it holds none.
func prebuiltProvider(tags string) string {
	root := os.Getenv("TENANTDB_TEST_PROVIDER_BINS")
	if root == "" {
		return ""
	}
	if tags == "" {
		tags = "plain"
	}
	dir := filepath.Join(root, tags)
	if _, err := os.Stat(filepath.Join(dir, "terraform-provider-tenantdb")); err != nil {
		return ""
	}
	return dir
}

// cliBinary is the CLI the acceptance tests run: TF_ACC_TERRAFORM_PATH
// when set (as terraform-plugin-testing reads it; OpenTofu in
// `make testacc-tofu`), else terraform on PATH.
func cliBinary() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

// cleanupDirs are removed when the test binary ends (TestMain).
var cleanupDirs []string

func (w *cliWorkspace) write(config string) {
	w.t.Helper()
	config = "terraform {\n  required_providers {\n    tenantdb = { source = \"tenantdb/tenantdb\" }\n  }\n}\n" + config
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(config), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// cliDiagnostic is one diagnostic from terraform's -json output.
type cliDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}

// cliResult is one terraform command: its raw output and its diagnostics.
type cliResult struct {
	Output      string
	Err         error
	Diagnostics []cliDiagnostic
}

// run runs terraform with args plus -json, and collects its diagnostics.
// Its provider runs where cliProviderFor says.
func (w *cliWorkspace) run(args ...string) cliResult {
	w.t.Helper()
	env := append(os.Environ(), w.env...)
	if cliProviderFor(w.tags, w.ownProcess, args, w.base, w.env, os.Environ()) == providerInProcess {
		reattach, stop := serveForCommand(w.t, commandDestroys(args, env))
		defer stop()
		env = append(env, reattach)
	}
	out, err := tryEnv(w.dir, env, cliBinary(), append(args, "-json")...)
	return cliResultOf(out, err)
}

// cliResultOf reads the diagnostics from terraform's -json output.
func cliResultOf(out string, err error) cliResult {
	res := cliResult{Output: out, Err: err}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type       string        `json:"type"`
			Diagnostic cliDiagnostic `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" {
			res.Diagnostics = append(res.Diagnostics, line.Diagnostic)
		}
	}
	return res
}

// mustSucceed fails the test when the command failed.
func (r cliResult) mustSucceed(t *testing.T, what string) cliResult {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("%s: %v\n%s", what, r.Err, r.Output)
	}
	return r
}

// mustFail fails the test when the command succeeded.
func (r cliResult) mustFail(t *testing.T, what string) cliResult {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("%s: succeeded, want an error\n%s", what, r.Output)
	}
	return r
}

// requireDiag fails unless a diagnostic of severity starts with prefix.
func (r cliResult) requireDiag(t *testing.T, severity, prefix string) cliDiagnostic {
	t.Helper()
	for _, d := range r.Diagnostics {
		if d.Severity == severity && strings.HasPrefix(d.Summary, prefix) {
			return d
		}
	}
	t.Fatalf("no %s diagnostic starting %q; got %+v\n%s", severity, prefix, r.Diagnostics, r.Output)
	return cliDiagnostic{}
}

// forbidDiag fails when any diagnostic's summary starts with prefix.
func (r cliResult) forbidDiag(t *testing.T, prefix string) {
	t.Helper()
	for _, d := range r.Diagnostics {
		if strings.HasPrefix(d.Summary, prefix) {
			t.Fatalf("unexpected diagnostic %q: %s", d.Summary, d.Detail)
		}
	}
}

// editState rewrites terraform.tfstate through fn (e.g. to make it look
// like state an earlier provider version wrote).
func (w *cliWorkspace) editState(fn func(state map[string]any)) {
	w.t.Helper()
	p := filepath.Join(w.dir, "terraform.tfstate")
	raw, err := os.ReadFile(p)
	if err != nil {
		w.t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		w.t.Fatal(err)
	}
	fn(st)
	st["serial"] = st["serial"].(float64) + 1
	out, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// instances returns every resource instance object of type typ in state.
func instances(state map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, r := range state["resources"].([]any) {
		res := r.(map[string]any)
		if res["type"] != typ {
			continue
		}
		for _, i := range res["instances"].([]any) {
			out = append(out, i.(map[string]any))
		}
	}
	return out
}

// stateAttr reads one attribute of the single instance of typ.
func (w *cliWorkspace) stateAttr(typ, attr string) any {
	w.t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
	if err != nil {
		w.t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		w.t.Fatal(err)
	}
	is := instances(st, typ)
	if len(is) != 1 {
		w.t.Fatalf("%d instances of %s in state, want 1", len(is), typ)
	}
	return is[0]["attributes"].(map[string]any)[attr]
}

// stateServer decodes the `server` string (a db_server's ref) of the
// single instance of typ.
func (w *cliWorkspace) stateServer(typ string) serverRef {
	w.t.Helper()
	raw, ok := w.stateAttr(typ, "server").(string)
	if !ok {
		w.t.Fatalf("%s.server in state is not a string: %v", typ, w.stateAttr(typ, "server"))
	}
	ref, err := parseRef([]byte(raw))
	if err != nil {
		w.t.Fatalf("%s.server in state is not a ref: %v", typ, err)
	}
	return ref
}

// stateHas reports whether the state holds an instance of typ (false when
// there is no state yet).
func (w *cliWorkspace) stateHas(typ string) bool {
	w.t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		w.t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		w.t.Fatal(err)
	}
	if st["resources"] == nil {
		return false
	}
	return len(instances(st, typ)) > 0
}

// state reads terraform.tfstate.
func (w *cliWorkspace) state() map[string]any {
	w.t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
	if err != nil {
		w.t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		w.t.Fatal(err)
	}
	return st
}

// stateText is terraform.tfstate as written.
func (w *cliWorkspace) stateText() string {
	w.t.Helper()
	raw, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(raw)
}
