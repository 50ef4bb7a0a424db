// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The plan-time preflight: `terraform plan` of a create (and of a new or
// moved tenantdb_db_server) reads what the apply's first checks read and
// reports the same refusals, so a pull request's plan shows a taken name
// before the merge. It is a preview: the apply checks everything again.
// The checks themselves are dbclient's (tenant/preflight.go); this file
// decides when a plan connects and how a failure to connect is reported.

// preflightConn is one server's plan-time connection in this provider
// process, tried once: a plan of 500 creates on an unreachable server
// waits for one connection's retries, not 500.
type preflightConn struct {
	once sync.Once
	srv  *dbclient.Server
	err  error
}

// preflightServer returns the server to check object's create against at
// plan time, or false when the plan checks nothing:
//   - a destroy (the normal plan Terraform runs before a destroy plan must
//     not fail over a create: terraform_command.go): silently;
//   - settings not known yet (a server from a resource not yet created,
//     an admin password or CA from a value known only after apply):
//     silently, the apply checks;
//   - no admin password given at all: a warning, as a refresh gives;
//   - the server not reachable (refused, unavailable after the retries, a
//     host name that does not resolve yet): a warning, since it may be by
//     the apply;
//   - the server reached and saying no (the admin's login rejected, TLS
//     verification, the other engine's port, an unsupported version, a
//     bastion's host key, a hop that accepted and never answered): an
//     error, since the apply would fail the same way.
func (d *providerData) preflightServer(ctx context.Context, ref serverRef, object string, diags *diag.Diagnostics) (*dbclient.Server, bool) {
	if d == nil || d.registry == nil || !d.preflightKnown(ref) || d.terraformDestroys() {
		return nil, false
	}
	if !ref.Auth.IAM() {
		if _, _, err := d.adminPassword(ref.Name); err != nil {
			// As a refresh does: a warning, the plan goes on.
			addPreflightSkippedWarning(diags, object, fmt.Sprintf("%v\n\nThe plan could not check what the apply "+
				"would refuse; the apply needs the password too.", err))
			return nil, false
		}
	}
	v, _ := d.preflights.LoadOrStore(ref.encode(), &preflightConn{})
	c, _ := v.(*preflightConn) // only preflightConns are stored
	c.once.Do(func() { c.srv, c.err = d.connect(ctx, ref) })
	switch {
	case c.err == nil:
		return c.srv, true
	case dbclient.IsUnreachable(c.err):
		addPreflightSkippedWarning(diags, object, fmt.Sprintf("%v\n\nThe plan could not check what the apply would "+
			"refuse; the apply connects again and checks everything before it changes anything.", c.err))
	default:
		addPreflightConnectError(diags, object, c.err)
	}
	return nil, false
}

// preflightKnown reports whether everything a connection to ref needs is
// known at plan time: an admin password (or a cloud IAM login) and, for
// verify-ca/verify-full, the CA. A value known only after apply skips the
// preflight silently; a password missing altogether is a warning
// (preflightServer).
func (d *providerData) preflightKnown(ref serverRef) bool {
	if !ref.Auth.IAM() {
		if _, _, err := d.adminPassword(ref.Name); err != nil && d.unknown {
			return false
		}
	}
	if verifies(ref.TLS) {
		if _, known := d.caCert(ref.Name); !known {
			return false
		}
	}
	return true
}

// preflightDatabase checks a planned tenant database create.
func (d *providerData) preflightDatabase(ctx context.Context, ref serverRef, plan tenantDatabaseModel, diags *diag.Diagnostics) {
	if plan.Name.IsUnknown() {
		return
	}
	db, err := ddl.NewDatabaseName(ref.engine(), plan.Name.ValueString())
	if err != nil {
		return // refused by the plan's own rules
	}
	cs, co, err := charsetAndCollation(plan)
	if err != nil {
		return
	}
	object := fmt.Sprintf("the create of database %q on server %q", db, ref.Name)
	srv, ok := d.preflightServer(ctx, ref, object, diags)
	if !ok {
		return
	}
	if err := ddl.CheckNameCase(srv.Info(), ref.Name, db); err != nil {
		addPreflightFinding(diags, object, err)
		return
	}
	addPreflightFinding(diags, object, srv.PreflightDatabase(ctx, db, cs, co))
}

