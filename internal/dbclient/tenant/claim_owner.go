// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// faultOwnerClaimLostBefore and faultOwnerClaimLostAfter make an owner's
// CREATE USER/ROLE claim end in a lost connection, before anything ran or
// after the whole create plan ran.
const (
	faultOwnerClaimLostBefore = "owner-claim-lost-before"
	faultOwnerClaimLostAfter  = "owner-claim-lost-after"
)

// settleOwnerClaim decides, after the connection was lost during the
// CREATE USER/ROLE of an owner, whether the login exists and is ours. A
// login with that name that accepts the password this claim set is ours:
// the password is the caller's (write-only, usually random), so no one else
// made a login with it in the moment the connection was lost. It returns
// true when the login is ours, false with an error otherwise.
func (s *Server) settleOwnerClaim(ctx context.Context, db ddl.DatabaseName, user ddl.Username, pw ddl.Password) (bool, error) {
	ctx = session.Settling(session.Unlocked(ctx))
	if _, found, err := s.proof.LoginIdentity(ctx, user); err != nil || !found {
		if err == nil {
			err = fmt.Errorf("%s: the connection was lost while creating login %q, and it does not exist: nothing was "+
				"created; apply again", s.spec.Describe(), user)
		}
		return false, err
	}
	ok, err := session.LoginAccepts(ctx, s.spec, s.info.Version.Major, user, pw)
	if err != nil {
		return false, fmt.Errorf("%s: the connection was lost while creating login %q, and whether the login that now "+
			"exists is this claim's could not be checked: %w", s.spec.Describe(), user, err)
	}
	if !ok {
		return false, ddl.ErrPreExistingOwnerUser(s.spec.Name, s.spec.Engine, db, user)
	}
	return true, nil
}
