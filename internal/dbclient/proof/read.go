// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// DatabaseState is what the server says about one database.
type DatabaseState struct {
	Name      string
	Charset   string // MySQL character set; PostgreSQL encoding
	Collation string // MySQL collation; PostgreSQL LC_COLLATE
	Owner     string // PostgreSQL owner role; "" on MySQL
	// Marker is the per-object part of the identity: PostgreSQL's database
	// OID, MariaDB's schema comment, "" on MySQL 8 (see Identity).
	Marker string
	// Invalid: PostgreSQL 15.4+ marked it invalid (datconnlimit = -2), as
	// a DROP DATABASE stopped part way leaves it: no one can connect, its
	// files are partly removed, only DROP DATABASE finishes it
	// (invalid_database.go). Always false on MySQL/MariaDB.
	Invalid bool
}

// Database reads one database. Not found is (nil, nil), not an error. It is
// served from the server's catalog snapshot (one query for every database)
// unless this process changed that database since the snapshot was taken.
func (s *Server) Database(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, error) {
	if st, ok, err := s.catalogDatabase(ctx, name); err != nil || ok {
		return st, err
	}
	return s.DatabaseRow(ctx, name)
}

// DatabaseDirect reads one database with its own query, for a change:
// an invalid database is refused (DatabaseInvalid) unless the operation
// is its drop (invalid_database.go).
func (s *Server) DatabaseDirect(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, error) {
	st, err := s.DatabaseRow(ctx, name)
	if err == nil && st != nil && st.Invalid && ctx.Value(droppingKey{}) == nil {
		return nil, ddl.ErrDatabaseInvalid(s.spec.Name, name)
	}
	return st, err
}

// DatabaseRow reads one database with its own query (or this operation's
// earlier reading of it).
func (s *Server) DatabaseRow(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, error) {
	if st, ok := cachedDatabase(ctx, name.String()); ok {
		return st, nil
	}
	st, err := s.readDatabaseDirect(ctx, name)
	if err == nil {
		rememberDatabase(ctx, name.String(), st)
	}
	return st, err
}

// readDatabaseDirect is databaseDirect's round trip.
func (s *Server) readDatabaseDirect(ctx context.Context, name ddl.DatabaseName) (*DatabaseState, error) {
	var st DatabaseState
	err := s.withLedgerMarks(name.String(), func(q string) error {
		return s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
			return db.QueryRowContext(ctx, q, name.String()).
				Scan(&st.Name, &st.Charset, &st.Collation, &st.Owner, &st.Marker, &st.Invalid)
		})
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.sess.ReadError("read database "+name.String(), err)
	}
	return &st, nil
}

// Privileges reads what grantee holds on database, as canonical names.
// MySQL: the mysql.db row for 'grantee'@'host' on the escaped name (the form
// this provider grants), including GRANT OPTION when set. PostgreSQL:
// CREATE/TEMPORARY from the database ACL and table privileges from the
// default privileges the database owner gives in schema public.
func (s *Server) Privileges(ctx context.Context, database ddl.DatabaseName, grantee ddl.Username) ([]ddl.Privilege, error) {
	var out []ddl.Privilege
	var err error
	if s.spec.Engine == ddl.EnginePostgres {
		out, err = s.postgresPrivileges(ctx, database, grantee)
	} else {
		out, err = s.mysqlPrivileges(ctx, database, grantee)
	}
	if err != nil {
		return nil, s.sess.ReadError(fmt.Sprintf("read privileges of %s on %s", grantee, database), err)
	}
	return out, nil
}

