// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// moveGrantHost moves a grant to another host of its user (issue 46): the
// database must still be the recorded one; the account at the new host is
// granted first (CreateGrant: it must exist, and must not be the owner),
// then the account at the old host is revoked as a destroy revokes it. A
// failure or a kill in between leaves both granted and state at the old
// host: the next apply does both again (the grant is desired state), so the
// principal never loses access on the way and nothing is forgotten before
// it is revoked.
func moveGrantHost(ctx context.Context, srv grantServer, t grantTarget, old ddl.Username, recorded dbclient.GrantIdentity) (dbclient.GrantIdentity, error) {
	c, err := srv.CheckIdentity(ctx, t.db, recorded.Database)
	switch {
	case err != nil:
		return dbclient.GrantIdentity{}, err
	case !c.Found:
		return dbclient.GrantIdentity{}, ddl.ErrDatabaseGone(t.ref.Name, t.db)
	case c.Verdict != dbclient.Same:
		return dbclient.GrantIdentity{}, ddl.ErrIdentityMismatch(t.ref.Name, t.db, dbclient.MismatchWhy(c.Verdict))
	}
	ids, err := srv.CreateGrant(ctx, t.db, t.user, t.privs)
	if err != nil {
		return dbclient.GrantIdentity{}, err
	}
	if _, err := srv.RevokeGrant(ctx, t.db, old, recorded); err != nil {
		return dbclient.GrantIdentity{}, fmt.Errorf("%s is granted; revoking from %s failed (the next apply revokes it again): %w",
			t.user.Quoted(), old.Quoted(), err)
	}
	return ids, nil
}
