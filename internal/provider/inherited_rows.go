// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// A resource's refusal never stops another's revoke (MySQL/MariaDB, a
// database re-created by hand under the tenant's name). Terraform runs
// nothing that depends on a failed resource, so an owner refusing there
// would leave the inherited rows of a grant with depends_on on it, and a
// grant refusing would leave the owner's. The refusing resource revokes
// every account's rows on the name (dbclient.RevokeInherited says why it
// cannot pick tenantdb's alone) before it reports.

// inheritedRevoker is what revokeInherited calls on a server
// (*dbclient.Server; the grant's unit-test fake).
type inheritedRevoker interface {
	RevokeInherited(ctx context.Context, db ddl.DatabaseName, recordedDB dbclient.Identity) (revoked, left []string, err error)
}

// revokeInherited follows a refusal: when it is IdentityMismatch and the
// database there is another one than recordedDB, every account's rows on
// its name are revoked and the refusal says so. Any other error is
// returned as it is.
func revokeInherited(ctx context.Context, srv inheritedRevoker, db ddl.DatabaseName, recordedDB dbclient.Identity, refusal error) error {
	var de *ddl.Error
	if !errors.As(refusal, &de) || de.Reason != ddl.IdentityMismatch {
		return refusal
	}
	revoked, left, err := srv.RevokeInherited(ctx, db, recordedDB)
	if err != nil {
		return errors.Join(refusal, fmt.Errorf("revoking the rows other accounts inherited on the re-created database: %w", err))
	}
	return ddl.WithInheritedRevoked(de, db, revoked, left)
}
