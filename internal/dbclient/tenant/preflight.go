// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The preflight is what `terraform plan` learns of a create's refusals
// before anything is made: the refusals the apply's first checks would
// make (ClaimDatabase, ClaimOwner, CreateGrant), from reads only. It is a
// preview, never a guard: the apply checks everything again under the
// tenant's lock, since the server may change between plan and apply.
//
// It reports a refusal only when the apply would certainly make it; where
// the apply's verdict needs more than the plan can know (a login whose
// mark may prove it this resource's own interrupted create), it says
// nothing and leaves the verdict to the apply.
//
// Cost: the catalog and logins snapshots the refresh already uses (one
// query each per server and provider process, whatever the number of
// creates) and one read per distinct pair of database settings on
// MySQL/MariaDB. A refusal's own detail may read more: the plan fails then
// anyway. A process that has written (an apply walk, which plans each
// resource again right before applying it) checks nothing: the operation's
// own checks follow at once.

// PreflightDatabase reports what ClaimDatabase would refuse: a database of
// that name (DatabasePreExists, as the failed CREATE DATABASE would) or,
// on MySQL/MariaDB, settings the server does not know.
func (s *Server) PreflightDatabase(ctx context.Context, db ddl.DatabaseName, cs ddl.Charset, co ddl.Collation) error {
	if s.proof.Wrote() {
		return nil
	}
	d, err := s.proof.Database(ctx, db)
	if err != nil {
		return err
	}
	if d != nil {
		return ddl.ErrDatabasePreExists(s.spec.Name, s.spec.Engine, db)
	}
	return s.preflightSettings(ctx, cs, co)
}

// preflightSettings asks a MySQL/MariaDB server, once per pair and process,
// whether CREATE DATABASE would take cs and co (ddl.MySQLSettingsProbe).
// PostgreSQL: the encoding is checked against the server's list at
// validate time already; whether a locale is installed only CREATE
// DATABASE can tell (pg_collation lists what initdb found, not what was
// installed since), so the plan does not guess.
func (s *Server) preflightSettings(ctx context.Context, cs ddl.Charset, co ddl.Collation) error {
	if s.info.Flavor == ddl.FlavorPostgres || (cs.IsZero() && co.IsZero()) {
		return nil
	}
	key := [2]string{cs.String(), co.String()}
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	if verdict, ok := s.settingsChecked[key]; ok {
		return verdict
	}
	_, err := s.proof.QueryStrings(ctx, "", ddl.MySQLSettingsProbe(cs, co))
	var verdict error
	switch session.CodeOf(err) {
	case "mysql:1115":
		verdict = ddl.ErrSettingUnknown(s.spec.Name, "character set", cs.String(), "1115")
	case "mysql:1273":
		verdict = ddl.ErrSettingUnknown(s.spec.Name, "collation", co.String(), "1273")
	case "mysql:1253":
		if !cs.IsZero() {
			verdict = ddl.ErrCollationOfOtherCharset(s.spec.Name, cs, co)
		}
	default:
		if err != nil {
			return err // not a verdict: not remembered
		}
	}
	if s.settingsChecked == nil {
		s.settingsChecked = map[[2]string]error{}
	}
	s.settingsChecked[key] = verdict
	return verdict
}

// PreflightOwner reports what ClaimOwner would refuse, in its order: a
// host form the server cannot take, another owner of an existing database
// (OwnerConflict), and an existing login (PreExistingOwnerUser, a kept
// definer on MySQL) unless its mark is an unfinished create of this
// database, which the apply may prove its own and finish.
func (s *Server) PreflightOwner(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	if s.proof.Wrote() {
		return nil
	}
	if err := ddl.CheckAccountHost(s.info, user.AccountHost()); err != nil {
		return err
	}
	d, err := s.proof.Database(ctx, db)
	if err != nil {
		return err
	}
	// A database the same apply creates has no owner yet; one held by the
	// admin, its keeper or this login is what checkOwnerConflict accepts,
	// known here without its own read.
	held := d == nil || (s.info.Flavor == ddl.FlavorPostgres &&
		(d.Owner == s.spec.Username || d.Owner == user.String() || ddl.IsKeeperOf(db, d.Owner)))
	if !held {
		if err := s.checkOwnerConflict(ctx, db, user); err != nil {
			return err
		}
	}
	_, _, found, err := s.proof.LoginIdentityHint(ctx, user, true)
	if err != nil || !found {
		return err
	}
	if err := s.proof.DefinerNameRefusal(ctx, db, user); err != nil {
		return err
	}
	mark, marked, err := s.proof.LoginMark(ctx, user)
	switch {
	case err != nil:
		return err
	case marked && !mark.Finished && mark.Database == db:
		return nil // perhaps this resource's interrupted create: the apply decides
	case marked && mark.Finished:
		return ddl.ErrFinishedOwnerExists(s.spec.Name, db, user, mark.Database)
	}
	return ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, db, user)
}

// PreflightGrant reports what CreateGrant would refuse of a new grant: a
// host form the server cannot take (err), and a principal that does not
// exist (missing: GrantUserMissing, which the plan reports as a warning,
// since the same apply may create the principal through another resource).
func (s *Server) PreflightGrant(ctx context.Context, user ddl.Username) (missing, err error) {
	if s.proof.Wrote() {
		return nil, nil
	}
	if err := ddl.CheckAccountHost(s.info, user.AccountHost()); err != nil {
		return nil, err
	}
	_, _, found, err := s.proof.LoginIdentityHint(ctx, user, true)
	if err != nil || found {
		return nil, err
	}
	return ddl.ErrGrantUserMissing(s.spec.Name, user), nil
}

// PreflightPassword reports a password the server's validation plugin
// would certainly reject (MySQL's validate_password, MariaDB's
// simple_password_check: ddl.PasswordPolicy), judged against the server's
// variables, read once per process; the password is never sent at plan
// time. PostgreSQL has no policy a read can see (passwordcheck, where
// loaded, has no settings, and never sees the SCRAM verifier tenantdb
// sends): the apply sets it.
func (s *Server) PreflightPassword(ctx context.Context, user ddl.Username, pw ddl.Password) error {
	if s.info.Flavor == ddl.FlavorPostgres || s.proof.Wrote() {
		return nil
	}
	s.policyMu.Lock()
	defer s.policyMu.Unlock()
	if s.policy == nil {
		settings, err := s.sess.PasswordPolicySettings(ctx)
		if err != nil {
			return err
		}
		p := ddl.ParsePasswordPolicy(settings)
		s.policy = &p
	}
	if unmet := s.policy.Unmet(pw); len(unmet) > 0 {
		return s.policy.ErrPasswordPolicy(s.spec.Name, user, unmet)
	}
	return nil
}
