// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// terraformCLI runs the real terraform CLI in the demo's working directory
// against the provider built from this checkout (dev_overrides), with an
// environment of its own: its CLI config, HOME and data dir are in the
// demo's temp dir, so nothing is read from or written to the user's home,
// and no TF_* variable of the caller's (TF_CLI_ARGS, TF_WORKSPACE, ...)
// changes what runs. (XDG_* go too, so that HOME is the only base for
// anything a terraform version might keep per user.)
type terraformCLI struct {
	dir string
	env []string
}

// providerAddress is the provider's registry address, as examples/demo
// requires it (source = "tenantdb/tenantdb").
const providerAddress = "registry.terraform.io/tenantdb/tenantdb"

// newTerraformCLI writes the CLI config pointing at binDir and returns a
// runner for workDir; HOME is an empty directory in tmp.
func newTerraformCLI(tmp, binDir, workDir string) (*terraformCLI, error) {
	rc := filepath.Join(tmp, "terraform.rc")
	// source = "tenantdb/tenantdb" is registry.terraform.io/... to
	// terraform and registry.opentofu.org/... to OpenTofu: override both.
	config := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n    %q = %q\n  }\n  direct {}\n}\n",
		providerAddress, binDir, "registry.opentofu.org/tenantdb/tenantdb", binDir)
	if err := os.WriteFile(rc, []byte(config), 0o644); err != nil {
		return nil, err
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_") || strings.HasPrefix(name, "XDG_") || name == "HOME" || name == "CHECKPOINT_DISABLE" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"TF_CLI_CONFIG_FILE="+rc,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
	)
	return &terraformCLI{dir: workDir, env: env}, nil
}

// tfDiagnostic is one diagnostic from terraform's -json output.
type tfDiagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}

// tfRun is what one terraform command did.
type tfRun struct {
	exitCode    int
	output      string
	diagnostics []tfDiagnostic
	changes     struct{ Add, Change, Remove int } // from the change_summary line
	planned     []string                          // "<action> <address>" from planned_change lines
}

// warning returns the first warning whose summary starts with prefix.
func (r tfRun) warning(prefix string) (tfDiagnostic, bool) {
	for _, d := range r.diagnostics {
		if d.Severity == "warning" && strings.HasPrefix(d.Summary, prefix) {
			return d, true
		}
	}
	return tfDiagnostic{}, false
}

// failure describes a failed run: its error diagnostics, or the end of
// its output when it printed none.
func (r tfRun) failure() error {
	var msgs []string
	for _, d := range r.diagnostics {
		if d.Severity != "error" {
			continue
		}
		m := d.Summary
		if first, _, _ := strings.Cut(strings.TrimSpace(d.Detail), "\n"); first != "" {
			m += ": " + first
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		lines := strings.Split(strings.TrimSpace(r.output), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		msgs = append(msgs, fmt.Sprintf("exit code %d: %s", r.exitCode, strings.Join(lines, "\n    ")))
	}
	return errors.New(strings.Join(msgs, "; "))
}

// run runs `terraform <args> -json` with vars as TF_VAR_ environment
// variables (never on the command line, where ps would show them). A
// non-zero exit is reported in tfRun.exitCode, not as an error; the error is
// for a terraform that could not run or was interrupted.
func (c *terraformCLI) run(ctx context.Context, vars map[string]string, args ...string) (tfRun, error) {
	cmd := exec.CommandContext(ctx, "terraform", append(args, "-json")...)
	cmd.Dir = c.dir
	cmd.Env = append([]string(nil), c.env...)
	for k, v := range vars {
		cmd.Env = append(cmd.Env, "TF_VAR_"+k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// terraform runs in its own process group, so a Ctrl-C at the terminal
	// reaches only the demo, which then interrupts terraform once, as a
	// user would: it stops at a safe point and saves its state.
	cmd.SysProcAttr = childProcAttr()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	res := tfRun{output: out.String()}
	parseTerraformJSON(&res, out.Bytes())
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.exitCode = exit.ExitCode()
	default:
		return res, err
	}
	return res, nil
}

func parseTerraformJSON(res *tfRun, out []byte) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line struct {
			Type       string       `json:"type"`
			Diagnostic tfDiagnostic `json:"diagnostic"`
			Changes    struct {
				Add    int `json:"add"`
				Change int `json:"change"`
				Remove int `json:"remove"`
			} `json:"changes"`
			Change struct {
				Resource struct {
					Addr string `json:"addr"`
				} `json:"resource"`
				Action string `json:"action"`
			} `json:"change"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Type {
		case "diagnostic":
			res.diagnostics = append(res.diagnostics, line.Diagnostic)
		case "change_summary":
			res.changes.Add, res.changes.Change, res.changes.Remove = line.Changes.Add, line.Changes.Change, line.Changes.Remove
		case "planned_change":
			res.planned = append(res.planned, line.Change.Action+" "+line.Change.Resource.Addr)
		}
	}
}

// terraformVersion returns the version of the terraform on PATH.
func terraformVersion(ctx context.Context) (string, error) {
	path, err := exec.LookPath("terraform")
	if err != nil {
		return "", errors.New("terraform is not on PATH")
	}
	cmd := exec.CommandContext(ctx, path, "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE="+os.DevNull)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w", path, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		return "", fmt.Errorf("%s version -json printed no version", path)
	}
	return v.Version, nil
}

// atLeast111 tells whether a terraform version ("1.11.4", "1.12.0-beta1")
// has write-only arguments.
func atLeast111(v string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || (major == 1 && minor >= 11)
}
