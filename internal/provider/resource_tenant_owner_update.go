// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// ownerUpdate is one Update of a tenant owner: what it started from, what
// it moves to, and what it has done so far. Update is a list of named
// steps; each checks whether it applies, runs, and on failure leaves state
// saying what is true on the server (state as it was, plus what earlier
// steps really did).
type ownerUpdate struct {
	r          *tenantOwnerResource
	req        resource.UpdateRequest
	resp       *resource.UpdateResponse
	plan       tenantOwnerModel
	state      tenantOwnerModel
	t, old     ownerTarget
	srv        *dbclient.Server
	recorded   dbclient.Identity // the current login's identity
	created    bool              // user_created of the current login
	pending    pendingLogins     // rotated-out logins whose drop is pending
	rotatedNow bool              // this update changed the username
}

func (r *tenantOwnerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	u, ok := r.startUpdate(ctx, req, resp)
	if !ok {
		return
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"check the server is still the same", u.checkServerMove},
		{"join the owner's role, as its import found needed", u.joinImportedOwnerRole},
		{"record the login in the ledger", u.recordEarlierLogin},
		{"revoke what a re-created database inherited", u.revokeOnRecreatedDatabase},
		{"rotate the username", u.rotateUsername},
		{"set the password", u.setPassword},
		{"discard the retained password", u.discardRetainedPassword},
		{"set the privileges", u.syncPrivileges},
		{"set the connection limit", u.setConnectionLimit},
		{"drop the old logins", u.dropPendingLogins},
	}
	for _, step := range steps {
		if err := step.run(ctx); err != nil {
			addError(&resp.Diagnostics, fmt.Sprintf("%s of login %q on database %q", step.name, u.t.user, u.t.db), err)
			u.saveAsIs(ctx)
			return
		}
	}
	u.save(ctx)
}

// startUpdate decodes, validates and connects.
func (r *tenantOwnerResource) startUpdate(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) (*ownerUpdate, bool) {
	u := &ownerUpdate{r: r, req: req, resp: resp}
	resp.Diagnostics.Append(decodeModel(ctx, req.Plan.Raw, &u.plan)...)
	resp.Diagnostics.Append(decodeModel(ctx, req.State.Raw, &u.state)...)
	var diags diag.Diagnostics
	u.recorded, diags = recordedIdentity(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return nil, false
	}
	u.pending, diags = readPendingLogins(ctx, req.Private, u.state.PreviousUsername)
	resp.Diagnostics.Append(diags...)
	u.t, diags = r.target(ctx, u.plan)
	resp.Diagnostics.Append(diags...)
	// State's privileges are what the server holds (drift may include
	// names outside the allowlist): only its address and names matter here.
	oldModel := u.state
	oldModel.Privileges = types.SetNull(types.StringType)
	u.old, diags = r.target(ctx, oldModel)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return nil, false
	}
	u.created = u.state.UserCreated.ValueBool()
	srv, err := r.data.connect(ctx, u.t.ref)
	if err != nil {
		addError(&resp.Diagnostics, fmt.Sprintf("connect to server %q", u.t.ref.Name), err)
		u.saveAsIs(ctx)
		return nil, false
	}
	u.srv = srv
	return u, true
}

// checkServerMove: a changed address must still lead to the recorded login.
func (u *ownerUpdate) checkServerMove(ctx context.Context) error {
	if u.t.ref.reach() == u.old.ref.reach() {
		return nil
	}
	c, err := u.srv.CheckLogin(ctx, u.t.user, u.recorded)
	if err == nil && (!c.Found || c.Verdict != dbclient.Same) {
		err = ddl.ErrIdentityMismatch(u.t.ref.Name, u.t.db, fmt.Sprintf("%s Login %q is not there with the recorded "+
			"identity.", moved(u.old.ref, u.t.ref), u.t.user))
	}
	return err
}

// joinImportedOwnerRole: the admin joins the role of an imported owner
// (PostgreSQL) in the first apply after the import, which only read that
// it must (import_join.go), before any statement that needs it.
func (u *ownerUpdate) joinImportedOwnerRole(ctx context.Context) error {
	diags, err := joinRecordedOwner(ctx, u.req.Private, u.resp.Private, u.old.db,
		func(ctx context.Context, db ddl.DatabaseName, owner ddl.Username) error {
			if owner != u.old.user {
				return nil
			}
			return u.srv.JoinOwnerRole(ctx, db, owner, u.recorded)
		})
	u.resp.Diagnostics.Append(diags...)
	return err
}

