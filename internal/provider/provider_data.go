// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// providerData is what Configure hands every resource: the process-wide
// connection registry, the admin passwords and the CA certificates. It is
// never written to state.
type providerData struct {
	registry  *dbclient.Registry
	passwords map[string]string // by server name; from admin_passwords
	unknown   bool              // admin_passwords was not known at configure time
	caCerts   map[string]string // PEM by server name; from ca_certs
	// caUnknown: ca_certs was not known at configure time; caUnknownNames:
	// these entries were not.
	caUnknown      bool
	caUnknownNames []string
	// clientCerts: client_certs by server name (client_certs.go).
	clientCerts clientCertNames
	// bastions: ssh_bastions by server name (bastion.go).
	bastions *bastionLogins
	// proxies: socks5_proxies by server name (socks5.go).
	proxies serverEntries
	// lockTimeout bounds every statement's wait for a lock (0: the default).
	lockTimeout time.Duration
	// operationTimeout bounds each create, read, update and delete (0: the
	// default, operation_timeout.go).
	operationTimeout time.Duration
	// shallowGrantRefresh: postgres_grant_refresh = "database".
	shallowGrantRefresh bool
	// grantServerFor replaces connect for tenantdb_tenant_grant when set
	// (unit tests: a fake server); nil in the provider.
	grantServerFor func(ctx context.Context, ref serverRef) (grantServer, error)
	// preflights: each server's plan-time connection, tried once per
	// process (preflight.go).
	preflights sync.Map
	// destroying: the provider's (tenantdbProvider.destroying).
	destroying func() bool
}

// grantServer is what tenantdb_tenant_grant calls on a server: every
// operation checks the recorded identities itself. *dbclient.Server
// satisfies it; unit tests use a fake to drive Read's drift handling
// without a server.
type grantServer interface {
	Info() ddl.ServerInfo
	CreateGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet) (dbclient.GrantIdentity, error)
	ReadGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (dbclient.GrantState, error)
	UpdateGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, desired ddl.PrivilegeSet, recorded dbclient.GrantIdentity) error
	RevokeGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded dbclient.GrantIdentity) (dbclient.GrantRevoke, error)
	UnescapedGrant(ctx context.Context, db ddl.DatabaseName, user ddl.Username) (string, error)
	DatabaseOwnerToJoin(ctx context.Context, db ddl.DatabaseName) (string, error)
	JoinDatabaseOwner(ctx context.Context, db ddl.DatabaseName, owner ddl.Username) error
	CheckIdentity(ctx context.Context, db ddl.DatabaseName, recorded dbclient.Identity) (dbclient.Check, error)
	inheritedLister
}

var _ grantServer = (*dbclient.Server)(nil)

// caCert is the PEM the provider's ca_certs gives server ("" for none: the
// system roots); known is false while ca_certs (or its entry) is unknown.
func (d *providerData) caCert(server string) (pem string, known bool) {
	if d == nil {
		return "", false
	}
	if pem, ok := d.caCerts[server]; ok {
		return pem, true
	}
	return "", !d.caUnknown && !slices.Contains(d.caUnknownNames, server)
}

// AdminPasswordEnv is the environment fallback for a server's admin
// password: TENANTDB_ADMIN_PASSWORD_ and the name upper-cased. A name with
// '-' has none (""): "a-b" and "a_b" would both read
// TENANTDB_ADMIN_PASSWORD_A_B, so one server's password could be sent to the
// other's host. On valid server names (^[a-z][a-z0-9_-]{0,62}$) the mapping
// is therefore injective: upper-casing [a-z0-9_] loses nothing, and no two
// names share a variable. Anything else (not a server name) has none either.
func AdminPasswordEnv(server string) string {
	if _, err := ddl.NewServerName(server); err != nil || strings.Contains(server, "-") {
		return ""
	}
	return adminPasswordEnvPrefix + strings.ToUpper(server)
}

const adminPasswordEnvPrefix = "TENANTDB_ADMIN_PASSWORD_"

// adminPassword finds the admin password of a server and says where it
// came from, or explains the ways to supply it. The error never contains a
// password.
func (d *providerData) adminPassword(server string) (ddl.Password, string, error) {
	if pw, ok := d.passwords[server]; ok && pw != "" {
		p, err := ddl.NewPassword(pw)
		return p, fmt.Sprintf("the provider's admin_passwords[%q]", server), err
	}
	env := AdminPasswordEnv(server)
	if env != "" {
		if pw := os.Getenv(env); pw != "" {
			p, err := ddl.NewPassword(pw)
			return p, "the environment variable " + env, err
		}
	}
	if d.unknown {
		how := "use a variable or an ephemeral resource"
		if env != "" {
			how += ", or set " + env
		}
		return ddl.Password{}, "", fmt.Errorf("the admin password of server %q is not known yet: admin_passwords depends on values known only after apply; %s", server, how)
	}
	if env == "" {
		return ddl.Password{}, "", fmt.Errorf("no admin password for server %q: set admin_passwords = { %s = ... } in the provider block "+
			"(for example from a variable: TF_VAR_<name> in the environment). A server name containing '-' has no "+
			"environment fallback, because %s%s would also be the variable of server %q",
			server, hclKey(server), adminPasswordEnvPrefix, strings.ToUpper(strings.ReplaceAll(server, "-", "_")),
			strings.ReplaceAll(server, "-", "_"))
	}
	return ddl.Password{}, "", fmt.Errorf("no admin password for server %q: set admin_passwords = { %s = ... } in the provider block, "+
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
	source := "a login token (auth = " + string(ref.Auth.Method) + ")"
	if ref.Auth.IAM() {
		if err := d.refuseStoredPassword(ref.Name, ref.Auth); err != nil {
			return nil, err
		}
	} else if spec.Password, source, err = d.adminPassword(ref.Name); err != nil {
		return nil, err
	}
	spec.LockTimeout = d.lockTimeout
	spec.ShallowGrantRefresh = d.shallowGrantRefresh
	if verifies(ref.TLS) {
		ca, known := d.caCert(ref.Name)
		if !known {
			return nil, fmt.Errorf("the CA of server %q is not known yet: the provider's ca_certs depends on values "+
				"known only after apply; give it from a file or a variable", ref.Name)
		}
		spec.CAPEM = ca
	}
	if err := d.withClientCert(&spec, ref.Name); err != nil {
		return nil, err
	}
	if err := d.withBastion(&spec, ref); err != nil {
		return nil, err
	}
	if err := d.withProxy(&spec, ref); err != nil {
		return nil, err
	}
	srv, err := d.registry.Server(ctx, spec)
	if err != nil && dbclient.IsLoginRejected(err) {
		err = fmt.Errorf("%w\n\nThe server rejected the admin login %q. Its password came from %s: check that value "+
			"(and that the login exists, with a host pattern that lets this machine in)%s", err, ref.Username, source,
			clientCertHint(spec.ClientCert))
	}
	return srv, err
}

// connectGrant is connect for tenantdb_tenant_grant.
func (d *providerData) connectGrant(ctx context.Context, ref serverRef) (grantServer, error) {
	if d != nil && d.grantServerFor != nil {
		return d.grantServerFor(ctx, ref)
	}
	srv, err := d.connect(ctx, ref)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return srv, nil
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
