// SPDX-License-Identifier: MPL-2.0

package session

import "github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"

// Fresh databases (PostgreSQL). An owner's create hands the admin's default
// privileges in the tenant database over to the owner (a grant made before
// its owner existed set them FOR ROLE admin), which needs a read inside the
// tenant database: a connection of its own, the most expensive thing a
// create does. A database this process claimed from template0 starts with
// no default privileges, and until a statement of this process runs inside
// it nothing of this apply can have set any, so that read is skipped for
// it: in a fleet's first apply, one connection per tenant instead of two.
// (Another workspace granting on a database this one made in the same
// moment, before its owner, would have its default privileges missed by
// that owner's create; its own next refresh shows the drift and its apply
// sets them again.)

// MarkFresh records that this process has just claimed db.
func (s *Session) MarkFresh(db ddl.DatabaseName) {
	s.freshMu.Lock()
	defer s.freshMu.Unlock()
	if s.fresh == nil {
		s.fresh = map[string]bool{}
	}
	s.fresh[db.String()] = true
}

// touched records that a statement ran inside database (it may have set
// default privileges there).
func (s *Session) touched(database string) {
	if database == "" {
		return
	}
	s.freshMu.Lock()
	defer s.freshMu.Unlock()
	delete(s.fresh, database)
}

// IsFresh reports whether db was claimed by this process and no statement
// of this process has run inside it since.
func (s *Session) IsFresh(db ddl.DatabaseName) bool {
	s.freshMu.Lock()
	defer s.freshMu.Unlock()
	return s.fresh[db.String()]
}
