// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// systemAccounts are built-in accounts of the supported servers. Matching is
// case-insensitive: refusing "ROOT" costs nothing, adopting it could cost a
// server.
var systemAccounts = []string{
	"root", "mysql.sys", "mysql.session", "mysql.infoschema",
	"mariadb.sys", "debian-sys-maint", "postgres",
}

// ReservedNames is the set of principals no tenant may own or be granted to:
// the system accounts, every pg_* role, tenantdb's scratch namespace (its
// keeper roles), the server's admin login and its reserved_usernames.
type ReservedNames struct {
	server string
	admin  string
	extra  []string
}

// NewReservedNames builds the reserved set for one server.
func NewReservedNames(server, admin string, extra []string) ReservedNames {
	return ReservedNames{server: server, admin: admin, extra: append([]string(nil), extra...)}
}

// why returns a non-empty explanation when name is reserved.
func (r ReservedNames) why(name string) string {
	for _, a := range systemAccounts {
		if strings.EqualFold(name, a) {
			return "is a system account of the server"
		}
	}
	if isScratchName(name) {
		return "starts with " + NonceDatabasePrefix + " (in any case), tenantdb's scratch namespace, where the keeper roles of retained PostgreSQL databases live"
	}
	if len(name) >= 3 && strings.EqualFold(name[:3], "pg_") {
		return "starts with pg_, which PostgreSQL reserves for its own roles"
	}
	if r.admin != "" && strings.EqualFold(name, r.admin) {
		return fmt.Sprintf("is the admin login of server %q", r.server)
	}
	for _, e := range r.extra {
		if strings.EqualFold(name, e) {
			return fmt.Sprintf("is listed in reserved_usernames of server %q", r.server)
		}
	}
	return ""
}

// CheckOwner refuses an owner login that is reserved (OwnerUserReserved):
// setting its password would reset a privileged account.
func (r ReservedNames) CheckOwner(name string) error {
	if why := r.why(name); why != "" {
		return refuse(OwnerUserReserved, fmt.Sprintf("owner username %q", printable(name)),
			fmt.Sprintf("The username %s. tenantdb would set its password and could drop it.", why),
			"Choose a username that belongs to this tenant alone.")
	}
	return nil
}

// CheckGrantee refuses a grant to a reserved principal (GrantUserReserved).
func (r ReservedNames) CheckGrantee(name string) error {
	if why := r.why(name); why != "" {
		return refuse(GrantUserReserved, fmt.Sprintf("grant username %q", printable(name)),
			fmt.Sprintf("The username %s; tenant grants are for ordinary principals only.", why),
			"Grant to an ordinary principal, and manage system and admin accounts outside tenantdb.")
	}
	return nil
}
