// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"slices"
	"strings"
)

// Privilege is a canonical (upper-case, single-spaced) privilege name.
type Privilege string

// AllPrivileges is the shorthand for every privilege of the catalog.
const AllPrivileges Privilege = "ALL PRIVILEGES"

// GrantOption is never declared or granted; read-back reports it so that an
// out-of-band WITH GRANT OPTION is revoked as surplus.
const GrantOption Privilege = "GRANT OPTION"

// allowlist is what a configuration may declare, per engine. GRANT OPTION is
// absent on purpose and always will be: an owner that can grant can escape
// its own database.
var allowlist = map[Engine][]Privilege{
	EngineMySQL: {
		"ALL PRIVILEGES", "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER",
		"INDEX", "REFERENCES", "LOCK TABLES", "SHOW VIEW", "TRIGGER", "EVENT", "EXECUTE",
	},
	EnginePostgres: {
		"ALL PRIVILEGES", "SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES",
		"TRIGGER", "CREATE", "TEMPORARY",
	},
}

// Allowlist returns the privileges a configuration may declare for an engine.
func Allowlist(e Engine) []Privilege { return slices.Clone(allowlist[e]) }

// mysqlDBPrivileges are the database-level privileges of MySQL 8, in
// mysql.db column order, with their columns. Read-back maps columns to these
// names, and "ALL PRIVILEGES" at database level means all of them.
var mysqlDBPrivileges = []struct {
	Privilege Privilege
	Column    string
}{
	{"SELECT", "Select_priv"},
	{"INSERT", "Insert_priv"},
	{"UPDATE", "Update_priv"},
	{"DELETE", "Delete_priv"},
	{"CREATE", "Create_priv"},
	{"DROP", "Drop_priv"},
	{"REFERENCES", "References_priv"},
	{"INDEX", "Index_priv"},
	{"ALTER", "Alter_priv"},
	{"CREATE TEMPORARY TABLES", "Create_tmp_table_priv"},
	{"LOCK TABLES", "Lock_tables_priv"},
	{"CREATE VIEW", "Create_view_priv"},
	{"SHOW VIEW", "Show_view_priv"},
	{"CREATE ROUTINE", "Create_routine_priv"},
	{"ALTER ROUTINE", "Alter_routine_priv"},
	{"EXECUTE", "Execute_priv"},
	{"EVENT", "Event_priv"},
	{"TRIGGER", "Trigger_priv"},
}

// PrivilegeColumn pairs a database-level privilege with its mysql.db column.
type PrivilegeColumn struct {
	Privilege Privilege
	Column    string
}

// MySQLDBColumns returns the database-level privileges of a MySQL/MariaDB
// server with their mysql.db columns. MariaDB adds DELETE HISTORY, and
// SHOW CREATE ROUTINE from 11.3.
func MySQLDBColumns(info ServerInfo) []PrivilegeColumn {
	out := make([]PrivilegeColumn, 0, len(mysqlDBPrivileges)+2)
	for _, p := range mysqlDBPrivileges {
		out = append(out, PrivilegeColumn{p.Privilege, p.Column})
	}
	if info.Flavor == FlavorMariaDB {
		out = append(out, PrivilegeColumn{"DELETE HISTORY", "Delete_history_priv"})
		if info.Version.AtLeast(11, 3, 0) {
			out = append(out, PrivilegeColumn{"SHOW CREATE ROUTINE", "Show_create_routine_priv"})
		}
	}
	return out
}

// Postgres privilege kinds: database-level ones are granted ON DATABASE,
// table-level ones on the tables of the tenant's public schema, now and by
// default privileges later.
var (
	postgresDatabasePrivileges = []Privilege{"CREATE", "TEMPORARY"}
	postgresTablePrivileges    = []Privilege{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}
)

// Catalog returns every database-level privilege the server knows, sorted:
// the meaning of ALL PRIVILEGES and the universe of read-back.
func Catalog(info ServerInfo) []Privilege {
	var out []Privilege
	if info.Flavor == FlavorPostgres {
		out = append(slices.Clone(postgresDatabasePrivileges), postgresTablePrivileges...)
	} else {
		for _, c := range MySQLDBColumns(info) {
			out = append(out, c.Privilege)
		}
	}
	slices.Sort(out)
	return out
}

// PrivilegeSet is a validated, canonical set of declared privileges: either
// exactly ALL PRIVILEGES, or a sorted list of distinct allowlisted names.
type PrivilegeSet struct {
	all   bool
	privs []Privilege
}

// NormalizePrivilege upper-cases and single-spaces a privilege name.
func NormalizePrivilege(s string) Privilege {
	return Privilege(strings.Join(strings.Fields(strings.ToUpper(s)), " "))
}