// recordEarlierLogin writes the ledger row of a login an earlier version
// made, as the refresh found needed (owner_ledger_pending.go).
func (u *ownerUpdate) recordEarlierLogin(ctx context.Context) error {
	if !ledgerPending(ctx, u.req.Private) {
		return nil
	}
	if err := u.srv.RecordEarlierLogin(ctx, u.old.db, u.old.user, u.old.privs, u.recorded); err != nil {
		return err
	}
	u.resp.Diagnostics.Append(recordLedgerPending(ctx, u.resp.Private, false)...)
	return nil
}

// rotateUsername: create-before-drop to the new name. The old login, when
// this resource created it and its drop fails, joins the pending logins.
func (u *ownerUpdate) rotateUsername(ctx context.Context) error {
	if u.t.user == u.old.user {
		return nil
	}
	pw, ok := ownerPassword(ctx, u.req.Config, &u.resp.Diagnostics)
	if !ok {
		return errPasswordUnknown
	}
	newID, dropErr, err := u.srv.RotateOwner(ctx, u.t.db, u.old.user, u.t.user, pw, u.t.privs, u.t.limit, u.recorded, u.created)
	if err != nil && u.backToPending(ctx, err) {
		newID, dropErr, err = u.srv.RotateOwner(ctx, u.t.db, u.old.user, u.t.user, pw, u.t.privs, u.t.limit, u.recorded, u.created)
	}
	if err != nil {
		return err
	}
	warnHostNeverMatches(&u.resp.Diagnostics, u.srv.Info(), u.t.user, fmt.Sprintf("Owner of database %q", u.t.db))
	oldID, oldCreated := u.recorded, u.created
	u.recorded, u.created, u.rotatedNow = newID, true, true
	if dropErr != nil && oldCreated {
		u.pending = u.pending.add(u.old.user.Account(), oldID)
		addPendingDropWarning(&u.resp.Diagnostics, u.old.user, u.t, dropErr)
	}
	return nil
}

// setPassword: a password_wo_version bump sets the current password once.
func (u *ownerUpdate) setPassword(ctx context.Context) error {
	if u.rotatedNow || u.plan.PasswordWOVersion.Equal(u.state.PasswordWOVersion) {
		return nil
	}
	pw, ok := ownerPassword(ctx, u.req.Config, &u.resp.Diagnostics)
	if !ok {
		return errPasswordUnknown
	}
	retain := u.plan.RetainPrevious.ValueBool() && ddl.RetainsCurrentPassword(u.srv.Info())
	if u.state.PreviousRetained.ValueBool() {
		// A second rotation while one is retained: MySQL keeps only one
		// old password; discard the older one first.
		if err := u.srv.DiscardOldOwnerPassword(ctx, u.t.db, u.t.user); err != nil {
			return err
		}
	}
	id, err := u.srv.SetOwnerPassword(ctx, u.t.db, u.t.user, pw, retain, u.recorded)
	if err != nil {
		return err
	}
	u.recorded = id
	u.plan.PreviousRetained = types.BoolValue(retain)
	return nil
}

// discardRetainedPassword: the apply after a retaining rotation ends the
// old password (MySQL 8.0.14+).
func (u *ownerUpdate) discardRetainedPassword(ctx context.Context) error {
	if u.rotatedNow || !u.plan.PasswordWOVersion.Equal(u.state.PasswordWOVersion) || !u.state.PreviousRetained.ValueBool() {
		return nil
	}
	if err := u.srv.DiscardOldOwnerPassword(ctx, u.t.db, u.t.user); err != nil {
		return err
	}
	u.plan.PreviousRetained = types.BoolValue(false)
	return nil
}

// syncPrivileges: desired state for the owner's privileges (a rotation
// grants the new login the declared set itself).
func (u *ownerUpdate) syncPrivileges(ctx context.Context) error {
	if u.rotatedNow || u.plan.Privileges.Equal(u.state.Privileges) {
		return nil
	}
	return u.srv.SyncOwnerPrivileges(ctx, u.t.db, u.t.user, u.t.privs, u.recorded, u.created)
}

// setConnectionLimit: desired state for the login's own connection limit
// (a rotation created the new login with the declared one). State holds
// what the server had at the refresh, so a DBA's change is restored.
func (u *ownerUpdate) setConnectionLimit(ctx context.Context) error {
	if u.rotatedNow || u.plan.ConnectionLimit.Equal(u.state.ConnectionLimit) {
		return nil
	}
	id, err := u.srv.SetOwnerConnectionLimit(ctx, u.t.db, u.t.user, u.t.limit, u.recorded)
	if err != nil {
		return err
	}
	u.recorded = id
	return nil
}

