// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serverSurface is every exported method of *Server, which is what
// internal/provider may call. Each one that creates, alters or drops a
// tenant object checks the recorded identity first (or claims the name
// atomically). The unchecked variants (CreateDatabase, AlterDatabase,
// DropDatabase, CreateLogin, SyncPrivileges, RevokeAll, Exec) are test
// helpers in export_test.go; a new resource must not find them.
var serverSurface = []string{
	"AlterOwnDatabase",
	"CheckAdminRights",
	"CheckIdentity",
	"CheckLogin",
	"ClaimDatabase",
	"ClaimOwner",
	"CreateGrant",
	"Database",
	"DatabaseOwnerToJoin", // read-only: an import reads what the apply after it must join
	"DatabaseWithIdentity",
	"DiscardOldOwnerPassword",
	"DropOwnDatabase",
	"DropOwner",
	"DropOldLogin",
	"Info",
	"JoinDatabaseOwner", // an imported PostgreSQL grant's apply: the admin joins the owner role its import read
	"JoinOwnerRole",     // an imported PostgreSQL owner's apply: the admin joins its role (checks the login read)
	"ListDatabases",     // read-only: list resources
	"ListOwners",        // read-only: list resources
	"LoginIdentity",
	"MarkImportedDatabase", // writes a claim mark only while the comment is still the one recorded, under the lock
	"RecordEarlierLogin",   // a ledger row for an earlier version's MySQL owner, only while its ATTRIBUTE names the recorded claim, under the lock
	"Owner",
	"OwnerMarkProves",   // read-only: whether a MariaDB login carries its database's owner mark
	"PreflightDatabase", // read-only: what a database's create would refuse, at plan time (preflight.go)
	"PreflightGrant",    // read-only: what a grant's create would refuse, at plan time
	"PreflightOwner",    // read-only: what an owner's create would refuse, at plan time
	"PreflightPassword", // read-only: a password the server's policy would refuse, judged from its variables at plan time
	"ReadGrant",
	"RevokeGrant",
	"RevokeImportedOwner",       // revokes only: an imported owner's privileges on its database, keeping the login (identity-checked like DropOwner)
	"OthersOnRecreated",         // reads only: the other accounts' rows a refusal on a re-created database names
	"RevokeOnRecreatedDatabase", // revokes only: rows a re-created database's name still gives a login
	"RotateOwner",
	"RotationSuccessor",       // read-only: the login a finished rotation of the recorded one made (its mark names it)
	"SetOwnerConnectionLimit", // the owner login's own limit: identity-checked (requireOwnLogin) under the lock, like SetOwnerPassword
	"SetOwnerPassword",
	"SyncOwnerPrivileges",
	"UnescapedGrant", // read-only: an old unescaped MySQL grant beside tenantdb's
	"UpdateGrant",
}

// uncheckedNames are the test-only helpers that skip the identity check:
// each must stay out of the production build.
var uncheckedNames = []string{
	"CreateDatabase", "AlterDatabase", "DropDatabase", "CreateLogin",
	"SyncPrivileges", "RevokeAll", "Exec", "LoginExists", "Spec",
}

// exportedServerMethods parses the package's non-test files and returns the
// exported methods declared on Server or *Server.
func exportedServerMethods(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	parsed := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed++
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || !fn.Name.IsExported() {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "Server" {
				out = append(out, fn.Name.Name)
			}
		}
	}
	// Guard the scan: it must have read the files that declare the
	// checked operations, or an empty result would pass.
	if parsed < 10 || !slices.Contains(out, "DropOwnDatabase") {
		t.Fatalf("scanned %d files and found %v: the scan did not read the package", parsed, out)
	}
	slices.Sort(out)
	return out
}

// TestExportedSurface fails when *Server exports a method not on the
// allowlist: above all an unchecked create, alter or drop of a tenant
// object, which a new resource could pick instead of the identity-checked
// one. Adding a method here is a review decision: it must check the
// recorded identity (or claim atomically) before it changes anything.
func TestExportedSurface(t *testing.T) {
	t.Parallel()
	got := exportedServerMethods(t)
	for _, name := range uncheckedNames {
		if slices.Contains(got, name) {
			t.Errorf("(*Server).%s is exported again: it skips the identity check; keep it in export_test.go", name)
		}
	}
	want := slices.Clone(serverSurface)
	slices.Sort(want)
	for _, name := range got {
		if !slices.Contains(want, name) {
			t.Errorf("(*Server).%s is exported but not on the allowlist in surface_test.go: production code may call only identity-checked operations", name)
		}
	}
	for _, name := range want {
		if !slices.Contains(got, name) {
			t.Errorf("(*Server).%s is on the allowlist but no longer exported: update serverSurface", name)
		}
	}
}
