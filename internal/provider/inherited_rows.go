// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// A refusal on a database positively re-created under the tenant's name
// (MySQL: another claim's mark) revokes the refusing resource's own
// account's rows only and names every other account holding rows on the
// name: a DBA's backup account, another tenant's owner, a superuser's row,
// and the rows of a resource that depends on the refusing one (Terraform
// does not run it after the refusal). tenantdb touches only rows it
// granted; mysql.db keeps no grantor, so the user judges the others
// (dbclient.OthersOnRecreated).

// inheritedLister is what nameOthers calls on a server (*dbclient.Server;
// the grant's unit-test fake).
type inheritedLister interface {
	OthersOnRecreated(ctx context.Context, db ddl.DatabaseName, recordedDB dbclient.Identity, own ddl.Username) ([]string, error)
}

// nameOthers follows a refusal: when it is IdentityMismatch and the
// database there is positively another one than recordedDB, the refusal
// names the other accounts' rows on its name (own's excepted), revoking
// none. Any other error is returned as it is.
func nameOthers(ctx context.Context, srv inheritedLister, info ddl.ServerInfo, db ddl.DatabaseName, recordedDB dbclient.Identity,
	own ddl.Username, refusal error) error {
	var de *ddl.Error
	if !errors.As(refusal, &de) || de.Reason != ddl.IdentityMismatch {
		return refusal
	}
	others, err := srv.OthersOnRecreated(ctx, db, recordedDB, own)
	if err != nil {
		return errors.Join(refusal, fmt.Errorf("listing the other accounts' rows on the re-created database: %w", err))
	}
	return ddl.WithOthersNamed(de, info, db, others)
}
