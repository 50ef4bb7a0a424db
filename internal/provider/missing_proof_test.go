// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Issue 54, items 1 and 2 (PROOFS.md, "A missing proof is never a
// replacement"): a tenant removes its database's mark; nothing shows the
// database is another one, so every resource reads it as unproven, and
// tenantdb touches no account's rows but its own.

// dbRowHolders are the accounts ("user@host") holding a mysql.db row on
// db's (escaped) name, by the superuser's reading.
func (s accServer) dbRowHolders(t *testing.T, db string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, a := range s.superStrings(t, `SELECT CONCAT(User, '@', Host) FROM mysql.db WHERE Db = ?`, mysqlPattern(db)) {
		out[a] = true
	}
	return out
}

// requireHolders fails unless each account in want holds a row on db.
func (s accServer) requireHolders(t *testing.T, db, when string, want ...string) {
	t.Helper()
	got := s.dbRowHolders(t, db)
	for _, a := range want {
		if !got[a] {
			t.Fatalf("%s: %s lost its mysql.db row on %s (rows: %v)", when, a, db, got)
		}
	}
}

// TestAccMissingProof_tenantDropsMark: a DBA grants 'backup'@'localhost'
// and another tenant's owner SELECT on a tenant database, then the tenant
// removes the database's mark (MySQL: DROP PROCEDURE tenantdb_mark_… as the
// owner; MariaDB: ALTER DATABASE … with an empty COMMENT). The plan runs no SQL, warns
// that the database is unproven (database, owner and grant) and plans no
// change; the apply does not fail (no IdentityMismatch) and revokes
// nothing: the owner's, the grantee's, backup's and the other tenant's
// rows are all still there, and so is the tenant's table. Destroy under
// "delete" then drops nothing and revokes only what the owner and the grant
// resources granted: backup's and the other tenant's rows stay. On 65d3dd4
// the apply failed on the owner and the grant and revoked all four.
func TestAccMissingProof_tenantDropsMark(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		w, db, owner, grantee := s.trustTenant(t, "pmiss", "delete")
		backup, other := uniqueName("pmissb"), uniqueName("pmisso")
		t.Cleanup(func() {
			s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'localhost'", backup))
			s.dropLogins(t, other)
		})
		s.principal(t, other)
		s.exec(t, "", fmt.Sprintf("CREATE USER '%s'@'localhost' IDENTIFIED BY '%s'", backup, principalPW),
			fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'localhost'", s.ident(mysqlPattern(db)), backup),
			fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", s.ident(mysqlPattern(db)), other))
		all := []string{owner + "@%", grantee + "@%", backup + "@localhost", other + "@%"}
		s.requireHolders(t, db, "before", all...)

		drop := "ALTER DATABASE " + s.ident(db) + " COMMENT ''"
		if s.Kind() == "mysql" {
			drop = "DROP PROCEDURE " + s.ident(db) + "." + s.ident(s.requireMark(t, db).Name)
		}
		if err := s.as(owner, trustOwnerPW, db, drop); err != nil {
			t.Fatalf("the owner cannot remove its database's mark (the event this test is about): %v", err)
		}

		var proof noSQLProof
		s.beforeRefusal(t, &proof, "")
		plan := w.run("plan").mustSucceed(t, "plan after the mark was removed")
		proof.assert(t, "a plan after the tenant removed the mark")
		unproven := 0
		for _, d := range plan.Diagnostics {
			if d.Severity == "warning" && strings.HasPrefix(d.Summary, "DriftDetected: ") && strings.Contains(d.Detail, "unproven") {
				unproven++
			}
		}
		if unproven < 3 {
			t.Fatalf("want the database, the owner and the grant each warned unproven, got %d:\n%+v", unproven, plan.Diagnostics)
		}
		for addr, act := range plannedActions(plan) {
			if act != "no-op" {
				t.Fatalf("the plan %ss %s on an unproven database (want no change)", act, addr)
			}
		}

		mark := s.MarkLog(t)
		apply := w.run("apply", "-auto-approve").mustSucceed(t, "apply on the unproven database")
		apply.forbidDiag(t, "IdentityMismatch")
		s.requireNoRevoke(t, mark, []string{s.Admin.Username}, "the apply on the unproven database")
		s.requireHolders(t, db, "after the apply", all...)
		if n := s.tableRows(t, db); n != 1 {
			t.Fatalf("the tenant's table has %d rows after the apply, want 1", n)
		}
		w.run("apply", "-auto-approve").mustSucceed(t, "a later apply").forbidDiag(t, "IdentityMismatch")

		// tenantdb revokes only what it granted: a DBA's INSERT on the
		// grantee's own row (beside tenantdb's SELECT) survives the grant's
		// destroy, named in a warning; the ledger records the SELECT alone.
		if got := s.ledgerGranted(t, grantee, db); got != "SELECT" {
			t.Fatalf("the ledger records %q granted to %s on %s, want SELECT", got, grantee, db)
		}
		s.exec(t, "", fmt.Sprintf("GRANT INSERT ON %s.* TO '%s'@'%%'", s.ident(mysqlPattern(db)), grantee))
		destroyed := w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		d := destroyed.requireDiag(t, "warning", "DatabaseDropSkipped: ")
		if !strings.Contains(d.Detail, db) {
			t.Fatalf("DatabaseDropSkipped does not name the database: %q", d.Detail)
		}
		if k := destroyed.requireDiag(t, "warning", "Privileges tenantdb never granted were left"); !strings.Contains(k.Detail, "REVOKE INSERT ON") {
			t.Fatalf("the warning does not give the statement: %q", k.Detail)
		}
		if got := s.dbRows(t, db, grantee)["%"]; got != "NYN" {
			t.Fatalf("after destroy the grantee holds %q (Select, Insert, Update) on %s: want the DBA's INSERT alone", got, db)
		}
		s.exec(t, "", fmt.Sprintf("REVOKE INSERT ON %s.* FROM '%s'@'%%'", s.ident(mysqlPattern(db)), grantee))
		if n := s.tableRows(t, db); n != 1 {
			t.Fatalf("the tenant's table has %d rows after destroy, want 1 (never dropped)", n)
		}
		s.requireOffboarded(t, db, owner, trustOwnerPW, grantee)
		s.requireHolders(t, db, "after destroy", backup+"@localhost", other+"@%")
		if err := s.as(other, principalPW, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
			t.Fatalf("the other tenant's owner lost the SELECT a DBA gave it: %v", err)
		}
	})
}

// ledgerGranted is what tenantdb's ledger records as granted to user (at
// '%') on db: the newest grant row's privileges, "" for none.
func (s accServer) ledgerGranted(t *testing.T, user, db string) string {
	t.Helper()
	var privs string
	err := s.super(t, "").QueryRow("SELECT privileges FROM tenantdb_claim_ledger.claims WHERE kind = 'grant' AND object = ? "+
		"AND host = '%' AND db = ? AND status = 'granted' ORDER BY seq DESC LIMIT 1", user, db).Scan(&privs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) && !strings.Contains(err.Error(), "1146") && !strings.Contains(err.Error(), "1049") {
		t.Fatal(err) // 1146, 1049: no ledger (an earlier release on MariaDB)
	}
	return privs
}
