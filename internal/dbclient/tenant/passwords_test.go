// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// hostilePasswords break naive quoting in one way each. Non-ASCII ones are
// NFKC-stable (SASLprep, which the verifier uses, and pgx's PRECIS
// OpaqueString, which the login uses, agree on them).
var hostilePasswords = []string{
	"pä'ss\\wörd\"`?%_",
	`'; DROP DATABASE mysql; --`,
	`\\\'\`,
	"back`tick``",
	"100%_?_%?",
	`$1 $$ :name @var ?`,
	"ünïcødé-日本語-Ω-🔐",
	"ends with a backslash\\",
	`''''`,
	`"double" "quotes"`,
}

// TestHostilePasswords creates an owner with each hostile password and logs
// in with exactly that password (MariaDB through go-sql-driver, PostgreSQL
// through pgx, both over verified TLS); PostgreSQL must have stored the
// SCRAM verifier computed client-side, which the test recomputes from the
// stored salt. The same passwords then go through SetPassword.
func TestHostilePasswords(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		for i, pw := range hostilePasswords {
			db, owner := e.newDB("hp"), e.newUser("hpo")
			if err := e.s.CreateDatabase(e.ctx, db, ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
				t.Fatal(err)
			}
			err := e.s.CreateLogin(e.ctx, db, owner, mustPassword(t, pw), mustPrivileges(t, e.engine, "ALL PRIVILEGES"))
			if err != nil {
				assertNoSecretForms(t, err, owner.String(), pw)
				t.Fatalf("password #%d: CreateLogin: %v", i, err)
			}
			conn := e.mustOpenAs(owner.String(), pw, db.String())
			exec(t, conn, "CREATE TABLE hp (id int)")
			conn.Close()
			e.mustLoginFail(owner.String(), pw+"x", db.String())
			e.checkStoredPassword(owner, pw)

			// And through ALTER: rotate to the next hostile password.
			next := hostilePasswords[(i+1)%len(hostilePasswords)]
			if err := e.s.Exec(e.ctx, e.s.dialect().SetPassword(owner, mustPassword(t, next), false)); err != nil {
				assertNoSecretForms(t, err, "[redacted]", next)
				t.Fatalf("password #%d: SetPassword: %v", i, err)
			}
			e.mustOpenAs(owner.String(), next, db.String()).Close()
			e.mustLoginFail(owner.String(), pw, db.String())
			e.checkStoredPassword(owner, next)
		}
	})
}

// checkStoredPassword verifies what the server stored for pw. PostgreSQL: a
// SCRAM-SHA-256 verifier with 4096 iterations, equal to ddl.ScramVerifier
// recomputed with the stored salt. MariaDB: the hash equals PASSWORD(pw)
// computed by the server from a bound parameter.
func (e *env) checkStoredPassword(u ddl.Username, pw string) {
	e.t.Helper()
	if e.isPG() {
		stored := superScalar[string](e, `SELECT rolpassword FROM pg_authid WHERE rolname = $1`, u.String())
		if !strings.HasPrefix(stored, "SCRAM-SHA-256$4096:") {
			e.t.Fatalf("stored password of %s is not a 4096-iteration SCRAM verifier (prefix %.20q)", u, stored)
		}
		// SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>
		rest := strings.TrimPrefix(stored, "SCRAM-SHA-256$")
		iterSalt, _, ok := strings.Cut(rest, "$")
		iterText, saltText, ok2 := strings.Cut(iterSalt, ":")
		iter, err := strconv.Atoi(iterText)
		salt, err2 := base64.StdEncoding.DecodeString(saltText)
		if !ok || !ok2 || err != nil || err2 != nil {
			e.t.Fatalf("cannot parse the stored verifier of %s", u)
		}
		if got := ddl.ScramVerifier(mustPassword(e.t, pw), salt, iter); got != stored {
			e.t.Errorf("recomputed verifier differs from the stored one for %s", u)
		}
		return
	}
	stored := superScalar[string](e, `SELECT authentication_string FROM mysql.user WHERE User = ? AND Host = '%'`, u.String())
	if e.ts.Flavor == "mysql" {
		// MySQL 9: a salted caching_sha2_password hash, which no function
		// recomputes (PASSWORD() is gone); the logins above prove it.
		if !strings.HasPrefix(stored, "$A$") {
			e.t.Errorf("stored password of %s is not a caching_sha2_password hash (prefix %.3q)", u, stored)
		}
		return
	}
	want := superScalar[string](e, `SELECT PASSWORD(?)`, pw)
	if stored == "" || stored != want {
		e.t.Errorf("stored hash of %s differs from PASSWORD(pw)", u)
	}
}
