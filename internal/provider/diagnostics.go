// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// addError reports err: a refusal keeps its reason word first in the
// summary; any other error is reported under what was being done. Errors
// from ddl and dbclient never carry secrets.
func addError(diags *diag.Diagnostics, doing string, err error) {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		diags.AddError(refusal.Summary(), refusal.Detail()+"\n\n(while trying to "+doing+")")
		return
	}
	diags.AddError(fmt.Sprintf("Could not %s", doing), err.Error())
}

func addAttributeError(diags *diag.Diagnostics, p path.Path, err error) {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		diags.AddAttributeError(p, refusal.Summary(), refusal.Detail())
		return
	}
	diags.AddAttributeError(p, "Invalid value", err.Error())
}

// warningPhrases are the fixed summaries of the pinned warnings. Terraform
// folds warnings with one summary into a single block ("and 499 more
// similar warnings"), so the object goes in the detail, never the summary:
// destroying 500 retained tenants prints one warning, not 500.
var warningPhrases = map[ddl.Reason]string{
	ddl.DatabaseRetained:    "the database stays on the server",
	ddl.DatabaseDropSkipped: "the database was not dropped",
	ddl.DriftDetected:       "the server no longer matches state",
}

// addWarning adds a pinned warning: "<Reason>: <fixed phrase>", with the
// object named first in the detail.
func addWarning(diags *diag.Diagnostics, reason ddl.Reason, object, detail string) {
	diags.AddWarning(fmt.Sprintf("%s: %s", reason, warningPhrases[reason]), fmt.Sprintf("%s: %s", object, detail))
}

// addImmutableRefusal is the immutable plan modifier's refusal
// (plan_modifiers.go): the attribute, the old and the new value.
func addImmutableRefusal(diags *diag.Diagnostics, p path.Path, what string, from, to fmt.Stringer) {
	diags.AddAttributeError(p, fmt.Sprintf("%s: %s", ddl.ImmutableAttribute, what),
		fmt.Sprintf("The plan changes %s from %s to %s. Renaming or moving a tenant is a migration, not an edit: "+
			"tenantdb neither renames nor replaces it (a replace could drop data). Put the old value back; to migrate, "+
			"create the new object alongside, move the data, then remove the old resource.",
			what, from, to))
}

// addImmutableAttributeError refuses a planned change of what (an
// attribute, the same words for every object) with the object named first
// in the detail.
func addImmutableAttributeError(diags *diag.Diagnostics, p path.Path, what, object, detail string) {
	diags.AddAttributeError(p, fmt.Sprintf("%s: %s", ddl.ImmutableAttribute, what), object+": "+detail)
}

// Fixed summaries of the diagnostics that are not refusals (a refusal's
// summary is its reason word and phrase, from internal/ddl). Terraform
// folds warnings with one summary into a single block ("and 499 more
// similar warnings"), so a summary never names the object: the helpers
// below put it first in the detail. Pinned in diagnostics_test.go; tests
// and users match on them.
const (
	summaryRefresh          = "Could not refresh: kept as last read"
	summaryBastionUnproven  = "SSH bastion host key not proven"
	summaryImportNotFound   = "Cannot import: not found on the server"
	summaryLoginNotDropped  = "Login was not dropped: it is not the recorded one"
	summaryGrantNotRevoked  = "Grant not revoked: its database or principal is not the recorded one"
	summaryNeverGrantedKept = "Privileges tenantdb never granted were left"
	summaryIdentityRecorded = "Identity recorded: database_created is now false"
	summaryOldLoginPending  = "Old owner login not dropped yet"
	summaryOldLoginsLeft    = "Could not drop every old login"
	summaryInvalidImportID  = "Invalid import ID"
	summaryUnescapedGrant   = "DriftDetected: an old unescaped grant on the database name remains"
	summarySettingsUnknown  = "Server settings are not known"
	summaryAdminTooStrong   = "Admin login holds more rights than tenantdb needs"
	summaryConfigureType    = "Unexpected Resource Configure Type"
	summaryMarkPlanned      = "Identity: this apply gives an imported database its claim mark"
	summaryLedgerPlanned    = "Identity: this apply records an owner login in the ledger"
	summaryCommentReplaced  = "Identity: the database's comment was replaced by its claim mark"
	summaryDefinerKept      = "Owner login kept: MySQL refuses to drop a definer"
	// A tenant's CONNECTION LIMIT kept the admin out of its database
	// during an offboarding, and tenantdb lifted it (offboarding.go).
	summaryConnectionLimitReset = "Connection limit reset: it kept the admin out of the database"
	summaryImportedKept         = "Imported owner login kept: its privileges on the database were revoked"
	summaryImportedStillOwns    = "Imported owner login kept: it still owns the database"
	summaryRanPastTimeout       = "Ran past operation_timeout: a DROP DATABASE is never stopped part way"
	// What a tenant set on its database that an offboarding or a declared
	// delete reset, and what it left alone in another tenant's database.
	summaryFlagReset       = "Database flag reset to offboard or delete"
	summaryOffboardSkipped = "Offboarding left something in another database"
	summaryOffboardRemoved = "Offboarding removed the login's holdings in another database"
	// An account host that is a name pattern on a server that skips name
	// resolution (account_host.go).
	summaryHostNeverMatches = "Host name never matches: the server skips name resolution"
)

