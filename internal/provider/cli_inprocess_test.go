// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver"
)

// A terraform command of a CLI test starts the provider binary three to
// five times (schemas, validate, plan, apply: Terraform's choice), about
// 0.09 CPU s each: more than terraform's own work, and a seventh of the
// suite's CPU (TESTING.md, "Where the CPU goes, by process"). So a command
// reaches its provider through TF_REATTACH_PROVIDERS, as
// terraform-plugin-testing does, where the provider's own process proves
// nothing, and the provider starts once per command instead of once per
// phase (cliProviderFor decides):
//   - providerInProcess: a fresh provider served by the test binary, with
//     its own connection registry, for that one command, stopped when it
//     ends as terraform stops a plugin process; the provider main serves
//     (the same framework server behind the same releasingServer);
//   - providerReattached: the kill-point suite's binary (-tags
//     killpoints), started by the test in debug mode with the command's
//     environment, in the process group the suite kills, and killed when
//     the command ends: its statements are counted, and it is killed or
//     times out, in a process of its own, as before. Only the apply a
//     kill or timeout point interrupts runs it (interruptedApplyProvider):
//     its points are armed there alone, so the kill-point workspace's other
//     commands (the apply before, the applies after, the plans, the
//     destroy) are served in-process like any other's.
//
// A destroy (`destroy`, `-destroy`) is served in-process too, the
// provider told by the test that the command destroys, as the binary
// learns it from its parent process (terraform_command.go), whose reading
// TestAccPreflight_planRefuses proves through the binary.
//
// A command starts the binary as users run it (providerBinary) when what
// it proves lives in terraform's own plugin processes:
//   - logging (TF_LOG*, TF_ACC_LOG*): the provider's log must be in
//     terraform's, where the secrets tests search it; TF_CLI_ARGS* may
//     say -destroy;
//   - an environment of its own (anything but TF_VAR_ added to the
//     workspace's: an earlier provider's CLI configuration, a variable the
//     provider reads): an in-process provider reads the test binary's;
//   - a workspace that asked for it (inOwnProcess): a bastion's tunnels
//     live as long as the provider's process.
//
// TENANTDB_TEST_CLI_PROVIDER=process starts the binary for every command.

type cliProvider int

const (
	providerBinary cliProvider = iota
	providerInProcess
	providerReattached
)

// cliProviderFor says where the provider of a CLI test's terraform command
// with args runs: tags are the workspace's build tags, env its
// environment (base: the one it started with), testEnv the test binary's.
func cliProviderFor(tags string, ownProcess bool, args, base, env, testEnv []string) cliProvider {
	if ownProcess || os.Getenv("TENANTDB_TEST_CLI_PROVIDER") == "process" {
		return providerBinary
	}
	if len(args) == 0 {
		return providerBinary
	}
	for _, kv := range slices.Concat(env, testEnv) {
		if strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "TF_ACC_LOG") || strings.HasPrefix(kv, "TF_CLI_ARGS") {
			return providerBinary
		}
	}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TF_VAR_") && !slices.Contains(base, kv) {
			return providerBinary
		}
	}
	switch tags {
	case "", "killpoints":
		return providerInProcess
	}
	return providerBinary
}

// interruptedApplyProvider says where the provider of an apply that
// startApplyInGroup starts (and a kill or timeout point interrupts) runs:
// the kill-point binary reattached, where the workspace's other commands
// are served in-process; else the binary terraform starts (the
// killed-terraform tests kill terraform's own plugin processes).
func interruptedApplyProvider(tags string, ownProcess bool, base, env, testEnv []string) cliProvider {
	if tags == "killpoints" && cliProviderFor(tags, ownProcess, []string{"apply"}, base, env, testEnv) == providerInProcess {
		return providerReattached
	}
	return providerBinary
}

// commandDestroys reports whether terraform run with args (and env, its
// environment) plans a destroy, as the provider reads its parent's command
// line (destroyingArgs).
func commandDestroys(args, env []string) bool {
	return destroyingArgs(append([]string{"terraform"}, args...), func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v
			}
		}
		return ""
	})
}

// reattachNames are the addresses terraform and OpenTofu give the
// provider's source (cli_test.go overrides both).
var reattachNames = []string{Address, "registry.opentofu.org/tenantdb/tenantdb"}

// reattachEnv is the TF_REATTACH_PROVIDERS entry that sends terraform and
// OpenTofu to the provider entry describes.
func reattachEnv(entry any) (string, error) {
	providers := map[string]any{}
	for _, name := range reattachNames {
		providers[name] = entry
	}
	raw, err := json.Marshal(providers)
	return "TF_REATTACH_PROVIDERS=" + string(raw), err
}

// serveForCommand serves a fresh provider in the test binary for one
// terraform command, which destroys or not. It returns the TF_REATTACH_PROVIDERS entry that sends
// terraform to it and the func that stops it (and closes its connection
// registry) once the command has ended.
func serveForCommand(t *testing.T, destroys bool) (envEntry string, stop func()) {
	t.Helper()
	p := New("dev")().(*tenantdbProvider)
	p.destroying = func() bool { return destroys }
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(Address, func() tfprotov6.ProviderServer {
			return pluginserver.ReleaseRequests(providerserver.NewProtocol6(p)())
		},
			tf6server.WithDebug(ctx, reattach, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			// terraform-plugin-testing's sink: silent unless TF_LOG or
			// TF_ACC_LOG asks (and then the command keeps the binary).
			tf6server.WithLoggingSink(t),
			tf6server.WithoutLogStderrOverride(),
		)
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case err := <-served:
		cancel()
		t.Fatalf("serving the provider in-process: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("serving the provider in-process: no reattach configuration after 30 s")
	}
	type addr struct{ Network, String string }
	entry := struct {
		Protocol        string
		ProtocolVersion int
		Pid             int
		Test            bool
		Addr            addr
	}{string(cfg.Protocol), cfg.ProtocolVersion, cfg.Pid, cfg.Test, addr{cfg.Addr.Network(), cfg.Addr.String()}}
	env, err := reattachEnv(entry)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return env, func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(30 * time.Second):
			t.Errorf("the in-process provider did not stop within 30 s of its command's end")
		}
		p.registry.Close()
	}
}

// inOwnProcess makes every command of w start the provider binary (see
// cliProviderFor), and returns w.
func (w *cliWorkspace) inOwnProcess() *cliWorkspace {
	w.ownProcess = true
	return w
}
