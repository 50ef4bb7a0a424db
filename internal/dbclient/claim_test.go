// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestClaimOutcomeUnknown: a CREATE DATABASE claim whose connection is lost
// ends knowing, where the engine allows, whether the database is ours. On
// MariaDB the claim mark settles it: lost after the statement ran, it is
// ours (recorded with its identity); lost before, nothing exists and the
// error says so. PostgreSQL cannot tell: the lost connection is reported,
// never a database adopted.
func TestClaimOutcomeUnknown(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		lost := mysql.ErrInvalidConn // classified outcome-unknown
		if Classify(lost) != OutcomeUnknown {
			t.Fatalf("the injected error is classified %s, want outcome-unknown", Classify(lost))
		}

		after := e.newDB("lostafter")
		disarm := InjectFault(FaultClaimLostAfter, lost, after.String())
		st, id, err := e.s.ClaimDatabase(e.ctx, after, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		disarm()
		_, _, _, exists := e.dbState(after)
		if !exists {
			t.Fatalf("the claim ran but %s does not exist", after)
		}
		if e.isPG() {
			if err == nil || !strings.Contains(err.Error(), "may or may not have taken effect") {
				t.Fatalf("PostgreSQL cannot prove the database is ours, want the outcome-unknown error; got %v", err)
			}
		} else {
			if err != nil {
				t.Fatalf("MariaDB: the claim mark proves the database is ours, want success; got %v", err)
			}
			if st == nil || !id.Strong() || !strings.HasPrefix(string(id), "mariadb:tenantdb:") {
				t.Fatalf("MariaDB: want the database with its claim-mark identity, got %v %q", st, id)
			}
		}

		before := e.newDB("lostbefore")
		disarm = InjectFault(FaultClaimLostBefore, lost, before.String())
		_, _, err = e.s.ClaimDatabase(e.ctx, before, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		disarm()
		if err == nil {
			t.Fatal("a claim lost before it ran succeeded")
		}
		if _, _, _, exists := e.dbState(before); exists {
			t.Fatalf("%s exists although the claim never ran", before)
		}
		if !e.isPG() && !strings.Contains(err.Error(), "nothing was created") {
			t.Fatalf("MariaDB: the error should say nothing was created: %v", err)
		}
	})
}
