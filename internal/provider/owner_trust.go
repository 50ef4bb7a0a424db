// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// rotationSuccessor is the refresh of an owner whose recorded login is gone
// because a username rotation of this resource finished (it dropped the
// old login) in an apply that was killed before Terraform saved state: the
// login that took over, proven this resource's by its mark (it names the
// recorded login as the one it took over from), becomes the state's
// username. The plan then shows a rotation back if the configuration still
// names the old login, and nothing if it names the new one. nil when there
// is no such login (the owner is gone: Read removes it as before).
// It returns the new login's state and name.
func rotationSuccessor(ctx context.Context, srv *dbclient.Server, t ownerTarget, recorded dbclient.Identity,
	state *tenantOwnerModel, diags *diag.Diagnostics) (*dbclient.OwnerState, ddl.Username) {
	succ, err := srv.RotationSuccessor(ctx, t.db, t.user, recorded)
	if err != nil || succ == nil {
		return nil, ddl.Username{}
	}
	st, err := srv.Owner(ctx, t.db, *succ)
	if err != nil || st == nil {
		return nil, ddl.Username{}
	}
	addWarning(diags, ddl.DriftDetected, fmt.Sprintf("login %q on server %q", t.user, t.ref.Name), fmt.Sprintf(
		"The login is gone: an apply of this resource that was interrupted before Terraform saved its state rotated "+
			"the owner of database %q to login %q (its mark names this login as the one it took over from) and dropped "+
			"this one. State now names %q; if the configuration still says %q, the plan rotates back to it.",
		t.db, succ.Quoted(), succ.Quoted(), t.user))
	state.Username = types.StringValue(succ.String())
	if h, _, _ := accountHost(state.Host); h.String() != succ.Host() {
		// A host change (issue 46) is a rotation to the same name.
		state.Host = types.StringValue(succ.Host())
	}
	state.ID = types.StringValue(loginID(t.ref, t.db.String(), succ.String(), state.Host))
	state.UserCreated = types.BoolValue(true)
	return st, *succ
}

// backToPending handles a rotation refused because the new name is a login
// this resource rotated out earlier and has not managed to drop yet
// (previous_username): a rotation always creates its new login, so that
// one must be gone first. It retries its drop; true when it is gone now
// (the caller rotates again). Otherwise err is replaced by a refusal that
// says what is really going on.
func (u *ownerUpdate) backToPending(ctx context.Context, err error) bool {
	var de *ddl.Error
	name := u.t.user.Account()
	if !errors.As(err, &de) || de.Reason != ddl.PreExistingOwnerUser || !u.pending.has(name) {
		return false
	}
	var drop diag.Diagnostics
	still := dropPendingLogins(ctx, u.srv, u.t, u.pending.only(name), false, &drop)
	if len(still) == 0 {
		u.pending = u.pending.without(name)
		return true
	}
	why := "the drop failed"
	for _, d := range drop.Errors() {
		why = d.Detail()
	}
	for _, d := range drop.Warnings() {
		why = d.Detail()
	}
	*de = *ddl.ErrRotationToPendingLogin(u.t.ref.Name, u.t.db, u.t.user, u.old.user, why)
	return false
}

// has reports whether name is pending.
func (l pendingLogins) has(name string) bool {
	return slices.ContainsFunc(l, func(p pendingLogin) bool { return p.Name == name })
}

// only is the list with name alone (nothing when it is not pending).
func (l pendingLogins) only(name string) pendingLogins {
	out := pendingLogins{}
	for _, p := range l {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}