// preflightOwner checks a planned owner create.
func (d *providerData) preflightOwner(ctx context.Context, t ownerTarget, diags *diag.Diagnostics) {
	if t.db.IsZero() || t.user.IsZero() {
		return
	}
	object := fmt.Sprintf("the create of owner login %q for database %q on server %q", t.user, t.db, t.ref.Name)
	srv, ok := d.preflightServer(ctx, t.ref, object, diags)
	if !ok {
		return
	}
	addPreflightFinding(diags, object, srv.PreflightOwner(ctx, t.db, t.user))
}

// preflightGrant checks a planned grant create. A missing principal is a
// warning here (the same apply may create it through another resource)
// and stays an error at apply.
func (d *providerData) preflightGrant(ctx context.Context, t grantTarget, diags *diag.Diagnostics) {
	if t.db.IsZero() || t.user.IsZero() {
		return
	}
	object := fmt.Sprintf("the grant on database %q to %q on server %q", t.db, t.user, t.ref.Name)
	srv, ok := d.preflightServer(ctx, t.ref, object, diags)
	if !ok {
		return
	}
	missing, err := srv.PreflightGrant(ctx, t.user)
	addPreflightFinding(diags, object, err)
	var refusal *ddl.Error
	if errors.As(missing, &refusal) {
		addGrantPrincipalMissingWarning(diags, object, refusal)
	}
}

// preflightAdmin tests a new (or newly reached) server at plan time as its
// create will: the version (UnsupportedServer), TLS and the admin's login
// when connecting, then the admin's rights (MissingAdminRights with the
// statements that grant them; the over-privileged warning).
func (d *providerData) preflightAdmin(ctx context.Context, ref serverRef, diags *diag.Diagnostics) {
	object := fmt.Sprintf("server %q", ref.Name)
	srv, ok := d.preflightServer(ctx, ref, object, diags)
	if !ok {
		return
	}
	excess, err := srv.CheckAdminRights(ctx)
	if err != nil {
		addPreflightFinding(diags, object, err)
		return
	}
	if !excess.Empty() {
		addAdminOverPrivilegedWarning(diags, ref.Name, excess.Detail(ddl.AdminAccount{User: ref.Username}))
	}
}

// preflightPassword checks the write-only password a create or rotation
// sets against the server's password policy, as far as its variables
// allow (dbclient's PreflightPassword): never sent, never quoted.
func (d *providerData) preflightPassword(ctx context.Context, t ownerTarget, cfg tfsdk.Config, diags *diag.Diagnostics) {
	if t.user.IsZero() || t.ref.engine() == ddl.EnginePostgres {
		return
	}
	var raw types.String
	if cfg.GetAttribute(ctx, path.Root("password_wo"), &raw).HasError() || raw.IsNull() || raw.IsUnknown() {
		return
	}
	pw, err := ddl.NewPassword(raw.ValueString())
	if err != nil {
		return // the apply's own validation reports it
	}
	object := fmt.Sprintf("the password of owner login %q on server %q", t.user, t.ref.Name)
	srv, ok := d.preflightServer(ctx, t.ref, object, diags)
	if !ok {
		return
	}
	err = srv.PreflightPassword(ctx, t.user, pw)
	var policy *ddl.PasswordPolicyError
	if errors.As(err, &policy) {
		diags.AddAttributeError(path.Root("password_wo"), summaryPasswordPolicy, policy.Error())
		return
	}
	addPreflightFinding(diags, object, err)
}