// addRefreshWarning: Read could not reach the server (or has no password
// for it); what state says is kept, never dropped.
//
// A bastion whose host key its pins do not accept is the one exception: an
// identity not proven is an error at plan and refresh as at apply, so a
// changed bastion never passes as "No changes" in a drift check.
func addRefreshWarning(diags *diag.Diagnostics, object, kept string, err error) {
	if dbclient.IsHostKeyRefusal(err) {
		diags.AddError(summaryBastionUnproven, fmt.Sprintf("%s: %v\n\nNothing was read or changed; state is kept as last read.", object, err))
		return
	}
	diags.AddWarning(summaryRefresh, fmt.Sprintf("%s: %s\n\n%v", object, kept, err))
}

// addDatabaseInvalidWarning: a refresh found the PostgreSQL database
// marked invalid (a DROP DATABASE stopped part way): its data is gone,
// and the warning gives the statement that finishes it. State is kept;
// every change but the database's drop is refused (DatabaseInvalid).
func addDatabaseInvalidWarning(diags *diag.Diagnostics, object string, db ddl.DatabaseName) {
	addWarning(diags, ddl.DriftDetected, object, ddl.DatabaseInvalidWhy(db)+"\n\nState is kept as last read; every "+
		"change but the database's drop is refused (DatabaseInvalid) until it is gone.")
}

// addRanPastTimeoutWarning: a DROP DATABASE was running at the
// operation's deadline and was let finish (dbclient/session/uncancellable.go); the
// detail names it first and says how long it ran.
func addRanPastTimeoutWarning(diags *diag.Diagnostics, o dbclient.Overrun, limit time.Duration) {
	diags.AddWarning(summaryRanPastTimeout, fmt.Sprintf("%s (operation_timeout %s).", o, limit))
}

// addHostNeverMatchesWarning: user's host is a name pattern and the
// server skips name resolution (account_host.go).
func addHostNeverMatchesWarning(diags *diag.Diagnostics, object string, user ddl.Username) {
	diags.AddWarning(summaryHostNeverMatches, fmt.Sprintf("%s: account %s has a host name pattern, but the server runs with "+
		"skip_name_resolve on: it compares clients' addresses only, so no client will ever log in as this account. Write an "+
		"IP address, an address pattern or a netmask as host (10.20.%%, 10.20.0.0/255.255.0.0), or turn name resolution "+
		"on in the server's configuration (skip_name_resolve = OFF; it needs a restart).", object, user.Quoted()))
}

// addAdminOverPrivilegedWarning: the admin is a superuser or holds SUPER or
// ALL, which README says it must not; it works, so it is not refused.
func addAdminOverPrivilegedWarning(diags *diag.Diagnostics, server, detail string) {
	diags.AddWarning(summaryAdminTooStrong, fmt.Sprintf("Server %q: %s", server, detail))
}