// CheckPrivilegesAnyEngine is the plan-time check while the server's
// engine is not known yet: declared must be valid on at least one engine.
// A name on neither list is reported against both, never against one
// engine the configuration may not use.
func CheckPrivilegesAnyEngine(declared []string) error {
	_, mysqlErr := ParsePrivileges(EngineMySQL, declared)
	_, pgErr := ParsePrivileges(EnginePostgres, declared)
	if mysqlErr == nil || pgErr == nil {
		return nil
	}
	for _, d := range declared {
		p := NormalizePrivilege(d)
		if !slices.Contains(allowlist[EngineMySQL], p) && !slices.Contains(allowlist[EnginePostgres], p) {
			return refuse(PrivilegeNotAllowed, fmt.Sprintf("privilege %q", printable(d)),
				"It is on neither engine's allowlist.",
				fmt.Sprintf("Use only, on MySQL/MariaDB: %s; on PostgreSQL: %s.",
					joinPrivileges(allowlist[EngineMySQL]), joinPrivileges(allowlist[EnginePostgres])))
		}
	}
	return mysqlErr // each name is valid somewhere, the set on no engine (e.g. ALL PRIVILEGES with others)
}

// ParsePrivileges validates declared privileges against the engine's
// allowlist, case-insensitively, and canonicalises them.
func ParsePrivileges(e Engine, declared []string) (PrivilegeSet, error) {
	if len(declared) == 0 {
		return PrivilegeSet{}, refuse(PrivilegeNotAllowed, "privileges",
			"At least one privilege is required.",
			`Declare the privileges to grant, e.g. ["SELECT"], or ["ALL PRIVILEGES"].`)
	}
	var set PrivilegeSet
	for _, d := range declared {
		p := NormalizePrivilege(d)
		if !slices.Contains(allowlist[e], p) {
			return PrivilegeSet{}, refuse(PrivilegeNotAllowed, fmt.Sprintf("privilege %q", printable(d)),
				fmt.Sprintf("It is not on the %s allowlist.", e),
				fmt.Sprintf("Use only: %s.", joinPrivileges(allowlist[e])))
		}
		if p == AllPrivileges {
			set.all = true
			continue
		}
		if !slices.Contains(set.privs, p) {
			set.privs = append(set.privs, p)
		}
	}
	if set.all && len(set.privs) > 0 {
		return PrivilegeSet{}, refuse(PrivilegeNotAllowed, "privileges",
			"ALL PRIVILEGES cannot be combined with other privileges.",
			`Declare either ["ALL PRIVILEGES"] or a list of single privileges.`)
	}
	slices.Sort(set.privs)
	return set, nil
}

// IsAll reports whether the set is ALL PRIVILEGES.
func (s PrivilegeSet) IsAll() bool { return s.all }

// IsZero reports whether the set was never constructed.
func (s PrivilegeSet) IsZero() bool { return !s.all && len(s.privs) == 0 }

// Names returns the canonical declared names (["ALL PRIVILEGES"] or the sorted list).
func (s PrivilegeSet) Names() []string {
	if s.all {
		return []string{string(AllPrivileges)}
	}
	out := make([]string, len(s.privs))
	for i, p := range s.privs {
		out[i] = string(p)
	}
	return out
}

// Expand returns the concrete privileges the set means on a server.
func (s PrivilegeSet) Expand(info ServerInfo) []Privilege {
	if s.all {
		return Catalog(info)
	}
	return slices.Clone(s.privs)
}

// Equal compares the meanings of two sets on a server: MariaDB's ALL has more
// members than MySQL's, so sets are compared, never strings.
func (s PrivilegeSet) Equal(info ServerInfo, actual []Privilege) bool {
	want := s.Expand(info)
	have := sortedUnique(actual)
	return slices.Equal(want, have)
}

// FromActual turns privileges read from a server into the set a user would
// declare: ALL PRIVILEGES when they cover the whole catalog.
func FromActual(info ServerInfo, actual []Privilege) PrivilegeSet {
	have := sortedUnique(actual)
	if len(have) > 0 && slices.Equal(have, Catalog(info)) {
		return PrivilegeSet{all: true}
	}
	return PrivilegeSet{privs: have}
}

// PrivilegeDiff is the desired-state change for one principal on one
// database: grant first, then revoke only the surplus.
type PrivilegeDiff struct {
	Grant  []Privilege // or exactly [ALL PRIVILEGES]
	Revoke []Privilege
}

// Empty reports whether nothing needs to change.
func (d PrivilegeDiff) Empty() bool { return len(d.Grant) == 0 && len(d.Revoke) == 0 }

// Diff computes what to grant and revoke to move actual to desired. Actual
// privileges outside the server's catalog are ignored: they cannot come from
// a database-level read-back.
func Diff(info ServerInfo, desired PrivilegeSet, actual []Privilege) PrivilegeDiff {
	catalog := Catalog(info)
	have := sortedUnique(actual)
	want := desired.Expand(info)
	var d PrivilegeDiff
	missing := minus(want, have)
	if desired.all && len(missing) > 0 {
		// GRANT ALL covers members the catalog may not know (newer servers).
		d.Grant = []Privilege{AllPrivileges}
	} else {
		d.Grant = missing
	}
	for _, p := range minus(have, want) {
		if slices.Contains(catalog, p) || p == GrantOption {
			d.Revoke = append(d.Revoke, p)
		}
	}
	return d
}

func sortedUnique(ps []Privilege) []Privilege {
	out := slices.Clone(ps)
	slices.Sort(out)
	return slices.Compact(out)
}

func minus(a, b []Privilege) []Privilege {
	var out []Privilege
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, p)
		}
	}
	return out
}

func joinPrivileges(ps []Privilege) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}
