// SPDX-License-Identifier: MPL-2.0

package provider

import "testing"

func TestDestroyingArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{[]string{"terraform", "destroy", "-auto-approve"}, nil, true},
		{[]string{"/usr/bin/terraform", "-chdir=infra", "destroy"}, nil, true},
		{[]string{"terraform", "plan", "-destroy", "-out=tfplan"}, nil, true},
		{[]string{"tofu", "apply", "--destroy=true"}, nil, true},
		{[]string{"terraform", "apply", "-auto-approve"}, map[string]string{"TF_CLI_ARGS_apply": "-destroy"}, true},
		{[]string{"terraform", "plan"}, map[string]string{"TF_CLI_ARGS": "-destroy -input=false"}, true},
		{[]string{"terraform", "plan"}, map[string]string{"TF_CLI_ARGS_apply": "-destroy"}, false},
		{[]string{"terraform", "plan", "-out=destroy"}, nil, false},
		{[]string{"terraform", "apply", "destroy.tfplan"}, nil, false},
		{[]string{"terraform", "plan", "-destroy=false"}, nil, false},
		{[]string{"go", "test", "-run", "destroy"}, nil, false},
		{nil, nil, false},
	} {
		getenv := func(k string) string { return c.env[k] }
		if got := destroyingArgs(c.args, getenv); got != c.want {
			t.Errorf("destroyingArgs(%q, %v) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}
