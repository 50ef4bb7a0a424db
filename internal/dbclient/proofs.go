// SPDX-License-Identifier: MPL-2.0

package dbclient

import "github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

// Proofs is what one server holds and whose it is, as tenantdb reads and
// records it through the admin session.
type Proofs struct {
	spec Spec
	info ddl.ServerInfo
	sess *Session

	catalog catalog
}

// dialect renders for this server.
func (s *Proofs) dialect() ddl.Dialect { return ddl.NewDialect(s.info) }
