// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"slices"
	"strings"
)

// AdminExcess is what the admin login holds beyond the documented minimal
// rights that the README says it must not hold (PostgreSQL SUPERUSER;
// MySQL/MariaDB SUPER or ALL PRIVILEGES on *.*). tenantdb works with such
// a login, so this is a warning, not a refusal: the least-privilege
// promise is the operator's to keep, and the statements narrow the login
// to exactly the rights MissingAdminRights checks.
type AdminExcess struct {
	Rights []string // what is held beyond the minimum, e.g. "SUPERUSER"
	Narrow []string // statements, run as a superuser, that leave the minimal rights
}

// Empty reports whether the admin holds nothing it should not.
func (e AdminExcess) Empty() bool { return len(e.Rights) == 0 }

// Detail is the warning's text after the object: what is held, why it
// matters, and the statements that narrow the login.
func (e AdminExcess) Detail(admin AdminAccount) string {
	return fmt.Sprintf("the admin login %q holds %s, more than tenantdb needs. It works, but every tenant's "+
		"safety then rests on tenantdb alone: a superuser is not held back by the server's own checks (ownership, "+
		"the grant option, account rights), so a mistake or a stolen admin password reaches every database on the "+
		"server. Narrow it, as a superuser (a separate admin login, as the README's \"Admin rights\" shows, does the "+
		"same for a login you cannot narrow):\n  %s;",
		admin.User, strings.Join(e.Rights, " and "), strings.Join(e.Narrow, ";\n  "))
}

// ExcessPostgresAdminRights: a superuser admin.
func ExcessPostgresAdminRights(admin AdminAccount, held PostgresHeldRights) AdminExcess {
	if !held.Superuser {
		return AdminExcess{}
	}
	return AdminExcess{
		Rights: []string{"SUPERUSER"},
		Narrow: []string{fmt.Sprintf("ALTER ROLE %s NOSUPERUSER CREATEDB CREATEROLE", pgIdent(admin.User))},
	}
}

// ExcessMySQLAdminRights: ALL PRIVILEGES on *.*, or any other global
// privilege beyond the documented ones (SUPER, FILE, PROCESS, MySQL's
// dynamic privileges, ...). ALL is narrowed by revoking everything and
// granting the minimal rights again; a list by revoking just that list. A
// server that prints ALL as the list of every privilege (MariaDB does when
// the grantor held less than everything) gets the list.
func ExcessMySQLAdminRights(info ServerInfo, admin AdminAccount, held MySQLHeldRights) AdminExcess {
	if held.All {
		return AdminExcess{
			Rights: []string{"ALL PRIVILEGES ON *.*"},
			Narrow: append([]string{"REVOKE ALL PRIVILEGES, GRANT OPTION FROM " + admin.mysql()}, MySQLAdminGrants(info, admin)...),
		}
	}
	needed := append(slices.Clone(mysqlGlobalRights), mysqlCatalogOrdered(info)...)
	var extra []Privilege
	for _, p := range held.Global {
		if p != "USAGE" && !slices.Contains(needed, p) && !slices.Contains(extra, p) {
			extra = append(extra, p)
		}
	}
	if len(extra) == 0 {
		return AdminExcess{}
	}
	return AdminExcess{
		Rights: []string{joinPrivileges(extra) + " ON *.*"},
		Narrow: []string{fmt.Sprintf("REVOKE %s ON *.* FROM %s", joinPrivileges(extra), admin.mysql())},
	}
}
