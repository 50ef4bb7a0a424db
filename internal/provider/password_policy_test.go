// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
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
	s := secondServer(t, testAccServer(t, "mariadb"))
	s.exec(t, "", "INSTALL SONAME 'simple_password_check'")
	db, user := uniqueName("pol"), uniqueName("polo")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	w := newCLIWorkspace(t)
	w.write(s.serverHCL("") + ownerHCL(db, user, "weak", 1, ""))
	r := w.run("apply", "-auto-approve").mustFail(t, "a weak password")
	if !strings.Contains(r.Output, "password policy") || !strings.Contains(r.Output, "does not satisfy") {
		t.Fatalf("the error does not say the server's policy rejected the password:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, "simple_password_check_minimal_length") {
		t.Fatalf("the error does not give the policy's settings:\n%s", r.Output)
	}
	if strings.Contains(r.Output, "PrimaryUnavailable") {
		t.Fatalf("a policy rejection was reported as an unavailable server:\n%s", r.Output)
	}
	if s.loginExists(t, user) {
		t.Fatal("the rejected login exists")
	}
	strong := "Str0ng-Passw0rd!"
	w.write(s.serverHCL("") + ownerHCL(db, user, strong, 1, ""))
	w.run("apply", "-auto-approve").mustSucceed(t, "a strong password")
	if err := s.as(user, strong, db, "CREATE TABLE "+s.table(db, "t")+" (v int)"); err != nil {
		t.Fatalf("the owner cannot log in with its password: %v", err)
	}
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
}
