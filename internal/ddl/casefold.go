// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// CheckNameCase refuses a database name the server would store in another
// case. With lower_case_table_names = 1 MySQL/MariaDB create `Acme` as
// `acme`; a resource that recorded "Acme" would then look for a name the
// server does not report and forget (and orphan) its own database. The
// name must be written as the server stores it. At 2 the server keeps the
// case as given and compares without it, so nothing needs refusing.
func CheckNameCase(info ServerInfo, server string, db DatabaseName) error {
	if info.Flavor == FlavorPostgres || info.LowerCaseTableNames != 1 || db.s == strings.ToLower(db.s) {
		return nil
	}
	return refuse(InvalidIdentifier, fmt.Sprintf("database name %q on server %q", db.s, server),
		"The server folds database names to lower case (lower_case_table_names = 1): it would create "+
			fmt.Sprintf("%q, and the name in state would no longer match the server's.", strings.ToLower(db.s)),
		fmt.Sprintf("Write the name in lower case: name = %q.", strings.ToLower(db.s)))
}
