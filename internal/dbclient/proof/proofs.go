// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"sync/atomic"

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

	// wrote: this process has run a statement on the server (an apply
	// walk): plan-time checks stop there (Wrote).
	wrote atomic.Bool
}

// New is the proof layer of the server sess is the admin session of. Its
// caches are kept true by sess's write hooks (session.WriteHooks).
func New(sess *session.Session) *Server {
	s := &Server{spec: sess.Spec(), info: sess.Info(), sess: sess}
	sess.SetWriteHooks(session.WriteHooks{BeforeWrite: forgetDatabaseReads, AfterWrite: func() {
		s.wrote.Store(true)
		s.invalidateAccounts()
	}})
	return s
}

// Wrote reports whether this process has run a statement on the server.
// Terraform plans every resource again right before applying it: once an
// apply has written, the checks each operation makes under its lock come
// next anyway, and a plan-time check would only reload the snapshots each
// write dropped (N reloads of N logins in an apply of N tenants).
func (s *Server) Wrote() bool { return s.wrote.Load() }

// dialect renders for this server.
func (s *Server) dialect() ddl.Dialect { return ddl.NewDialect(s.info) }
