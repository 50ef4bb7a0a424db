// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// SetOwnerConnectionLimit sets the owner login's own connection limit
// (none: back to the server's default), after checking it is still the
// recorded login, as every alter of an owner does. It returns the
// identity to record next: no engine's identity changes with a limit
// (MariaDB's is when the password was set, which ALTER USER ... WITH
// MAX_USER_CONNECTIONS leaves), but it is read back as a password change
// reads it, so state never records a stale one.
//
// The admin sets the limit; the tenant cannot (PostgreSQL: ALTER ROLE
// needs CREATEROLE; MySQL/MariaDB: resource limits need CREATE USER),
// and the admin never connects as the owner, so a limit the tenant's
// sessions have reached stops no statement of tenantdb's, an
// offboarding's included.
func (s *Server) SetOwnerConnectionLimit(ctx context.Context, db ddl.DatabaseName, user ddl.Username, limit ddl.ConnectionLimit, recorded proof.Identity) (proof.Identity, error) {
	id := recorded
	err := s.proof.WithLock(ctx, db, func(ctx context.Context) error {
		if _, err := s.requireOwnLogin(ctx, db, user, recorded); err != nil {
			return err
		}
		if err := s.requireAdministers(ctx, user); err != nil {
			return err
		}
		if err := s.sess.Exec(ctx, ddl.SetConnectionLimit(s.info, user, limit)); err != nil {
			return err
		}
		rctx, cancel := session.ReadBackContext(ctx)
		defer cancel()
		got, found, err := s.proof.LoginIdentity(rctx, user)
		if err == nil && found {
			id = got
		}
		return err
	})
	return id, err
}
