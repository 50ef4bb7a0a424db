// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestSecretsNotInErrors provokes real server failures while a password is
// in play and checks that no error text carries it in any form a server or
// a library could print (quotes doubled, backslash-escaped, quote-free
// fragments; see secretForms) nor, on PostgreSQL, a SCRAM verifier. Each
// search first checks that it searches the error it provoked.
func TestSecretsNotInErrors(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		pw := hostilePasswords[0]

		// A wrong admin password.
		spec := adminSpec(t, e.ts, e.ts.Admin)
		spec.Password = mustPassword(t, pw)
		reg := newRegistry()
		t.Cleanup(reg.Close)
		_, err := reg.Server(e.ctx, spec)
		if err == nil {
			t.Fatal("connected with a wrong admin password")
		}
		if !session.IsAccessDenied(err) {
			t.Errorf("wrong admin password: %v, want access denied", err)
		}
		t.Logf("wrong admin password: %v", err)
		assertNoSecretForms(t, err, e.ts.Admin.Username, pw)

		// CreateLogin for a login that exists.
		db := e.newDB("sec")
		if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		existing := e.plainLogin("sec", "Existing-pw-1")
		err = e.s.CreateLogin(e.ctx, db, existing, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
		wantReason(t, err, ddl.PreExistingOwnerUser)
		assertNoSecretForms(t, err, existing.String(), pw)

		// Setting the password of a login that does not exist: the server
		// rejects a statement that carries the secret.
		missing := e.newUser("secm")
		err = e.s.Exec(e.ctx, e.s.dialect().SetPassword(missing, mustPassword(t, pw), false))
		if err == nil {
			t.Fatal("ALTER of a missing login succeeded")
		}
		t.Logf("set password of a missing login: %v", err)
		assertNoSecretForms(t, err, "[redacted]", pw)
		var se *session.StatementError
		if !asStatementError(err, &se) || se.Message != "" {
			t.Errorf("want a *statementError with the server message withheld, got %#v", err)
		}

		// A create that fails after its first statement (PostgreSQL: the
		// database does not exist) undoes the login it made.
		if e.isPG() {
			ghost := e.dbName(uniqueName("ghost"))
			owner := e.newUser("seco")
			err = e.s.CreateLogin(e.ctx, ghost, owner, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
			if err == nil {
				t.Fatal("CreateLogin on a missing database succeeded")
			}
			t.Logf("create owner of a missing database: %v", err)
			assertNoSecretForms(t, err, ghost.String(), pw)
			if e.loginExists(owner) {
				t.Error("the half-made login was not undone")
			}
		}
	})
}

// TestStatementLogRedacted: the statement log shows every statement of a
// step, in order and on the right database, each exactly as its redacted
// form, and no form of the secret (nor a SCRAM verifier) anywhere in a
// line. The server confirms the step really ran those statements.
func TestStatementLogRedacted(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		s, log := e.loggedServer()
		db, user := e.newDB("log"), e.newUser("log")
		const secret = "Log-me-not-'\\-0xC0FFEE"
		cs, co := mustCharset(t, defaultCharset(e)), mustCollation(t, defaultCollation(e))
		mark := log.mark()
		if err := s.CreateDatabase(e.ctx, db, cs, co); err != nil {
			t.Fatal(err)
		}
		created := log.since(mark)
		if len(created) == 0 || !strings.HasPrefix(created[0].Statement, "CREATE DATABASE ") {
			t.Fatalf("the statement log of CreateDatabase does not start with its CREATE DATABASE:\n%s", strings.Join(statements(created), "\n"))
		}
		// PostgreSQL claims through a nonce database renamed last
		// (ddl.PostgresClaim); MySQL/MariaDB create the name itself.
		if last := created[len(created)-1].Statement; !strings.Contains(last, db.String()) {
			t.Fatalf("the statement log of CreateDatabase does not end with the claim of %s:\n%s", db, strings.Join(statements(created), "\n"))
		}

		privs := mustPrivileges(t, e.engine, "ALL PRIVILEGES")
		mark = log.mark()
		if err := s.CreateLogin(e.ctx, db, user, mustPassword(t, secret), privs); err != nil {
			t.Fatal(err)
		}
		entries := log.since(mark)
		plan := s.dialect().CreateOwner(db, user, mustPassword(t, secret), privs)
		if !strings.Contains(plan.Statements[0].String(), "'[redacted]'") {
			t.Fatalf("the create-login statement is not redacted, nothing to compare: %s", plan.Statements[0])
		}
		assertLoggedPlan(t, entries, plan, secret)
		// The server ran them: the owner logs in with the secret.
		e.mustOpenAs(user.String(), secret, db.String()).Close()
	})
}
