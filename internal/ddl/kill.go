// SPDX-License-Identifier: MPL-2.0

package ddl

import "strconv"

// MySQLKillQuery is the statement that interrupts what the MySQL/MariaDB
// connection id is running, leaving the connection open (the only way to
// stop a statement there: closing the client's connection does not).
func MySQLKillQuery(connectionID int64) string {
	return "KILL QUERY " + strconv.FormatInt(connectionID, 10)
}
