// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// AdminRight is one right the admin login needs, with the statements (run
// by a superuser) that grant it.
type AdminRight struct {
	Name string
	Fix  []string
}

// AdminAccount identifies the admin login for fix statements. Host is the
// MySQL host part of CURRENT_USER() ("%" when unknown); unused on PostgreSQL.
type AdminAccount struct {
	User string
	Host string
}

func (a AdminAccount) mysql() string { return mysqlLiteral(a.User) + "@" + mysqlLiteral(a.Host) }

// mysqlGlobalRights are needed on *.* besides the database privileges.
var mysqlGlobalRights = []Privilege{"CREATE", "DROP", "CREATE USER"}

// MySQLAdminGrants is what the documented minimal-rights admin holds on
// MySQL/MariaDB: global CREATE, DROP, CREATE USER, and every database-level
// privilege WITH GRANT OPTION (a login can only grant what it holds). It is
// neither SUPER nor ALL.
func MySQLAdminGrants(info ServerInfo, admin AdminAccount) []string {
	return []string{
		fmt.Sprintf("GRANT %s ON *.* TO %s", joinPrivileges(mysqlGlobalRights), admin.mysql()),
		fmt.Sprintf("GRANT %s ON *.* TO %s WITH GRANT OPTION", joinPrivileges(mysqlCatalogOrdered(info)), admin.mysql()),
	}
}

// PostgresAdminGrants is what the documented minimal-rights admin holds on
// PostgreSQL: CREATEDB and CREATEROLE, not superuser.
func PostgresAdminGrants(admin AdminAccount) []string {
	return []string{fmt.Sprintf("ALTER ROLE %s CREATEDB CREATEROLE", pgIdent(admin.User))}
}

func mysqlCatalogOrdered(info ServerInfo) []Privilege {
	var out []Privilege
	for _, c := range MySQLDBColumns(info) {
		out = append(out, c.Privilege)
	}
	return out
}

// MySQLHeldRights is what the admin holds globally, read from SHOW GRANTS.
type MySQLHeldRights struct {
	Global      []Privilege
	GrantOption bool
	All         bool // ALL PRIVILEGES ON *.* (expanded into Global too)
}

// Privilege lists are words, spaces, underscores and commas (checked again
// word by word in ParseMySQLGrantLine).
var mysqlGlobalGrantLine = regexp.MustCompile(`^GRANT ([A-Za-z_, ]+?) ON \*\.\* TO `)

// ParseMySQLGrantLine reads one SHOW GRANTS line and adds its global
// privileges to h. Only the privilege list before ON *.* and a trailing
// WITH GRANT OPTION are looked at: MariaDB prints the password hash in the
// same line, and nothing of the rest is ever kept.
func (h *MySQLHeldRights) ParseMySQLGrantLine(info ServerInfo, line string) {
	m := mysqlGlobalGrantLine.FindStringSubmatch(line)
	if m == nil {
		return
	}
	var privs []Privilege
	for _, part := range strings.Split(m[1], ",") {
		p := NormalizePrivilege(part)
		// A word ON inside the list means the lazy match stopped at a
		// later "ON *.*": not a global grant line, ignore all of it.
		if slices.Contains(strings.Fields(string(p)), "ON") {
			return
		}
		// An empty item ("GRANT , ON *.*") is no line SHOW GRANTS prints:
		// ignore all of it rather than record an empty right.
		if p == "" {
			return
		}
		privs = append(privs, p)
	}
	for _, p := range privs {
		if p == AllPrivileges || p == "ALL" {
			h.All = true
			h.Global = append(h.Global, mysqlGlobalRights...)
			h.Global = append(h.Global, Catalog(info)...)
			continue
		}
		h.Global = append(h.Global, p)
	}
	if strings.HasSuffix(strings.TrimSpace(line), " WITH GRANT OPTION") {
		h.GrantOption = true
	}
}

// MissingMySQLAdminRights lists what the admin lacks, each with its fix.
func MissingMySQLAdminRights(info ServerInfo, admin AdminAccount, held MySQLHeldRights) []AdminRight {
	var missing []AdminRight
	fixes := MySQLAdminGrants(info, admin)
	for _, r := range mysqlGlobalRights {
		if !slices.Contains(held.Global, r) {
			missing = append(missing, AdminRight{Name: fmt.Sprintf("global %s", r), Fix: fixes[:1]})
		}
	}
	for _, p := range mysqlCatalogOrdered(info) {
		if !slices.Contains(held.Global, p) {
			missing = append(missing, AdminRight{Name: fmt.Sprintf("global %s WITH GRANT OPTION (to grant it on tenant databases)", p), Fix: fixes[1:]})
		}
	}
	if !held.GrantOption {
		missing = append(missing, AdminRight{Name: "GRANT OPTION on *.* (to grant tenant privileges)", Fix: fixes[1:]})
	}
	return missing
}

// PostgresHeldRights is the admin's role attributes from pg_roles.
type PostgresHeldRights struct{ Superuser, CreateDB, CreateRole bool }

// MissingPostgresAdminRights lists what the admin lacks, each with its fix.
func MissingPostgresAdminRights(admin AdminAccount, held PostgresHeldRights) []AdminRight {
	if held.Superuser {
		return nil
	}
	fix := PostgresAdminGrants(admin)
	var missing []AdminRight
	if !held.CreateDB {
		missing = append(missing, AdminRight{Name: "CREATEDB (create tenant databases)", Fix: fix})
	}
	if !held.CreateRole {
		missing = append(missing, AdminRight{Name: "CREATEROLE (create and drop tenant logins)", Fix: fix})
	}
	return missing
}

// MissingAdminRightsError refuses with MissingAdminRights, listing each
// missing right and the statements that grant it.
func MissingAdminRightsError(server string, admin AdminAccount, missing []AdminRight) error {
	if len(missing) == 0 {
		return nil
	}
	var why strings.Builder
	fmt.Fprintf(&why, "The admin login %q lacks rights tenantdb needs:\n", admin.User)
	var fixes []string
	for _, m := range missing {
		fmt.Fprintf(&why, "  - %s\n", m.Name)
		for _, f := range m.Fix {
			if !slices.Contains(fixes, f) {
				fixes = append(fixes, f)
			}
		}
	}
	return refuse(MissingAdminRights, fmt.Sprintf("server %q", server), strings.TrimRight(why.String(), "\n"),
		"Run as a superuser:\n  "+strings.Join(fixes, ";\n  ")+";")
}