// dropPendingLogins retries the drop of every pending old login; a login
// still pending afterwards is a warning, not an error: the tenant works.
func (u *ownerUpdate) dropPendingLogins(ctx context.Context) error {
	keep := pendingLogins{}
	for _, p := range u.pending {
		if p.Name == u.t.user.Account() {
			// The current owner is never dropped, and is no longer a
			// rotated-out login (a rotation back to it, or a half-made
			// login the rotation just finished): it leaves the list, and
			// joins it again if a later rotation moves away from it.
			continue
		}
		keep = append(keep, dropPendingLogins(ctx, u.srv, u.t, pendingLogins{p}, false, &u.resp.Diagnostics)...)
	}
	u.pending = keep
	return nil
}

// save writes the new state: the plan, with what the steps decided.
func (u *ownerUpdate) save(ctx context.Context) {
	if u.plan.PreviousRetained.IsUnknown() {
		u.plan.PreviousRetained = types.BoolValue(false)
	}
	u.plan.UserCreated = types.BoolValue(u.created)
	u.plan.PreviousUsername = u.pending.value()
	u.resp.Diagnostics.Append(recordIdentity(ctx, u.resp.Private, u.recorded)...)
	u.resp.Diagnostics.Append(u.pending.record(ctx, u.resp.Private)...)
	u.resp.Diagnostics.Append(encodeModel(ctx, &u.plan, &u.resp.State.Raw)...)
}

// saveAsIs writes the old state after a failed step, with what the steps
// before it really did: a completed rotation is the new login in state
// (its handover committed), and every pending login stays recorded.
func (u *ownerUpdate) saveAsIs(ctx context.Context) {
	st := u.state
	if u.rotatedNow {
		st.Username = types.StringValue(u.t.user.String())
		st.Host = u.plan.Host
		st.ID = u.plan.ID
		st.PasswordWOVersion = u.plan.PasswordWOVersion
		st.UserCreated = types.BoolValue(true)
		st.ConnectionLimit = u.plan.ConnectionLimit // the new login was created with it
	}
	st.PreviousUsername = u.pending.value()
	u.resp.Diagnostics.Append(recordIdentity(ctx, u.resp.Private, u.recorded)...)
	u.resp.Diagnostics.Append(u.pending.record(ctx, u.resp.Private)...)
	u.resp.Diagnostics.Append(encodeModel(ctx, &st, &u.resp.State.Raw)...)
}

// errPasswordUnknown: ownerPassword has already reported why.
var errPasswordUnknown = fmt.Errorf("the password is not known (see the error above)")

// dropPendingLogins drops each pending login if it is still the recorded
// one and returns those still pending. A login that is gone, or no longer
// ours, leaves the list (the latter with a warning: it is never dropped).
// When destroying, so does one MySQL keeps because it defines objects
// (revoked and locked, with a warning): see addDefinerKeptWarning; on an
// update it stays pending, locked but not revoked (DropOldLogin).
func dropPendingLogins(ctx context.Context, srv *dbclient.Server, t ownerTarget, pending pendingLogins, destroying bool, diags *diag.Diagnostics) pendingLogins {
	still := pendingLogins{}
	for _, p := range pending {
		prev, err := ddl.ParseAccountKey(t.ref.engine(), p.Name)
		if err != nil {
			addError(diags, "read previous_username", err)
			still = append(still, p)
			continue
		}
		drop := srv.DropOldLogin
		if destroying {
			drop = srv.DropOwner
		}
		out, err := drop(ctx, t.db, prev, p.Identity, grantedByState(srv.Info(), t.privs, true))
		if k := definerKept(err); k != nil && destroying {
			addDefinerKeptWarning(diags, k)
			continue
		}
		if err != nil {
			addPendingDropWarning(diags, prev, t, err)
			still = append(still, p)
			continue
		}
		if out.Outcome == dbclient.NotOurs {
			addWarning(diags, ddl.DriftDetected, fmt.Sprintf("old login %q of the owner of database %q on server %q", prev, t.db, t.ref.Name),
				dbclient.MismatchWhy(out.Check.Verdict)+" It is no longer this resource's to drop and leaves previous_username; nothing was dropped.")
		}
	}
	return still
}
