// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
)

// QueryStrings runs a read of one text column in database ("" the
// maintenance database) and returns its rows.
func (s *Server) QueryStrings(ctx context.Context, database, query string, args ...any) ([]string, error) {
	var out []string
	read := func(ctx context.Context, q session.Queryer) error {
		out = nil
		rs, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var v string
			if err := rs.Scan(&v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return rs.Err()
	}
	if database == "" {
		return out, s.sess.Query(ctx, read)
	}
	err := s.sess.QueryIn(ctx, database, read)
	return out, err
}
