// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/faultpoint"
)

// TestClaimOutcomeUnknown: a CREATE DATABASE claim whose connection is lost
// ends knowing whether the database is ours. On MariaDB the claim mark
// settles it; on PostgreSQL the nonce database and its rename do
// (ddl.PostgresClaim). Lost after the claim ran, the database is ours
// (recorded with its identity); lost before, nothing exists and the error
// says so.
func TestClaimOutcomeUnknown(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		lost := mysql.ErrInvalidConn // classified outcome-unknown
		if session.Classify(lost) != connect.ClassOutcomeUnknown {
			t.Fatalf("the injected error is classified %s, want outcome-unknown", session.Classify(lost))
		}

		after := e.newDB("lostafter")
		disarm := faultpoint.Inject(session.FaultClaimLostAfter, lost, after.String())
		st, id, err := e.s.ClaimDatabase(e.ctx, after, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		disarm()
		_, _, _, exists := e.dbState(after)
		if !exists {
			t.Fatalf("the claim ran but %s does not exist", after)
		}
		if err != nil {
			t.Fatalf("the claim took effect, so the database is ours: want success; got %v", err)
		}
		wantPrefix := map[ddl.Flavor]string{ddl.FlavorMariaDB: "mariadb:tenantdb:", ddl.FlavorMySQL: "mysql:", ddl.FlavorPostgres: "pg:"}[e.s.Info().Flavor]
		if st == nil || !id.Strong() || !strings.HasPrefix(string(id), wantPrefix) {
			t.Fatalf("want the database with its identity, got %v %q", st, id)
		}
		if e.isPG() {
			e.noNonceLeft()
			// Lost after the nonce database was made: finished, ours.
			mid := e.newDB("lostmid")
			disarm := faultpoint.Inject(faultNonceLostAfter, lost, mid.String())
			st, id, err := e.s.ClaimDatabase(e.ctx, mid, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
			disarm()
			if err != nil || st == nil || !id.Strong() {
				t.Fatalf("lost after the nonce database was made: want the claim finished; got %v %q %v", st, id, err)
			}
			if _, _, _, exists := e.dbState(mid); !exists {
				t.Fatalf("%s does not exist after a finished claim", mid)
			}
			if connect, _, _ := e.publicRights(mid); connect {
				t.Fatalf("%s is open to PUBLIC: the lost plan's REVOKE was not finished", mid)
			}
			e.noNonceLeft()
		}

		before := e.newDB("lostbefore")
		disarm = faultpoint.Inject(session.FaultClaimLostBefore, lost, before.String())
		_, _, err = e.s.ClaimDatabase(e.ctx, before, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine))
		disarm()
		if err == nil {
			t.Fatal("a claim lost before it ran succeeded")
		}
		if _, _, _, exists := e.dbState(before); exists {
			t.Fatalf("%s exists although the claim never ran", before)
		}
		if !strings.Contains(err.Error(), "nothing was created") {
			t.Fatalf("the error should say nothing was created: %v", err)
		}
		if e.isPG() {
			e.noNonceLeft()
		}
	})
}

// noNonceLeft fails when a PostgreSQL nonce database (ddl.PostgresClaim)
// was left behind.
func (e *env) noNonceLeft() {
	e.t.Helper()
	db, err := e.ts.SuperDB("")
	if err != nil {
		e.t.Fatal(err)
	}
	// Other tests share the server and claim databases in parallel: their
	// nonce databases exist for a moment before the rename. One left behind
	// is still there after a few seconds.
	var n int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if err := db.QueryRowContext(e.ctx, `SELECT count(*) FROM pg_database WHERE datname LIKE $1`, ddl.NonceDatabasePrefix+"%").Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			break
		}
	}
	if n != 0 {
		e.t.Fatalf("%d nonce databases (%s...) were left behind", n, ddl.NonceDatabasePrefix)
	}
}

// TestOwnerClaimOutcomeUnknown: a CREATE USER/ROLE claim whose connection
// is lost is settled by whether the login now there accepts the password
// this claim set: ours (finished, with its identity), someone else's
// (PreExistingOwnerUser, untouched), or none (nothing was created).
func TestOwnerClaimOutcomeUnknown(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		lost := mysql.ErrInvalidConn
		all := mustPrivileges(t, e.engine, "ALL PRIVILEGES")

		db, user := e.newDB("olost"), e.newUser("olost")
		if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		disarm := faultpoint.Inject(faultOwnerClaimLostAfter, lost, user.String())
		id, err := e.s.ClaimOwner(e.ctx, db, user, mustPassword(t, granteePW), all, ddl.ConnectionLimit{})
		disarm()
		if err != nil || id == "" {
			t.Fatalf("the claim took effect, so the login is ours: want success with its identity; got %q, %v", id, err)
		}
		e.mustCan(user, db, "SELECT 1")

		// Someone else's login of that name, with another password.
		foreign := e.plainLogin("oforeign", "Foreign-pw-9")
		db2 := e.newDB("olost")
		if err := e.s.CreateDatabase(e.ctx, db2, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		disarm = faultpoint.Inject(faultOwnerClaimLostBefore, lost, foreign.String())
		_, err = e.s.ClaimOwner(e.ctx, db2, foreign, mustPassword(t, granteePW), all, ddl.ConnectionLimit{})
		disarm()
		if ddl.ReasonOf(err) != ddl.PreExistingOwnerUser {
			t.Fatalf("a lost claim that finds someone else's login: want PreExistingOwnerUser, got %v", err)
		}
		if _, err := e.openAs(foreign.String(), "Foreign-pw-9", ""); err != nil {
			t.Fatalf("the foreign login was changed: %v", err)
		}

		// Nothing there: nothing was created.
		none := e.newUser("onone")
		disarm = faultpoint.Inject(faultOwnerClaimLostBefore, lost, none.String())
		_, err = e.s.ClaimOwner(e.ctx, db2, none, mustPassword(t, granteePW), all, ddl.ConnectionLimit{})
		disarm()
		if err == nil || !strings.Contains(err.Error(), "nothing was created") {
			t.Fatalf("a lost claim that finds no login: want \"nothing was created\", got %v", err)
		}
		if e.loginExists(none) {
			t.Fatalf("%s exists although the claim never ran", none)
		}
	})
}
