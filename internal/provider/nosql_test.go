// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// "No SQL runs before a refusal", proven from the server itself: the
// server's statement log shows that the admin login sent no DDL or DCL,
// and the server's catalog (databases with their settings, comments and
// ACLs; logins; database-level grants) is the same before and after.

// catalogSnapshot lists what a refusal must not change, one line per object.
func (s accServer) catalogSnapshot(t *testing.T) []string {
	t.Helper()
	queries := []string{
		`SELECT CONCAT_WS('|', 'db', SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, SCHEMA_COMMENT) FROM information_schema.SCHEMATA`,
		`SELECT CONCAT_WS('|', 'login', User, Host) FROM mysql.user`,
		`SELECT CONCAT_WS('|', 'grant', User, Host, Db, Select_priv, Insert_priv, Update_priv, Delete_priv, Create_priv, Drop_priv, Grant_priv, Alter_priv) FROM mysql.db`,
	}
	if s.Flavor == testserver.FlavorMySQL {
		// MySQL has no schema comments; its logins carry attributes.
		queries[0] = `SELECT CONCAT_WS('|', 'db', SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME) FROM information_schema.SCHEMATA`
		queries[1] = `SELECT CONCAT_WS('|', 'login', User, Host, COALESCE(User_attributes, '')) FROM mysql.user`
		// A database's identity is its mark procedure (ddl/claim_mark_mysql.go).
		queries = append(queries, `SELECT CONCAT_WS('|', 'routine', ROUTINE_SCHEMA, ROUTINE_NAME, DEFINER, CREATED) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA <> 'sys'`)
	}
	if s.Engine == "postgres" {
		queries = []string{
			`SELECT concat_ws('|', 'db', datname, pg_encoding_to_char(encoding), datcollate, pg_get_userbyid(datdba), datacl::text, oid::text) FROM pg_database`,
			`SELECT concat_ws('|', 'role', rolname, rolcanlogin, rolcreatedb, rolcreaterole, oid::text) FROM pg_roles`,
			`SELECT concat_ws('|', 'member', roleid::regrole::text, member::regrole::text) FROM pg_auth_members`,
		}
	}
	db := s.super(t, "")
	var out []string
	for _, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			out = append(out, line)
		}
		rows.Close()
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("the catalog snapshot is empty: it would prove nothing")
	}
	return out
}

// noSQLProof is taken right before a refusal and checked right after.
type noSQLProof struct {
	s      accServer
	login  string
	mark   testserver.LogMark
	before []string
	taken  bool
}

// beforeRefusal marks the statement log and snapshots the catalog. login is
// the admin login the provider uses ("" = the shared admin).
func (s accServer) beforeRefusal(t *testing.T, p *noSQLProof, login string) {
	t.Helper()
	if login == "" {
		login = s.Admin.Username
	}
	*p = noSQLProof{s: s, login: login, before: s.catalogSnapshot(t)}
	p.mark = s.MarkLog(t)
	p.taken = true
}

// assert fails the test when the admin sent any DDL/DCL since the mark or
// the catalog changed. It fails, too, when no proof was taken.
func (p *noSQLProof) assert(t *testing.T, what string) {
	t.Helper()
	if !p.taken {
		t.Fatalf("%s: no statement-log mark was taken before the refusal", what)
	}
	p.s.AssertNoDDL(t, p.mark, p.login)
	if diff := cmp.Diff(p.before, p.s.catalogSnapshot(t)); diff != "" {
		t.Fatalf("%s: the server's catalog changed (-before +after):\n%s", what, diff)
	}
	p.taken = false
}

// assertOnly is assert for refusals that are decided by a claim: the
// failing CREATE itself (the server's uniqueness is the lock) is the one
// DDL statement allowed, and it must have changed nothing.
func (p *noSQLProof) assertOnly(t *testing.T, what string, allowedPrefixes ...string) {
	t.Helper()
	if !p.taken {
		t.Fatalf("%s: no statement-log mark was taken before the refusal", what)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ddl, err := p.s.DDLSince(ctx, p.mark, p.login)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ddl {
		allowed := false
		for _, prefix := range allowedPrefixes {
			allowed = allowed || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(st.Text)), prefix)
		}
		if !allowed {
			t.Errorf("%s: the admin ran %q before or after the refusal", what, st.Text)
		}
	}
	if diff := cmp.Diff(p.before, p.s.catalogSnapshot(t)); diff != "" {
		t.Fatalf("%s: the server's catalog changed (-before +after):\n%s", what, diff)
	}
	p.taken = false
}

// refusalChain runs a test's refusals one after the other for the price of
// the refusals alone: each refusal step's PreConfig first settles the
// previous refusal's proof (no SQL, the catalog unchanged, and what else
// the test checks after it), then takes its own; the chain's last step
// settles the last. A refusal is one failed plan; a step between two
// refusals only to check the first is a whole apply cycle (plan, apply,
// and two more plans with their shows: seven terraform commands).
type refusalChain struct {
	t       *testing.T
	s       accServer
	proof   noSQLProof
	pending func()
	// assert is the no-SQL proof each refusal settles with: proof.assert
	// when nil (assertNoGrantSQL for a grant's refusals).
	assert func(p *noSQLProof, t *testing.T, what string)
}

// settle runs the previous refusal's checks, once.
func (c *refusalChain) settle() {
	c.t.Helper()
	if c.pending != nil {
		check := c.pending
		c.pending = nil
		check()
	}
}

// refusal is a step whose plan or apply must fail with want; afterwards no
// SQL ran (assert names it what) and then check, if any, holds.
func (c *refusalChain) refusal(config, want, what string, check func()) resource.TestStep {
	return resource.TestStep{
		PreConfig: func() {
			c.settle()
			c.s.beforeRefusal(c.t, &c.proof, "")
			c.pending = func() {
				assert := c.assert
				if assert == nil {
					assert = (*noSQLProof).assert
				}
				assert(&c.proof, c.t, what)
				if check != nil {
					check()
				}
			}
		},
		Config:      config,
		ExpectError: regexp.MustCompile(want),
	}
}

// settled is the chain's last step: the configuration every refusal
// left in place, planned only (it must plan nothing), after the last
// refusal's checks.
func (c *refusalChain) settled(config string) resource.TestStep {
	return resource.TestStep{PreConfig: c.settle, Config: config, PlanOnly: true}
}
