// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

type dbStateView struct{ charset, collation string }

// readDatabase maps the server's view to the resource's attributes; nil
// means the database does not exist.
func readDatabase(ctx context.Context, srv *dbclient.Server, db ddl.DatabaseName) (*dbStateView, error) {
	st, err := srv.Database(ctx, db)
	if err != nil || st == nil {
		return nil, err
	}
	return &dbStateView{charset: st.Charset, collation: st.Collation}, nil
}