// addConnectionLimitResetWarning: an offboarding lifted a database's
// CONNECTION LIMIT that kept the admin out (offboarding.go).
func addConnectionLimitResetWarning(diags *diag.Diagnostics, object string, limit int) {
	diags.AddWarning(summaryConnectionLimitReset, fmt.Sprintf("%s: its CONNECTION LIMIT was %d, which its sessions had "+
		"reached, so the admin could not connect to offboard the tenant. tenantdb set it to -1 (no limit). If the database "+
		"should keep a limit, set it again (ALTER DATABASE ... CONNECTION LIMIT).", object, limit))
}

// addFlagResetWarning: a flag the tenant set on its database (PostgreSQL's
// ALLOW_CONNECTIONS false, IS_TEMPLATE true) kept an offboarding or a
// declared delete from its work and was reset for it.
func addFlagResetWarning(diags *diag.Diagnostics, object, flag string) {
	diags.AddWarning(summaryFlagReset, fmt.Sprintf("%s: the tenant's setting kept tenantdb from its work, so it was reset "+
		"(%s) for this destroy. Set it again by hand if the database should keep it.", object, flag))
}

// addOffboardRemovedWarning: an offboarding removed what the locked-out
// login held in another database (what says which database and what).
func addOffboardRemovedWarning(diags *diag.Diagnostics, object, what string) {
	diags.AddWarning(summaryOffboardRemoved, fmt.Sprintf("%s: %s. Nothing a tenant makes or is given outside its database "+
		"stops its offboarding.", object, what))
}

// addOffboardSkippedWarning: an offboarding skipped a database it could
// not read or change (another tenant's, closed), saying which.
func addOffboardSkippedWarning(diags *diag.Diagnostics, object, what string) {
	diags.AddWarning(summaryOffboardSkipped, fmt.Sprintf("%s: %s.", object, what))
}

// addImportNotFoundError: an import names an object the server does not
// have.
func addImportNotFoundError(diags *diag.Diagnostics, object, detail string) {
	diags.AddError(summaryImportNotFound, object+": "+detail)
}

// addLoginNotDroppedWarning: destroy found another login under the owner's
// name and dropped nothing.
func addLoginNotDroppedWarning(diags *diag.Diagnostics, user ddl.Username, why string) {
	diags.AddWarning(summaryLoginNotDropped, fmt.Sprintf("Login %q: %s", user, why))
}

// addImportedLoginKeptWarning: an imported owner's destroy revoked what
// it held on its database and left the login.
func addImportedLoginKeptWarning(diags *diag.Diagnostics, user ddl.Username, why string) {
	diags.AddWarning(summaryImportedKept, fmt.Sprintf("Login %q: %s", user, why))
}

// addImportedOwnerStillOwnsWarning: an imported PostgreSQL owner's destroy
// changes nothing on the server; the login keeps the database it owns.
func addImportedOwnerStillOwnsWarning(diags *diag.Diagnostics, server string, user ddl.Username, db ddl.DatabaseName) {
	diags.AddWarning(summaryImportedStillOwns, fmt.Sprintf("Login %q: it was imported (user_created = false), so this "+
		"destroy changed nothing on server %q: the login keeps owning database %q and everything in it, and what it "+
		"granted there stays. To hand the database to the admin (then drop the login if nothing else needs it), "+
		"as the admin:\n\n  %s\n\nREASSIGN OWNED also hands over any other database the login owns.",
		user, server, db, ddl.ImportedOwnerHandBack(db, user)))
}

// addGrantNotRevokedWarning: destroy found another database or principal
// under the grant's names and revoked nothing.
func addGrantNotRevokedWarning(diags *diag.Diagnostics, object, why string) {
	diags.AddWarning(summaryGrantNotRevoked, fmt.Sprintf("%s: %s Nothing was revoked; the grant is removed from state. "+
		"Revoke by hand whatever that principal should not hold.", object, why))
}

