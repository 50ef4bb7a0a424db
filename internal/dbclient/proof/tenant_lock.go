// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// WithLock runs fn under the tenant's advisory lock (Session.withLock), with
// what every locked step of an operation starts from: a fresh cache of the
// databases it reads (database_read_cache.go), and the refusal of a
// database a cut-short drop left invalid (invalid_database.go). Inside a
// lock of the same operation, fn runs as it is.
func (s *Server) WithLock(ctx context.Context, tenant ddl.DatabaseName, fn func(context.Context) error) error {
	if s.sess.HoldsLock(ctx) {
		return fn(ctx)
	}
	return s.sess.WithLock(ctx, tenant, func(ctx context.Context) error {
		ctx = withDatabaseReads(ctx)
		if err := s.refuseInvalid(ctx, tenant); err != nil {
			return err
		}
		return fn(ctx)
	})
}
