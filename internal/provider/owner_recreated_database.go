// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// An owner's database re-created outside Terraform (MySQL/MariaDB): the
// owner login's privilege rows are kept for the database's name, so the new
// database is the login's too. The owner records the identity of its
// database (private state, key ownerDatabaseKey) when it is created,
// imported or first refreshed, so that a refresh can show those rows in the
// plan, its apply revoke them (and grant nothing on the new database), and
// a destroy that does not drop the login revoke them as well.
// dbclient/proof/recreated_database.go has the server side.

// ownerDatabaseKey keeps, in an owner's private state, the identity of the
// database it was made for (MySQL/MariaDB).
const ownerDatabaseKey = "d"

// recordOwnerDatabase records the identity of the database the owner was
// just created on (read directly: the database may be minutes old).
func recordOwnerDatabase(ctx context.Context, srv *dbclient.Server, db ddl.DatabaseName, p privateWriter) diag.Diagnostics {
	if srv.Info().Flavor == ddl.FlavorPostgres {
		return nil
	}
	c, err := srv.CheckIdentity(ctx, db, "")
	if err != nil || !c.Found {
		return nil // the next refresh records it
	}
	return recordPrivate(ctx, p, ownerDatabaseKey, c.Identity)
}

// readOwnerDatabase is the owner's refresh of its database's identity.
// With no identity recorded yet (an import, or state from before) it
// records the database there now. A database positively another one
// (Replaced: a tenantdb_tenant_database's claim mark, the configuration
// re-created it after a drop) is recorded as the owner's own, and so is a
// MariaDB database whose comment is a claim mark. One whose mark is gone
// or no longer counted is Unproven (a missing proof is never a
// replacement): the owner stays in state with its rows, nothing is
// granted or revoked until it is proven, and a warning says so.
func readOwnerDatabase(ctx context.Context, srv *dbclient.Server, t ownerTarget,
	req privateReader, resp privateWriter, object string, diags *diag.Diagnostics) {
	if srv.Info().Flavor == ddl.FlavorPostgres {
		return
	}
	recorded, d := ownerDatabaseIdentity(ctx, req)
	diags.Append(d...)
	dbState, current, err := srv.DatabaseWithIdentity(ctx, t.db)
	if err != nil || dbState == nil || d.HasError() {
		return // a read error is the next refresh's; a gone database keeps what was recorded
	}
	v := dbclient.Compare(recorded, current)
	mariaMark := v == dbclient.Unproven && current.Strong() && srv.Info().Flavor == ddl.FlavorMariaDB
	switch {
	case recorded == "" || v == dbclient.Replaced || mariaMark || (recorded.NeedsMark() && current.Strong()):
		// Nothing recorded yet, or a database a tenantdb_tenant_database
		// made (its claim mark: the configuration re-created it after a
		// drop): its own. A tenant can write a mark's form only on its own
		// database, which this already is. Recorded without a mark
		// (imported with it) and marked since (the database's first
		// apply): the mark is its identity from now on, or a later
		// re-creation would read the same as the unmarked import.
		diags.Append(recordPrivate(ctx, resp, ownerDatabaseKey, current)...)
	case v == dbclient.Unproven:
		addWarning(diags, ddl.DriftDetected, object, dbclient.MismatchWhyFor(recorded, v)+
			" The owner stays in state and keeps its rows on the database; nothing is granted or revoked until the "+
			"database's mark is given back (the tenantdb_tenant_database's warning gives the statement) or the tenant "+
			"is imported again, and a destroy revokes what it holds.")
	}
}

// revokeOnRecreatedDatabase is the owner's update step for a database
// re-created under its name: revoke the rows the new database inherited,
// then refuse (IdentityMismatch) instead of granting on it.
func (u *ownerUpdate) revokeOnRecreatedDatabase(ctx context.Context) error {
	recorded, d := ownerDatabaseIdentity(ctx, u.req.Private)
	if d.HasError() || recorded == "" {
		return nil
	}
	if u.srv.Info().Flavor == ddl.FlavorPostgres {
		return nil
	}
	// Only a database shown to be another one (Replaced): an Unproven one
	// (a MariaDB comment edited in place) keeps the tenant's access.
	c, err := u.srv.CheckIdentity(ctx, u.t.db, recorded)
	if err != nil || !c.Found || c.Verdict != dbclient.Replaced {
		return err
	}
	own, err := u.srv.RevokeOnRecreatedDatabase(ctx, u.t.db, u.old.user, recorded, u.recorded,
		grantedByState(u.srv.Info(), u.old.privs, u.created))
	if err != nil {
		return err
	}
	// Only this owner's own account's rows were revoked; every other
	// account's (a DBA's, another tenant's, a dependent grant's) is named
	// for the user to judge (inherited_rows.go).
	return nameOthers(ctx, u.srv, u.srv.Info(), u.t.db, recorded, u.old.user,
		ddl.ErrRecreatedDatabaseRevoked(u.t.ref.Name, u.srv.Info(), u.t.db, u.old.user, "owner", own.Revoked, own.Left))
}

func ownerDatabaseIdentity(ctx context.Context, p privateReader) (dbclient.Identity, diag.Diagnostics) {
	return privateIdentity(ctx, p, ownerDatabaseKey)
}