func (s *Server) mysqlPrivileges(ctx context.Context, database ddl.DatabaseName, grantee ddl.Username) ([]ddl.Privilege, error) {
	names := MySQLDBColumnNames(s.info)
	// Column names come from ddl's fixed catalog, never from input.
	q := "SELECT " + strings.Join(names, ", ") + " FROM mysql.db WHERE Host = ? AND User = ? AND Db = ?"
	vals := make([]string, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var found bool
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		err := db.QueryRowContext(ctx, q, grantee.Host(), grantee.String(), ddl.MySQLGrantPattern(s.info, database)).Scan(ptrs...)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil || !found {
		return nil, err
	}
	return MySQLDBPrivileges(s.info, vals), nil
}

// RefreshPrivileges is privileges for a refresh: MySQL/MariaDB serve it
// from the accounts snapshot (catalog_accounts.go).
func (s *Server) RefreshPrivileges(ctx context.Context, database ddl.DatabaseName, grantee ddl.Username) ([]ddl.Privilege, error) {
	if s.spec.Engine == ddl.EnginePostgres {
		return s.Privileges(ctx, database, grantee)
	}
	vals, err := s.SnapshotGrantRow(ctx, MySQLDBColumnNames(s.info), grantee, ddl.MySQLGrantPattern(s.info, database))
	if err != nil {
		return nil, s.sess.ReadError(fmt.Sprintf("read privileges of %s on %s", grantee, database), err)
	}
	if vals == nil {
		return nil, nil
	}
	return MySQLDBPrivileges(s.info, vals), nil
}

// MySQLDBColumnNames is the mysql.db privilege columns, then Grant_priv.
func MySQLDBColumnNames(info ddl.ServerInfo) []string {
	cols := ddl.MySQLDBColumns(info)
	names := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		names = append(names, c.Column)
	}
	return append(names, "Grant_priv")
}

// MySQLDBPrivileges reads a mysql.db row's values (as mysqlDBColumnNames).
func MySQLDBPrivileges(info ddl.ServerInfo, vals []string) []ddl.Privilege {
	cols := ddl.MySQLDBColumns(info)
	var out []ddl.Privilege
	for i, v := range vals {
		if v != "Y" {
			continue
		}
		if i == len(cols) {
			out = append(out, ddl.GrantOption)
		} else {
			out = append(out, cols[i].Privilege)
		}
	}
	return out
}

// postgresPrivileges reads the scope of the Dialect's SyncPrivileges
// (schema public): every privilege grantee holds anywhere in it (the
// database ACL, USAGE and the owner's tables in public, the owner's default
// privileges), and GRANT OPTION when any of it is grantable, so an
// out-of-band WITH GRANT OPTION shows as surplus and is revoked. It used to
// read only the database ACL and the default privileges, ignoring
// is_grantable. Tenant grants read their whole scope (ReadGrant).
func (s *Server) postgresPrivileges(ctx context.Context, database ddl.DatabaseName, grantee ddl.Username) ([]ddl.Privilege, error) {
	g, err := s.PGGrantRead(ctx, database, grantee, false)
	if err != nil {
		return nil, err
	}
	return g.Read.Held().Any, nil
}

// foreignSession is a connection to a tenant database that this provider did not open.
type foreignSession struct {
	PID         int
	User        string
	Application string
	Client      string
}

func (s foreignSession) String() string {
	return fmt.Sprintf("pid %d user %q application %q from %s", s.PID, s.User, s.Application, s.Client)
}

// Sessions lists sessions in a PostgreSQL database other than this
// process's own (closed first; their backends may still be exiting and are
// left out). Without pg_read_all_stats the admin sees other roles' sessions
// with client_addr and client_port NULL, which must not read as "local
// socket" (client_port -1). MySQL has no per-database sessions to cut: it
// returns nil. Only sessions of a role count: an autovacuum worker has none
// (seen in the parallel-grants race test as a session with no user), and
// DROP DATABASE cancels it itself. backend_type would say so too, but the
// admin without pg_read_all_stats sees it only for its own sessions. A
// session whose role was dropped while it stayed connected (the owner
// login a destroy just dropped) has no name left: it is named by the
// role's OID, never as user "".
func (s *Server) Sessions(ctx context.Context, database ddl.DatabaseName) ([]foreignSession, error) {
	if s.spec.Engine != ddl.EnginePostgres {
		return nil, nil
	}
	own := s.sess.CloseTenantPool(database.String())
	var out []foreignSession
	err := s.sess.Query(ctx, func(ctx context.Context, db session.Queryer) error {
		out = nil
		rows, err := db.QueryContext(ctx, `
SELECT pid, COALESCE(usename::text, 'a role dropped since (OID ' || usesysid::text || ')'), COALESCE(application_name, ''),
       COALESCE(host(client_addr), CASE WHEN client_port = -1 THEN 'local socket' ELSE '(address not visible to the admin)' END)
FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
  AND usesysid IS NOT NULL ORDER BY pid`, database.String())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var x foreignSession
			if err := rows.Scan(&x.PID, &x.User, &x.Application, &x.Client); err != nil {
				return err
			}
			if own[x.PID] {
				continue // this process's own connection, closed and exiting
			}
			out = append(out, x)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.sess.ReadError("list sessions in "+database.String(), err)
	}
	return out, nil
}
