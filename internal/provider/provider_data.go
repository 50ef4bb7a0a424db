// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"fmt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"os"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// providerData is what Configure hands every resource: the process-wide
// connection registry and the admin passwords. It is never written to state.
type providerData struct {
	registry  *dbclient.Registry
	passwords map[string]string // by server name; from admin_passwords
	unknown   bool              // admin_passwords was not known at configure time
}

// AdminPasswordEnv is the environment fallback for a server's admin password.
func AdminPasswordEnv(server string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(server) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return "TENANTDB_ADMIN_PASSWORD_" + b.String()
}

// adminPassword finds the admin password of a server, or explains both ways
// to supply it. The error never contains a password.
func (d *providerData) adminPassword(server string) (ddl.Password, error) {
	if pw, ok := d.passwords[server]; ok && pw != "" {
		return ddl.NewPassword(pw)
	}
	env := AdminPasswordEnv(server)
	if pw := os.Getenv(env); pw != "" {
		return ddl.NewPassword(pw)
	}
	if d.unknown {
		return ddl.Password{}, fmt.Errorf("the admin password of server %q is not known yet: admin_passwords depends on values known only after apply; "+
			"use a variable or an ephemeral resource, or set %s", server, env)
	}
	return ddl.Password{}, fmt.Errorf("no admin password for server %q: set admin_passwords = { %s = ... } in the provider block, "+
		"or the environment variable %s", server, hclKey(server), env)
}

func hclKey(s string) string {
	if strings.ContainsAny(s, "-") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// connect returns the pooled server for a ref, detecting flavor/version
// (UnsupportedServer) on first use in this process.
func (d *providerData) connect(ctx context.Context, ref serverRef) (*dbclient.Server, error) {
	spec, err := ref.spec()
	if err != nil {
		return nil, err
	}
	pw, err := d.adminPassword(ref.Name)
	if err != nil {
		return nil, err
	}
	spec.Password = pw
	return d.registry.Server(ctx, spec)
}

// connectOrReport is connect for CRUD: a failure becomes an error diagnostic.
func (d *providerData) connectOrReport(ctx context.Context, ref serverRef, diags *diag.Diagnostics) (*dbclient.Server, bool) {
	srv, err := d.connect(ctx, ref)
	if err != nil {
		addError(diags, fmt.Sprintf("connect to server %q", ref.Name), err)
		return nil, false
	}
	return srv, true
}
