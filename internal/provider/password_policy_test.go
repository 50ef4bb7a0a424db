// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"testing"
)

// TestAccTenantOwner_passwordPolicy (MariaDB with simple_password_check and
// strict_password_validation, on a server of its own): the server's policy
// judges the owner's password. A weak one is a clear error quoting the
// server's words, not retried, not PrimaryUnavailable, and creates nothing;
// a strong one works and the owner logs in with it. (Sending the hash, as
// without a plugin, was refused as "the server is down" with strict
// validation on, and silently bypassed the policy with it off.)
func TestAccTenantOwner_passwordPolicy(t *testing.T) {
	s := secondServer(t, testAccServerOnly(t, "mariadb", "MariaDB's simple_password_check and strict_password_validation (MySQL's validate_password: TestAccMySQL_serverSettings)"))
	s.exec(t, "", "INSTALL SONAME 'simple_password_check'")
	requirePasswordPolicy(t, s, "pol", "simple_password_check_minimal_length")
}