// addNeverGrantedKeptWarning: a revoke tenantdb ran on its own (a destroy,
// an offboarding) took only what it had granted (the ledger's record,
// dbclient ledger_grants.go); what else the account holds on the
// database's name (a DBA's GRANT on the same row) is named, never touched.
func addNeverGrantedKeptWarning(diags *diag.Diagnostics, object string, own dbclient.RevokedOwn, info ddl.ServerInfo, db ddl.DatabaseName, user ddl.Username) {
	if len(own.Left) == 0 {
		return
	}
	diags.AddWarning(summaryNeverGrantedKept, fmt.Sprintf("%s: %q still holds %s on database %q, which tenantdb never "+
		"granted (a DBA's or another tool's GRANT on the same account): it was left as it is. If it should go too:\n\n  %s",
		object, user, privilegeNames(own.Left), db, own.LeftText(info, db, user)))
}

// privilegeNames lists privileges for a diagnostic.
func privilegeNames(ps []ddl.Privilege) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// addIdentityRecordedWarning: state from before identities; the database
// is treated as imported from now on.
func addIdentityRecordedWarning(diags *diag.Diagnostics, object string) {
	diags.AddWarning(summaryIdentityRecorded, fmt.Sprintf("%s: this state was written by a tenantdb version that "+
		"recorded no identity, and nothing proves the database on the server is the one this resource created. It is "+
		"treated as imported from now on: destroy never drops it. Drop it by hand when it is really no longer needed.", object))
}

// addOldLoginPendingWarning: a rotated-out login could not be dropped yet.
func addOldLoginPendingWarning(diags *diag.Diagnostics, old ddl.Username, t ownerTarget, err error) {
	diags.AddWarning(summaryOldLoginPending,
		fmt.Sprintf("Old login %q of the owner of database %q on server %q: dropping it failed, so it stays recorded in "+
			"previous_username and the next apply (or destroy) retries the drop. Until then it keeps its password; on "+
			"MySQL/MariaDB it keeps its privileges on the database, on PostgreSQL the database and everything it owned "+
			"there already belong to login %q, so it can no longer reach the tenant's data.\n\n%v", old, t.db, t.ref.Name, t.user, err))
}

// addOldLoginsLeftError: destroy could not drop every rotated-out login.
func addOldLoginsLeftError(diags *diag.Diagnostics, logins string, db ddl.DatabaseName) {
	diags.AddError(summaryOldLoginsLeft,
		fmt.Sprintf("Old login(s) %s of the owner of database %q stay in state (previous_username); destroy again "+
			"once the cause above is fixed.", logins, db))
}

// addInvalidImportIDError: an import ID that is not the documented JSON.
func addInvalidImportIDError(diags *diag.Diagnostics, detail string) {
	diags.AddError(summaryInvalidImportID, detail)
}

// addSettingsUnknownError: the server's settings must be known at apply.
func addSettingsUnknownError(diags *diag.Diagnostics, detail string) {
	diags.AddError(summarySettingsUnknown, detail)
}

