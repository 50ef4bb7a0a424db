// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestSecretsNotInErrors provokes real server failures while a password is
// in play and checks that no error text carries it (nor, on PostgreSQL, a
// SCRAM verifier).
func TestSecretsNotInErrors(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		pw := hostilePasswords[0]

		// A wrong admin password.
		spec := adminSpec(t, e.ts, e.ts.Admin)
		spec.Password = mustPassword(t, pw)
		reg := NewRegistry()
		t.Cleanup(reg.Close)
		_, err := reg.Server(e.ctx, spec)
		if err == nil {
			t.Fatal("connected with a wrong admin password")
		}
		if !IsAccessDenied(err) {
			t.Errorf("wrong admin password: %v, want access denied", err)
		}
		assertNoSecret(t, err, pw)

		// CreateLogin for a login that exists.
		db := e.newDB("sec")
		if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
			t.Fatal(err)
		}
		existing := e.plainLogin("sec", "Existing-pw-1")
		err = e.s.CreateLogin(e.ctx, db, existing, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
		wantReason(t, err, ddl.PreExistingOwnerUser)
		assertNoSecret(t, err, pw)

		// Setting the password of a login that does not exist: the server
		// rejects a statement that carries the secret.
		missing := e.newUser("secm")
		err = e.s.Exec(e.ctx, e.s.Dialect().SetPassword(missing, mustPassword(t, pw), false))
		if err == nil {
			t.Fatal("ALTER of a missing login succeeded")
		}
		t.Logf("set password of a missing login: %v", err)
		assertNoSecret(t, err, pw)
		var se *StatementError
		if !asStatementError(err, &se) || se.Message != "" {
			t.Errorf("want a *StatementError with the server message withheld, got %#v", err)
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
			assertNoSecret(t, err, pw)
			if e.loginExists(owner) {
				t.Error("the half-made login was not undone")
			}
		}
	})
}

// TestStatementLogRedacted: the statement log shows every statement, with
// each secret literal replaced.
func TestStatementLogRedacted(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		var mu sync.Mutex
		var lines []string
		reg := NewRegistryWithLogger(func(_ context.Context, msg string, fields map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprint(msg, fields))
		})
		defer reg.Close()
		s, err := reg.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		db, user := e.newDB("log"), e.newUser("log")
		const secret = "Log-me-not-'\\-0xC0FFEE"
		if err := s.CreateDatabase(e.ctx, db, mustCharset(t, defaultCharset(e)), mustCollation(t, defaultCollation(e))); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateLogin(e.ctx, db, user, mustPassword(t, secret), mustPrivileges(t, e.engine, "ALL PRIVILEGES")); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		all := strings.Join(lines, "\n")
		if !strings.Contains(all, "[redacted]") || !strings.Contains(all, user.String()) {
			t.Fatalf("statement log lacks the create-login statement:\n%s", all)
		}
		if strings.Contains(all, "Log-me-not") || strings.Contains(all, "SCRAM-SHA-256$") {
			t.Fatalf("statement log leaks a secret:\n%s", all)
		}
	})
}
