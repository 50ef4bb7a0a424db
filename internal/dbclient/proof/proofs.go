// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Proofs is what one server holds and whose it is, as tenantdb reads and
// records it through the admin session.
type Server struct {
	spec connect.Spec
	info ddl.ServerInfo
	sess *session.Session

	catalog catalog
}

// New is the proof layer of the server sess is the admin session of. Its
// caches are kept true by sess's write hooks (session.WriteHooks).
func New(sess *session.Session) *Server {
	s := &Server{spec: sess.Spec(), info: sess.Info(), sess: sess}
	sess.SetWriteHooks(session.WriteHooks{BeforeWrite: forgetDatabaseReads, AfterWrite: s.invalidateAccounts})
	return s
}

// dialect renders for this server.
func (s *Server) dialect() ddl.Dialect { return ddl.NewDialect(s.info) }