// configuredData is a resource's Configure: the provider's data, or nil
// (with an error) when the provider handed something else. Nil provider
// data (validation before the provider is configured) is no error.
func configuredData(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	d, ok := data.(*providerData)
	if !ok {
		diags.AddError(summaryConfigureType,
			fmt.Sprintf("Expected *providerData, got: %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return d
}

// addUnescapedGrantWarning: beside the login's grant on the escaped
// database name (tenantdb's), MySQL/MariaDB hold an old grant on the name
// written unescaped (by hand, or petoju/mysql), which tenantdb does not
// manage: revoke names the statements that remove it.
func addUnescapedGrantWarning(diags *diag.Diagnostics, object, revoke string) {
	diags.AddWarning(summaryUnescapedGrant, fmt.Sprintf("%s: the server also holds an older grant on the database "+
		"name written without escaping its wildcards (each _ in it matches any character, so it also reaches "+
		"databases whose names differ there). tenantdb manages only the escaped grant, so this one survives every "+
		"change and the destroy of this resource. Remove it, as an account with the GRANT OPTION on it (the admin "+
		"or a superuser), with:\n  %s", object, strings.ReplaceAll(strings.TrimSpace(revoke), "\n", "\n  ")))
}

// addMarkPlannedWarning: the plan of a MariaDB database that carries no
// claim mark (imported) updates it in place to write one, so that another
// server's database of that name is never taken for it. The plan says so,
// and says which comment the mark replaces.
func addMarkPlannedWarning(diags *diag.Diagnostics, object, comment string) {
	was := "it has no comment"
	if comment != "" {
		was = fmt.Sprintf("this replaces its comment %q", comment)
	}
	diags.AddWarning(summaryMarkPlanned, fmt.Sprintf("%s: it was imported and carries no claim mark, so nothing tells it "+
		"from another server's database of the same name. This apply writes a random claim mark as its comment "+
		"(ALTER DATABASE … COMMENT 'tenantdb:…'; %s) and records it; nothing else changes, and a plan never writes it.", object, was))
}

// addLedgerPlannedWarning: the plan of a MySQL owner login an earlier
// version made updates it in place to record it in the ledger (PROOFS.md).
func addLedgerPlannedWarning(diags *diag.Diagnostics, object string) {
	diags.AddWarning(summaryLedgerPlanned, fmt.Sprintf("%s: it was made by an earlier tenantdb, which identified it by "+
		"its ATTRIBUTE alone (any MySQL login may rewrite its own). This apply records it in tenantdb's ledger "+
		"(%s.claims, only the admin writes it), while its ATTRIBUTE still names the claim recorded in state; nothing "+
		"else changes, and a plan never writes it.", object, ddl.LedgerDatabase))
}

// addMySQLMarkPlannedWarning is addMarkPlannedWarning for MySQL, whose
// mark is a procedure in the database (ddl/claim_mark_mysql.go).
func addMySQLMarkPlannedWarning(diags *diag.Diagnostics, object string) {
	diags.AddWarning(summaryMarkPlanned, fmt.Sprintf("%s: it carries no claim mark (it was imported, or recorded by a "+
		"tenantdb version before marks), so nothing tells it from a database of the same name made again after a drop. "+
		"This apply creates tenantdb's mark in it, an empty procedure owned by the admin login (CREATE PROCEDURE "+
		"… %s…() … BEGIN END), and records it; nothing else changes, and a plan never writes it. The tenant sees the "+
		"procedure; if it drops it, tenantdb will never drop or alter the database (destroy still revokes).",
		object, ddl.MySQLMarkPrefix))
}

// addCommentReplacedWarning: the mark replaced a comment someone wrote.
func addCommentReplacedWarning(diags *diag.Diagnostics, object, comment string) {
	diags.AddWarning(summaryCommentReplaced, fmt.Sprintf("%s: its comment %q was replaced by tenantdb's claim mark, "+
		"which is now what identifies it. Keep annotations elsewhere: an edited comment leaves the database unproven "+
		"(nothing is altered or dropped until the mark is restored).", object, comment))
}

// addDefinerKeptWarning: destroy left the owner login (or a rotated-out
// one) on the server, revoked and locked, and removes it from state:
// failing instead would keep it in state forever and, under
// deletion_policy = "delete", block the destroy of the database whose
// DROP is what removes the objects it defines.
func addDefinerKeptWarning(diags *diag.Diagnostics, k *dbclient.DefinerKept) {
	diags.AddWarning(summaryDefinerKept, fmt.Sprintf("Login %q of database %q on server %q: MySQL refuses to drop it "+
		"(error 4006) because it is the DEFINER of:\n%s\n\nIt was kept: every privilege it held on database %q was "+
		"revoked and the account locked (ACCOUNT LOCK), so it can neither log in nor reach the tenant's data. The "+
		"resource is removed from state. %s\n\nOnce it defines nothing (DROP DATABASE removes what it defines in the "+
		"tenant's database: under deletion_policy = \"delete\" the database's destroy does; objects elsewhere must be "+
		"dropped or re-created by another login), drop it as the admin:\n\n  %s\n\nA DBA holding those rights may "+
		"also drop it now. Either way, those of its objects that run with their definer's rights (SQL SECURITY "+
		"DEFINER, the default) fail when used until re-created by another login.",
		k.User, k.DB, k.Server, k.ObjectList(), k.DB, definerDropRights, ddl.DropUserStatement(k.User)))
}

// addDefinerPendingWarning: a rotation's drop of the old login met the
// same refusal; the old login stays pending (previous_username), locked
// but holding its privileges (a rotation must not break the tenant's
// definer-rights views and triggers), and every apply retries its drop.
func addDefinerPendingWarning(diags *diag.Diagnostics, k *dbclient.DefinerKept, t ownerTarget) {
	diags.AddWarning(summaryDefinerKept, fmt.Sprintf("Old login %q of the owner of database %q on server %q: MySQL "+
		"refuses to drop it (error 4006) because it is the DEFINER of:\n%s\n\nIt stays in previous_username and every "+
		"apply retries the drop (a destroy revokes what it holds, keeps it locked and removes it from state). "+
		"Meanwhile the account is locked (ACCOUNT LOCK): its password no longer logs in, while it keeps its "+
		"privileges on database %q so that those of the objects above that run with their definer's rights (SQL "+
		"SECURITY DEFINER, the default) keep working. Re-create them as the new owner %q, connected as "+
		"it (CREATE OR REPLACE VIEW with the same definition; DROP and CREATE again each routine, trigger and event); "+
		"the next apply then drops the old login. %s A DBA holding them may instead drop it:\n\n  %s",
		k.User, k.DB, k.Server, k.ObjectList(), k.DB, t.user, definerDropRights, ddl.DropUserStatement(k.User)))
}

// Summaries of the plan-time preflight's diagnostics (preflight.go): the
// object is in the detail, so Terraform folds a plan's into one block.
const (
	summaryPreflightSkipped = "Plan-time checks skipped: the server could not be reached"
	summaryPreflightFailed  = "Plan-time checks failed: the server refused the admin's connection"
	// A write-only password the server's policy would reject.
	summaryPasswordPolicy = "The server's password policy would reject the password"
	// A grant's principal missing at plan: a warning (the same apply may
	// create it), an error at apply.
	summaryGrantPrincipalMissing = "GrantUserMissing: the principal does not exist yet"
)

// addPreflightSkippedWarning: the plan could not check object's create
// (the server not reachable, no admin password); the plan goes on.
func addPreflightSkippedWarning(diags *diag.Diagnostics, object, detail string) {
	diags.AddWarning(summaryPreflightSkipped, object+": "+detail)
}

// addPreflightConnectError: the plan reached the server and it said no (a
// login rejected, TLS, an unsupported version, a bastion's host key): the
// apply would fail the same way.
func addPreflightConnectError(diags *diag.Diagnostics, object string, err error) {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		addError(diags, fmt.Sprintf("check %s at plan time (the apply would fail the same way)", object), err)
		return
	}
	diags.AddError(summaryPreflightFailed, fmt.Sprintf("%s: %v\n\nThe apply would fail the same way: fix the server's "+
		"settings or the admin's credentials first.", object, err))
}

// addPreflightFinding adds what a preflight check found: a refusal as the
// apply would report it (its reason word first), any other read failure
// as a warning (the plan goes on; the apply checks).
func addPreflightFinding(diags *diag.Diagnostics, doing string, err error) {
	if err == nil {
		return
	}
	var refusal *ddl.Error
	if errors.As(err, &refusal) && refusal.Reason != ddl.PrimaryUnavailable {
		diags.AddError(refusal.Summary(), refusal.Detail()+"\n\n(found at plan time, while checking "+doing+
			"; nothing was created, and the apply checks again)")
		return
	}
	addPreflightSkippedWarning(diags, doing, fmt.Sprintf("%v\n\nThe apply checks everything again before it changes anything.", err))
}

// addGrantPrincipalMissingWarning: at plan, a grant's principal does not
// exist (yet).
func addGrantPrincipalMissingWarning(diags *diag.Diagnostics, object string, refusal *ddl.Error) {
	diags.AddWarning(summaryGrantPrincipalMissing, fmt.Sprintf("%s: %s\n\nThe plan goes on: the same apply may create it "+
		"through another resource. If it still does not exist when the grant is applied, the apply refuses the grant "+
		"(%s) and changes nothing.\n\n%s", object, refusal.Why, refusal.Reason, refusal.Fix))
}
