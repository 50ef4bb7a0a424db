// SPDX-License-Identifier: MPL-2.0

package provider

import "testing"

// TestCLIProviderFor pins where a CLI test command's provider runs: each
// case that starts the binary is a reason a proof needs terraform's own
// plugin processes.
func TestCLIProviderFor(t *testing.T) {
	t.Setenv("TENANTDB_TEST_CLI_PROVIDER", "")
	base := []string{"TF_CLI_CONFIG_FILE=/tmp/x/tf.rc", "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"}
	plus := func(kv ...string) []string { return append(append([]string{}, base...), kv...) }
	for _, c := range []struct {
		name       string
		tags       string
		ownProcess bool
		args       []string
		env        []string
		testEnv    []string
		want       cliProvider
	}{
		{name: "apply", args: []string{"apply", "-auto-approve"}, env: base, want: providerInProcess},
		{name: "plan", args: []string{"plan", "-detailed-exitcode"}, env: base, want: providerInProcess},
		{name: "variables only", args: []string{"apply"}, env: plus("TF_VAR_owner_password=x"), want: providerInProcess},
		{name: "kill-point workspace", tags: "killpoints", args: []string{"apply"}, env: base, want: providerInProcess},
		{name: "kill-point workspace, destroy", tags: "killpoints", args: []string{"destroy"}, env: base, want: providerInProcess},
		{name: "kill-point binary, its own environment", tags: "killpoints", args: []string{"apply"}, env: plus("TENANTDB_TEST_SSH_KEEPALIVE=200ms")},
		{name: "other tags", tags: "other", args: []string{"apply"}, env: base},
		{name: "asked for its own process", ownProcess: true, args: []string{"apply"}, env: base},
		{name: "destroy", args: []string{"destroy", "-auto-approve"}, env: base, want: providerInProcess},
		{name: "destroy plan", args: []string{"plan", "-destroy"}, env: base, want: providerInProcess},
		{name: "destroy asked for its own process", ownProcess: true, args: []string{"destroy"}, env: base},
		{name: "log asked in the command", args: []string{"apply"}, env: plus("TF_LOG=TRACE")},
		{name: "log asked by the test", args: []string{"apply"}, env: base, testEnv: []string{"TF_ACC_LOG=TRACE"}},
		{name: "arguments from the environment", args: []string{"apply"}, env: base, testEnv: []string{"TF_CLI_ARGS_apply=-destroy"}},
		{name: "another CLI configuration", args: []string{"apply"}, env: plus("TF_CLI_CONFIG_FILE=/tmp/old/tf.rc")},
		{name: "a variable the provider reads", args: []string{"apply"}, env: plus("PGSERVICE=x")},
		{name: "no arguments", env: base},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cliProviderFor(c.tags, c.ownProcess, c.args, base, c.env, c.testEnv); got != c.want {
				t.Errorf("cliProviderFor(%q, %v, %q, env %q, test env %q) = %v, want %v", c.tags, c.ownProcess, c.args, c.env, c.testEnv, got, c.want)
			}
		})
	}
}

// TestInterruptedApplyProvider pins which interrupted applies run the
// kill-point binary reattached (their points armed) and which the binary
// terraform starts.
func TestInterruptedApplyProvider(t *testing.T) {
	t.Setenv("TENANTDB_TEST_CLI_PROVIDER", "")
	base := []string{"TF_CLI_CONFIG_FILE=/tmp/x/tf.rc"}
	for _, c := range []struct {
		name       string
		tags       string
		ownProcess bool
		env        []string
		want       cliProvider
	}{
		{name: "kill-point workspace", tags: "killpoints", env: base, want: providerReattached},
		{name: "kill-point workspace in its own process", tags: "killpoints", ownProcess: true, env: base, want: providerBinary},
		{name: "kill-point workspace, its own environment", tags: "killpoints", env: append(append([]string{}, base...), "TENANTDB_TEST_SSH_KEEPALIVE=200ms"), want: providerBinary},
		{name: "plain workspace (terraform killed)", env: base, want: providerBinary},
	} {
		if got := interruptedApplyProvider(c.tags, c.ownProcess, base, c.env, nil); got != c.want {
			t.Errorf("%s: interruptedApplyProvider = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCommandDestroys pins what the in-process provider of a CLI command is
// told: whether the command destroys, read as the binary reads terraform's
// command line.
func TestCommandDestroys(t *testing.T) {
	for _, c := range []struct {
		args, env []string
		want      bool
	}{
		{args: []string{"destroy", "-auto-approve"}, want: true},
		{args: []string{"plan", "-destroy"}, want: true},
		{args: []string{"apply", "-destroy=true", "-auto-approve"}, want: true},
		{args: []string{"apply", "-auto-approve"}},
		{args: []string{"plan", "-detailed-exitcode"}},
		{args: []string{"apply"}, env: []string{"TF_CLI_ARGS_apply=-destroy"}, want: true},
		{args: []string{"apply"}, env: []string{"TF_CLI_ARGS_apply=-destroy", "TF_CLI_ARGS_apply="}},
		{args: []string{"import", "x", "y"}},
	} {
		if got := commandDestroys(c.args, c.env); got != c.want {
			t.Errorf("commandDestroys(%q, env %q) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}
