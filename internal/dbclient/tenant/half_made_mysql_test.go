// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestHalfMadeMySQL_adoptionRules (issue 35 item 5): on MySQL 8.0.21+ an
// owner create killed after its CREATE USER leaves a login whose ATTRIBUTE
// mark is open; the next create of the same login for the same database
// adopts it (its password set again from the configuration, its grant, the
// done mark). Anything else under the name is refused and left as found: a
// done mark (PreExistingOwnerUser with the import block), an open mark of
// another database, an open mark of a rotation from another login, and an
// open mark the login wrote into its own ATTRIBUTE with a password change
// (issue 43: the ledger's row, written before the CREATE USER, is the
// mark; the ATTRIBUTE only corroborates it). The login cannot change its
// ATTRIBUTE alone (1227).
func TestHalfMadeMySQL_adoptionRules(t *testing.T) {
	t.Parallel()
	if !strings.Contains(","+strings.Join(engines, ",")+",", ",mysql,") {
		t.Skip("MySQL only: its logins carry the mark in their ATTRIBUTE")
	}
	e := newEnv(t, "mysql")
	s, d := e.s, e.s.dialect()
	privs := mustPrivileges(t, e.engine, "ALL PRIVILEGES")
	// db gets the adopted owner; free has none, so a refusal there is
	// about the login alone.
	db, free, other := e.newDB("hmy"), e.newDB("hmyf"), e.newDB("hmyx")
	for _, name := range []ddl.DatabaseName{db, free, other} {
		if _, _, err := s.ClaimDatabase(e.ctx, name, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
	}
	// halfMade runs what a create killed after its CREATE USER ran, as
	// ClaimOwner builds it, with the mark of database markDB (taking over
	// from the login with claim mark from, for a rotation).
	halfMade := func(t *testing.T, user ddl.Username, pw string, markDB ddl.DatabaseName, from string) {
		t.Helper()
		mark, err := s.proof.OwnerMark(e.ctx, markDB, from)
		if err != nil {
			t.Fatal(err)
		}
		claim := ddl.NewClaimMark()
		create := ddl.MarkOwnerPlan(d, ddl.CreateMarkedOwner(d, markDB, user, mustPassword(t, pw), privs, claim), user, mark)
		// The ledger's open row, then the CREATE USER: what ClaimOwner
		// runs before the kill (the ledger is written first).
		if err := s.proof.LedgerOpen(e.ctx, claim, user, markDB, from, privs); err != nil {
			t.Fatal(err)
		}
		if err := s.sess.Exec(e.ctx, ddl.Plan{Statements: create.Statements[:1]}); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.proof.LoginMark(e.ctx, user); err != nil || !ok || got.Finished || got.Database != markDB || got.FromRole != from {
			t.Fatalf("mark of the half-made %s = %+v, %v, %v; want an open mark of %s from %q", user, got, ok, err, markDB, from)
		}
	}
	logsIn := func(user ddl.Username, pw string) bool {
		conn, err := e.openAs(user.String(), pw, "")
		if err == nil {
			conn.Close()
		}
		return err == nil
	}
	refused := func(t *testing.T, what string, user ddl.Username, pw string) {
		t.Helper()
		_, err := s.ClaimOwner(e.ctx, free, user, mustPassword(t, "Other-pw-9"), privs, ddl.ConnectionLimit{})
		var de *ddl.Error
		if !errors.As(err, &de) || de.Reason != ddl.PreExistingOwnerUser {
			t.Fatalf("%s: ClaimOwner = %v; want PreExistingOwnerUser", what, err)
		}
		if !logsIn(user, pw) || logsIn(user, "Other-pw-9") {
			t.Errorf("%s: the refused login's password was changed", what)
		}
		if n := superScalar[int](e, `SELECT count(*) FROM mysql.db WHERE User = ? AND Host = '%'`, user.String()); n != 0 {
			t.Errorf("%s: the refused login was granted on %d database(s)", what, n)
		}
	}

	t.Run("open mark of this database: adopted", func(t *testing.T) {
		user := e.newUser("hmyo")
		halfMade(t, user, "Half-made-1", db, "")
		before, _, err := s.proof.LoginIdentity(e.ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		id, err := s.ClaimOwner(e.ctx, db, user, mustPassword(t, "Configured-2"), privs, ddl.ConnectionLimit{})
		if err != nil {
			t.Fatalf("the open login of this database was not adopted: %v", err)
		}
		if id != before {
			t.Errorf("identity after the adoption = %s, want the half-made login's %s", id, before)
		}
		tenant := e.mustOpenAs(user.String(), "Configured-2", db.String())
		exec(t, tenant, "CREATE TABLE t (v int)")
		if got, ok, err := s.proof.LoginMark(e.ctx, user); err != nil || !ok || !got.Finished {
			t.Fatalf("mark after the adoption = %+v, %v, %v; want done", got, ok, err)
		}

		// The login cannot reopen its own mark (nor write any attribute).
		_, err = tenant.ExecContext(e.ctx, `ALTER USER CURRENT_USER() ATTRIBUTE '{"tenantdb_status": "open"}'`)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1227 {
			t.Errorf("the tenant changed its own attribute: %v; want error 1227", err)
		}
		tenant.Close()
		if got, ok, err := s.proof.LoginMark(e.ctx, user); err != nil || !ok || !got.Finished {
			t.Fatalf("mark after the tenant's attempt = %+v, %v, %v; want done", got, ok, err)
		}

		// Done: a working owner, never taken over by a create.
		_, err = s.ClaimOwner(e.ctx, db, user, mustPassword(t, "Other-pw-9"), privs, ddl.ConnectionLimit{})
		var de *ddl.Error
		if !errors.As(err, &de) || de.Reason != ddl.PreExistingOwnerUser || !strings.Contains(de.Fix, "import {") {
			t.Fatalf("a done login: ClaimOwner = %v; want PreExistingOwnerUser with the import block", err)
		}
		if !logsIn(user, "Configured-2") {
			t.Errorf("the done login's password was changed by the refused create")
		}
	})
	t.Run("open mark of another database: refused", func(t *testing.T) {
		user := e.newUser("hmyx")
		halfMade(t, user, "Half-made-3", other, "")
		refused(t, "another database's open login", user, "Half-made-3")
	})
	t.Run("open mark of a rotation from another login: refused", func(t *testing.T) {
		user := e.newUser("hmyr")
		halfMade(t, user, "Half-made-4", free, ddl.NewClaimMark().String())
		refused(t, "a rotation's open login", user, "Half-made-4")
	})
	t.Run("open mark the login wrote itself: refused", func(t *testing.T) {
		// Issue 43 item 1: any login may rewrite its own ATTRIBUTE bundled
		// with a password change; without the ledger's row it is no mark.
		user := e.newUser("hmys")
		exec(t, e.superDB(), "CREATE USER '"+user.String()+"'@'%' IDENTIFIED BY 'Half-made-6'")
		self := e.mustOpenAs(user.String(), "Half-made-6", "")
		exec(t, self, "ALTER USER '"+user.String()+"'@'%' IDENTIFIED BY 'Half-made-6' ATTRIBUTE "+
			`'{"tenantdb": "tenantdb:`+strings.Repeat("ab", 16)+`", "tenantdb_db": "`+free.String()+`", "tenantdb_status": "open"}'`)
		self.Close()
		refused(t, "a self-marked login", user, "Half-made-6")
	})
	t.Run("no mark: refused", func(t *testing.T) {
		user := e.newUser("hmyn")
		exec(t, e.superDB(), "CREATE USER '"+user.String()+"'@'%' IDENTIFIED BY 'Half-made-5'")
		refused(t, "an unmarked login", user, "Half-made-5")
	})
}
