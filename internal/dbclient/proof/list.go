// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"slices"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Listing what a server holds, for list resources (`terraform query`):
// what could be adopted with an import. Read-only; system schemas, claim
// names of unfinished creates and names tenantdb could not manage are
// never listed.

// ListDatabases returns the tenant-shaped databases on the server, sorted
// by name, from one fresh catalog read.
func (s *Server) ListDatabases(ctx context.Context) ([]DatabaseState, error) {
	all, err := s.loadCatalog(ctx)
	if err != nil {
		return nil, s.sess.ReadError("list the databases", err)
	}
	var out []DatabaseState
	for _, st := range all {
		if strings.HasPrefix(st.Name, "tenantdb_claim_") {
			continue
		}
		if _, err := ddl.NewDatabaseName(s.spec.Engine, st.Name); err != nil {
			continue // a system schema, or a name tenantdb cannot manage
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b DatabaseState) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// OwnerCandidate is a login that owns a tenant database: PostgreSQL its
// owner role (not the admin); MySQL/MariaDB an account holding every
// database-level privilege on it (not the admin), as a tenant owner does.
type OwnerCandidate struct {
	Database string
	Username string
	Host     string // MySQL/MariaDB: the account's host ("%" for most); "" on PostgreSQL
}

// ListOwners returns the owner of each listed database, where one exists
// that a tenant_owner could manage (not the admin, not a system account).
func (s *Server) ListOwners(ctx context.Context, dbs []DatabaseState) ([]OwnerCandidate, error) {
	reserved := ddl.NewReservedNames(s.spec.Name, s.spec.Username, nil)
	var out []OwnerCandidate
	keep := func(db, user, host string) {
		if _, err := ddl.NewUsername(s.spec.Engine, user); err != nil || reserved.CheckOwner(user) != nil {
			return
		}
		if host != "" {
			h, err := ddl.NewAccountHost(host)
			if err != nil {
				return // a host tenantdb cannot render
			}
			host = h.String()
		}
		out = append(out, OwnerCandidate{Database: db, Username: user, Host: host})
	}
	if s.info.Flavor == ddl.FlavorPostgres {
		for _, d := range dbs {
			keep(d.Name, d.Owner, "")
		}
		return out, nil
	}
	byPattern := map[string]string{} // mysql.db's escaped name -> database
	for _, d := range dbs {
		if name, err := ddl.NewDatabaseName(s.spec.Engine, d.Name); err == nil {
			byPattern[ddl.MySQLGrantPattern(s.info, name)] = d.Name
		}
	}
	cols := MySQLDBColumnNames(s.info)
	privCols := cols[:len(cols)-1] // every privilege column; Grant_priv is not one an owner needs
	var found []OwnerCandidate
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		found = nil
		// Every host: 'u'@'10.%' is an account of its own (issue 46).
		rows, err := q.QueryContext(ctx, `SELECT Db, User, Host, CONCAT(`+strings.Join(privCols, ", ")+`) FROM mysql.db`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var db, user, host, flags string
			if err := rows.Scan(&db, &user, &host, &flags); err != nil {
				return err
			}
			if name, ok := byPattern[db]; ok && strings.Trim(flags, "Y") == "" {
				found = append(found, OwnerCandidate{Database: name, Username: user, Host: host})
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.sess.ReadError("list the owners", err)
	}
	for _, f := range found {
		keep(f.Database, f.Username, f.Host)
	}
	slices.SortFunc(out, func(a, b OwnerCandidate) int {
		return strings.Compare(a.Database+"\x00"+a.Username+"\x00"+a.Host, b.Database+"\x00"+b.Username+"\x00"+b.Host)
	})
	return out, nil
}
