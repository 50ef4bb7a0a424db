// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// The reads and checks of the proof layer that the provider calls: each is
// the proof layer's own (Proofs), named here so that Server's exported
// methods stay the list in surface_test.go.

// CheckAdminRights reads what the admin login may do and refuses with
// MissingAdminRights, listing each missing right and its fix. It also
// returns what the login holds beyond the documented minimum that README
// says it must not hold (superuser, SUPER, ALL), for the caller to warn.
func (s *Server) CheckAdminRights(ctx context.Context) (ddl.AdminExcess, error) {
	return s.proof.CheckAdminRights(ctx)
}

// RotationSuccessor finds, in a refresh, the login that a username rotation
// of this resource made and finished while its recorded login (recorded)
// is gone: Terraform was killed after the rotation dropped the old login
// and before it saved state. It is the owner of db, and its mark names db
// (by name and identity) and, as the login it took over from, the
// recorded login's OID: the claim that made it is this resource's. nil when
// there is none. Reads the refresh snapshots only (MariaDB: and the
// ledger's claim of the gone login user, rotatedFromLogin).
func (s *Server) RotationSuccessor(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recorded proof.Identity) (*ddl.Username, error) {
	return s.proof.RotationSuccessor(ctx, db, user, recorded)
}

// DatabaseWithIdentity reads a database and its identity, from the catalog
// snapshot when it is fresh (Read of many tenants). Not found is (nil, "", nil).
func (s *Server) DatabaseWithIdentity(ctx context.Context, db ddl.DatabaseName) (*proof.DatabaseState, proof.Identity, error) {
	return s.proof.DatabaseWithIdentity(ctx, db)
}

// CheckIdentity reads db directly and compares it with recorded.
func (s *Server) CheckIdentity(ctx context.Context, db ddl.DatabaseName, recorded proof.Identity) (proof.Check, error) {
	return s.proof.CheckIdentity(ctx, db, recorded)
}

// RecordEarlierLogin writes the ledger row of an owner login an earlier
// version made (it has none): under the tenant's lock, and only while the
// login's ATTRIBUTE still names the claim recorded in state (128 random
// bits only tenantdb's CREATE USER and the login itself ever saw). A login
// that is gone, already has a row, or no longer reads as recorded is left
// as it is: the refresh says what it is.
func (s *Server) RecordEarlierLogin(ctx context.Context, db ddl.DatabaseName, user ddl.Username, privs ddl.PrivilegeSet, recorded proof.Identity) error {
	return s.proof.RecordEarlierLogin(ctx, db, user, privs, recorded)
}

// ListDatabases returns the tenant-shaped databases on the server, sorted
// by name, from one fresh catalog read.
func (s *Server) ListDatabases(ctx context.Context) ([]proof.DatabaseState, error) {
	return s.proof.ListDatabases(ctx)
}

// ListOwners returns the owner of each listed database, where one exists
// that a tenant_owner could manage (not the admin, not a system account).
func (s *Server) ListOwners(ctx context.Context, dbs []proof.DatabaseState) ([]proof.OwnerCandidate, error) {
	return s.proof.ListOwners(ctx, dbs)
}

// LoginIdentity reads a login's identity from the server; found is false
// when it does not exist.
func (s *Server) LoginIdentity(ctx context.Context, user ddl.Username) (proof.Identity, bool, error) {
	return s.proof.LoginIdentity(ctx, user)
}

// CheckLogin compares a login with its recorded identity.
func (s *Server) CheckLogin(ctx context.Context, user ddl.Username, recorded proof.Identity) (proof.Check, error) {
	return s.proof.CheckLogin(ctx, user, recorded)
}

// Database reads one database. Not found is (nil, nil), not an error. It is
// served from the server's catalog snapshot (one query for every database)
// unless this process changed that database since the snapshot was taken.
func (s *Server) Database(ctx context.Context, name ddl.DatabaseName) (*proof.DatabaseState, error) {
	return s.proof.Database(ctx, name)
}

// RevokeOnRecreatedDatabase revokes what tenantdb granted user on db's
// name (ledger_grants.go; granted stands in where the ledger has no
// record) when the database there is not recordedDB (recreatedDatabase)
// and user is still recordedLogin: the rows are then the ones this
// provider made for it. It says what it revoked and what user still holds
// there that tenantdb never granted. The owner's apply calls it; the
// grant's own calls are in grant.go.
func (s *Server) RevokeOnRecreatedDatabase(ctx context.Context, db ddl.DatabaseName, user ddl.Username, recordedDB, recordedLogin proof.Identity, granted []ddl.Privilege) (proof.RevokedOwn, error) {
	return s.proof.RevokeOnRecreatedDatabase(ctx, db, user, recordedDB, recordedLogin, granted)
}

// OthersOnRecreated lists, sorted, the accounts other than the admin and
// own that hold privilege rows on db's name when the database there is
// positively another one than recordedDB (found, Replaced). It revokes
// nothing.
func (s *Server) OthersOnRecreated(ctx context.Context, db ddl.DatabaseName, recordedDB proof.Identity, own ddl.Username) ([]string, error) {
	return s.proof.OthersOnRecreated(ctx, db, recordedDB, own)
}
