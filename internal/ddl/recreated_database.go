// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// WithOthersNamed adds to a refusal on a re-created database (e) the
// other accounts that hold rows on db's name (others): tenantdb revokes
// only its own account's rows, so a DBA's, another tenant's or a
// superuser's row is never touched; the refusal names them, with the
// statement that revokes each, for the user to judge. A resource that
// depends on the refusing one does not run in this apply: its rows are
// among them. With no others e is returned as it is.
func WithOthersNamed(e *Error, info ServerInfo, db DatabaseName, others []string) *Error {
	if len(others) == 0 {
		return e
	}
	out := *e
	var stmts []string
	for _, k := range others {
		if u, err := ParseAccountKey(EngineMySQL, k); err == nil {
			stmts = append(stmts, RevokeAllText(info, db, u))
		}
	}
	out.Why += fmt.Sprintf(" Other accounts hold rows on the name too, and tenantdb revoked none of them (it revokes "+
		"only what this resource granted; mysql.db does not say who granted a row): %s. Judge each: a DBA's or "+
		"another tenant's account may be there on purpose; an account the old database's resources granted is not "+
		"meant to read the new one.", quoteList(others))
	if len(stmts) > 0 {
		out.Why += " To revoke one: " + strings.Join(stmts, " ")
	}
	return &out
}

// quoteList is names quoted and joined with ", ".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
