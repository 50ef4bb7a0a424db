// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// The guide templates/guides/moving-from-mysql-and-postgresql-providers.md.tmpl
// (docs/guides/...) is run as written, step by step, with the real
// terraform CLI (issues 29 and 36): every block marked `<!-- test: NAME -->`
// is a file of the user's configuration (NAME.tf blocks: written as the
// file the guide names) or SQL run as the login the guide names. Only the
// variables the guide's blocks declare are the test's: the server's address
// and port, the passwords, and ca.pem. A fleet is made the way each peer
// makes it: the statements petoju/mysql v3.0.88 and cyrilgdn/postgresql
// v1.26.0 run (read from their source, not copied), with the peers' own
// grant shapes: petoju's unescaped database names, cyrilgdn's temporary
// role memberships, its database CONNECT that a non-superuser admin
// silently fails to grant, and its default privileges. The peers' resources
// are in state through testdata/peerstandin (no registry here; it accepts
// the peers' provider blocks and connects nowhere), whose destroy fails: a
// peer resource the guide forgets in its removed blocks fails the test.
//
// With TENANTDB_TEST_PEERS_DIR (make testacc-peers) the real peers run
// instead: the guide's "before" configuration is applied by petoju/mysql
// and cyrilgdn/postgresql built from their sources
// (scripts/build-peers.sh; <dir>/mysql/terraform-provider-mysql and
// <dir>/postgresql/terraform-provider-postgresql), which make the fleet
// themselves, and the removed blocks run with the real provider configured.

const migrationGuide = "../../templates/guides/moving-from-mysql-and-postgresql-providers.md.tmpl"

// migrationGuideBlocks are the guide's marked blocks: one it marks that is
// not here, or one here it no longer marks, fails the test.
var migrationGuideBlocks = []string{
	"locals.tf", "import.tf", "versions.tf",
	"mysql-before.tf", "mysql-versions.tf", "mysql-server.tf", "mysql-tenants.tf", "mysql-removed.tf", "mysql-revoke",
	"postgres-admin-option", "postgres-before.tf", "postgres-versions.tf", "postgres-server.tf", "postgres-tenants.tf",
	"postgres-removed.tf", "postgres-revoke",
}

// requireMarkedBlocks returns the blocks of a guide marked for a test
// (markedBlocks), and fails unless they are exactly names.
func requireMarkedBlocks(t *testing.T, path string, names []string) map[string]string {
	t.Helper()
	blocks := markedBlocks(t, path)
	for name := range blocks {
		if !slices.Contains(names, name) {
			t.Fatalf("%s marks a block %q this test does not run: add it to the test's list and run it", path, name)
		}
	}
	for _, name := range names {
		if _, ok := blocks[name]; !ok {
			t.Fatalf("%s has no block marked <!-- test: %s -->", path, name)
		}
	}
	return blocks
}

// migrationFleet is the guide's tenants (its locals.tf): database, owner
// login and its passwords before and after the move, and the shared
// read-only login.
type migrationFleet struct {
	keys, dbs, owners []string
	oldPW, newPW      string
	reporting, repPW  string
}

var (
	guideTenantRE    = regexp.MustCompile(`(?m)^\s*(\w+)\s*=\s*\{\s*database\s*=\s*"(\w+)",\s*owner\s*=\s*"(\w+)"\s*\}`)
	guideReportingRE = regexp.MustCompile(`(?m)^\s*reporting\s*=\s*"(\w+)"`)
)

// guideFleet reads the tenants and the shared login from the guide's
// locals.tf block.
func guideFleet(t *testing.T, locals string) migrationFleet {
	t.Helper()
	f := migrationFleet{oldPW: "Peer-pw-1", newPW: "Tenantdb-pw-2", repPW: "Report-pw-1"}
	for _, m := range guideTenantRE.FindAllStringSubmatch(locals, -1) {
		f.keys, f.dbs, f.owners = append(f.keys, m[1]), append(f.dbs, m[2]), append(f.owners, m[3])
	}
	if m := guideReportingRE.FindStringSubmatch(locals); m != nil {
		f.reporting = m[1]
	}
	if len(f.keys) < 2 || f.reporting == "" {
		t.Fatalf("the guide's locals.tf names %d tenants and reporting login %q: want two or more and one\n%s", len(f.keys), f.reporting, locals)
	}
	return f
}

// passwords is an HCL/JSON map of pw by tenant key, for TF_VAR_owner_passwords.
func (f migrationFleet) passwords(pw string) string {
	m := map[string]string{}
	for _, k := range f.keys {
		m[k] = pw
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// envPeersDir names the directory of the real peer providers.
const envPeersDir = "TENANTDB_TEST_PEERS_DIR"

// realPeers is the directory of the real peer providers, or "" for the
// stand-in. A directory without both fails the test: a run that asked for
// the real peers must not pass on the stand-in.
func realPeers(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(envPeersDir)
	if dir == "" {
		return ""
	}
	for _, name := range []string{"mysql", "postgresql"} {
		if _, err := os.Stat(filepath.Join(dir, name, "terraform-provider-"+name)); err != nil {
			t.Fatalf("%s=%s: %v (build them with scripts/build-peers.sh)", envPeersDir, dir, err)
		}
	}
	return dir
}

var peerStandin struct {
	once sync.Once
	bin  string
	err  error
}

// peerWorkspace is a CLI workspace whose CLI configuration also installs
// the peers (dev_overrides): the stand-ins, or the real ones (realPeers).
func peerWorkspace(t *testing.T) *cliWorkspace {
	t.Helper()
	w := newCLIWorkspace(t)
	peerStandin.once.Do(func() {
		dir, err := os.MkdirTemp("", "tenantdb-peers-")
		if err != nil {
			peerStandin.err = err
			return
		}
		cleanupDirs = append(cleanupDirs, dir)
		// One stand-in serves both peers: built once, linked under each
		// peer's name.
		built := filepath.Join(dir, "mysql", "terraform-provider-mysql")
		if out, err := tryEnv("", os.Environ(), "go", "build", "-o", built, "./testdata/peerstandin"); err != nil {
			peerStandin.err = fmt.Errorf("go build peerstandin: %v\n%s", err, out)
			return
		}
		if err := os.MkdirAll(filepath.Join(dir, "postgresql"), 0o755); err != nil {
			peerStandin.err = err
			return
		}
		if err := os.Link(built, filepath.Join(dir, "postgresql", "terraform-provider-postgresql")); err != nil {
			peerStandin.err = err
			return
		}
		peerStandin.bin = dir
	})
	if peerStandin.err != nil {
		t.Fatal(peerStandin.err)
	}
	bin := peerStandin.bin
	if dir := realPeers(t); dir != "" {
		bin = dir
	}
	var rcPath string
	for _, e := range w.env {
		if v, ok := strings.CutPrefix(e, "TF_CLI_CONFIG_FILE="); ok {
			rcPath = v
		}
	}
	rc, err := os.ReadFile(rcPath)
	if err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf("dev_overrides {\n    \"registry.terraform.io/petoju/mysql\" = %q\n    \"registry.terraform.io/cyrilgdn/postgresql\" = %q\n",
		filepath.Join(bin, "mysql"), filepath.Join(bin, "postgresql"))
	own := filepath.Join(w.dir, "peers.tfrc")
	if err := os.WriteFile(own, []byte(strings.Replace(string(rc), "dev_overrides {\n", extra, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	w.env = append(append([]string{}, w.env...), "TF_CLI_CONFIG_FILE="+own)
	return w
}

// setVar sets TF_VAR_name for every later run in w.
func (w *cliWorkspace) setVar(name, value string) {
	w.env = slices.DeleteFunc(w.env, func(kv string) bool { return strings.HasPrefix(kv, "TF_VAR_"+name+"=") })
	w.env = append(w.env, "TF_VAR_"+name+"="+value)
}

// files writes the guide's blocks as the files the guide names (file name
// = block), and removes the files named in gone.
func (w *cliWorkspace) files(files map[string]string, gone ...string) {
	w.t.Helper()
	for name, content := range files {
		write(w.t, filepath.Join(w.dir, name), content)
	}
	for _, name := range gone {
		if err := os.Remove(filepath.Join(w.dir, name)); err != nil {
			w.t.Fatal(err)
		}
	}
}

// requireEmptyPlan fails unless terraform plan shows no change.
func (w *cliWorkspace) requireEmptyPlan(t *testing.T, when string) cliResult {
	t.Helper()
	return w.run("plan", "-detailed-exitcode").mustSucceed(t, "terraform plan is not empty "+when)
}

// count runs a COUNT query as the superuser.
func (s accServer) count(t *testing.T, db, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.super(t, db).QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkMovedFleet is what must hold after the move, on either engine:
// every row there, every owner logging in with password pw (the peer's
// refused), the shared login reading and not writing.
func (s accServer) checkMovedFleet(t *testing.T, f migrationFleet, pw string) {
	t.Helper()
	for i, db := range f.dbs {
		if n := s.count(t, db, "SELECT COUNT(*) FROM "+s.table(db, "orders")); n != 2 {
			t.Errorf("%s.orders holds %d rows, want 2", db, n)
		}
		if err := s.as(f.owners[i], pw, db, "SELECT COUNT(*) FROM "+s.table(db, "orders")); err != nil {
			t.Errorf("owner %s with the password the guide sets: %v", f.owners[i], err)
		}
		if err := s.as(f.owners[i], f.oldPW, db, "SELECT 1"); err == nil {
			t.Errorf("owner %s still logs in with the peer's password", f.owners[i])
		}
		if err := s.as(f.reporting, f.repPW, db, "SELECT COUNT(*) FROM "+s.table(db, "orders"), "SELECT COUNT(*) FROM "+s.table(db, "invoices")); err != nil {
			t.Errorf("%s cannot read %s: %v", f.reporting, db, err)
		}
		if err := s.as(f.reporting, f.repPW, db, "INSERT INTO "+s.table(db, "invoices")+" VALUES (99)"); err == nil {
			t.Errorf("%s can write to %s", f.reporting, db)
		}
	}
}

// destroyKeepsFleet: destroy under the default deletion_policy keeps every
// database, its rows and every login.
func (s accServer) destroyKeepsFleet(t *testing.T, w *cliWorkspace, f migrationFleet) {
	t.Helper()
	w.run("destroy", "-auto-approve").mustSucceed(t, "terraform destroy")
	for i, db := range f.dbs {
		if !s.databaseExists(t, db) {
			t.Fatalf("destroy dropped %s", db)
		}
		if n := s.count(t, db, "SELECT COUNT(*) FROM "+s.table(db, "orders")); n != 2 {
			t.Errorf("%s.orders holds %d rows after destroy, want 2", db, n)
		}
		if !s.loginExists(t, f.owners[i]) {
			t.Errorf("destroy dropped the imported owner %s", f.owners[i])
		}
	}
	if !s.loginExists(t, f.reporting) {
		t.Errorf("destroy dropped %s", f.reporting)
	}
}

var readmePasswordRE = regexp.MustCompile(`(?:IDENTIFIED BY|PASSWORD) '([^']*)'`)

// migrationServer is a server of the test's own (the guide's names are
// fixed) whose admin is README's, as the guide's first step asks, with
// README's password.
func migrationServer(t *testing.T, kind string) accServer {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	skipUnselectedKind(t, kind)
	s := gettingStartedServer(t, kind)
	for _, stmt := range readmeAdminSQL(t, s) {
		if m := readmePasswordRE.FindStringSubmatch(stmt); m != nil {
			s.Admin.Password = m[1]
		}
	}
	return s
}

// runGuideSQL runs a marked SQL block of the guide as the login it names.
func (s accServer) runGuideSQL(t *testing.T, block, user, pw string) {
	t.Helper()
	stmts := sqlStatements(block)
	if len(stmts) == 0 {
		t.Fatalf("the guide's SQL block has no statement:\n%s", block)
	}
	if err := s.as(user, pw, "", stmts...); err != nil {
		t.Fatalf("the guide's statements as %s: %v", user, err)
	}
}

// replaceIn is block with old replaced by new, failing when the guide's
// block no longer holds old (the test's later change would test nothing).
func replaceIn(t *testing.T, block, old, new string) string {
	t.Helper()
	if !strings.Contains(block, old) {
		t.Fatalf("the guide's block no longer holds %q:\n%s", old, block)
	}
	return strings.ReplaceAll(block, old, new)
}

// peerAdminPW is the password of the peers' login ("terraform" in the
// guide's provider blocks).
const peerAdminPW = "Peer-admin-1"

// moveFleet runs the guide's steps common to both engines (eng: "mysql" or
// "postgres", the prefix of its blocks): before (the peer's resources in
// state; makeFleet then makes what the peer would have made, or with the
// real peer what the tenants write, and says whether the move's apply must
// update the grants), the db_server applied on its own, then the move's plan (only
// reads) and apply, its empty plan, the engine's hand statements
// (between), the clean-up with an empty plan, one more apply with an empty
// plan, then a password rotation and a grant change.
func (s accServer) moveFleet(t *testing.T, blocks map[string]string, f migrationFleet, eng string, makeFleet func() (grantsUpdated bool), checkImport func(cliResult), between func()) *cliWorkspace {
	t.Helper()
	w := peerWorkspace(t)
	// The old provider's variables: its address (the real peer connects
	// there) and the password of its login, "terraform" in the guide.
	if eng == "mysql" {
		w.setVar("mysql_endpoint", fmt.Sprintf("%s:%d", s.Host, s.Port))
		w.setVar("mysql_password", peerAdminPW)
	} else {
		w.setVar("postgresql_host", s.Host)
		w.setVar("postgresql_port", fmt.Sprint(s.Port))
		w.setVar("postgresql_password", peerAdminPW)
	}
	w.setVar("owner_passwords", f.passwords(f.oldPW))
	w.setVar("reporting_password", f.repPW)
	// Before: the peer's configuration, with tenantdb already required, and
	// the CA file the old provider's TLS settings name.
	write(t, filepath.Join(w.dir, "ca.pem"), s.CAPEM)
	w.files(map[string]string{"versions.tf": blocks[eng+"-versions.tf"], "locals.tf": blocks["locals.tf"], "old.tf": blocks[eng+"-before.tf"]})
	w.run("apply", "-auto-approve").mustSucceed(t, "the peer's configuration")
	grantsUpdated := makeFleet()
	// Before you start, 3: the db_server, applied on its own.
	w.setVar("db_host", s.Host)
	w.setVar("db_port", fmt.Sprint(s.Port))
	w.setVar("tenantdb_admin_password", s.Admin.Password)
	w.files(map[string]string{"server.tf": blocks[eng+"-server.tf"]})
	w.run("apply", "-auto-approve").mustSucceed(t, "the tenantdb_db_server on its own")
	// The move: tenants.tf, import.tf, and old.tf with the removed blocks.
	w.setVar("owner_passwords", f.passwords(f.newPW))
	w.files(map[string]string{"tenants.tf": blocks[eng+"-tenants.tf"], "import.tf": blocks["import.tf"], "old.tf": blocks[eng+"-removed.tf"]})
	planMark := s.MarkLog(t)
	w.run("plan").mustSucceed(t, "the move's plan")
	if s.requireOnlyReads(t, planMark, "the move's plan (the guide: it only reads)") == 0 {
		t.Fatal("the statement log shows no statement of the move's plan")
	}
	mark := s.MarkLog(t)
	r := w.run("apply", "-auto-approve")
	if r.Err != nil {
		t.Fatalf("the move's apply: %v\n%s", r.Err, r.Output)
	}
	r.forbidDiag(t, "Could not refresh")
	s.logMoveStatements(t, mark)
	// The old provider (its login "terraform") changed nothing in the move:
	// the real peer only refreshes what the removed blocks forget.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if stmts, err := s.DDLSince(ctx, planMark, "terraform"); err != nil || len(stmts) > 0 {
		t.Errorf("the old provider's login changed the server in the move's plan or apply (%v): %v", err, stmts)
	}
	// The guide: an imported grant is updated to what it declares where it
	// is not held (MySQL: the escaped grant; cyrilgdn: its missing
	// CONNECT), and left alone where it is (cyrilgdn's complete grant,
	// USAGE on public through PUBLIC).
	for _, k := range f.keys {
		if updated := strings.Contains(r.Output, `tenantdb_tenant_grant.reporting[\"`+k+`\"]: Modifying`); updated != grantsUpdated {
			t.Errorf("the move's apply updated the grant of %s: %v, want %v", k, updated, grantsUpdated)
		}
	}
	checkImport(r)
	// The owners' connection limits (issue 58) were imported as the peer
	// set them: the server still has the guide's number, and the move's
	// apply ran no statement setting one (logMoveStatements).
	limit := guideNumber(t, blocks[eng+"-tenants.tf"], "connection_limit")
	for _, o := range f.owners {
		if err := s.wantConnLimit(t, o, limit); err != nil {
			t.Error(err)
		}
	}
	w.requireEmptyPlan(t, "right after the move's apply")
	between()
	// Clean up: import.tf and old.tf go, versions.tf keeps tenantdb only.
	w.files(map[string]string{"versions.tf": blocks["versions.tf"]}, "import.tf", "old.tf")
	w.requireEmptyPlan(t, "without import.tf and old.tf").forbidDiag(t, "DriftDetected")
	w.run("apply", "-auto-approve").mustSucceed(t, "one more apply")
	w.requireEmptyPlan(t, "after one more apply")
	s.checkMovedFleet(t, f, f.newPW)
	// Later: a password rotation and a grant change apply.
	rotatedPW := "Rotated-pw-3"
	tenants := replaceIn(t, blocks[eng+"-tenants.tf"], "password_wo_version = 1", "password_wo_version = 2")
	tenants = replaceIn(t, tenants, `privileges = ["SELECT"]`, `privileges = ["SELECT", "INSERT"]`)
	w.setVar("owner_passwords", f.passwords(rotatedPW))
	w.files(map[string]string{"tenants.tf": tenants})
	w.run("apply", "-auto-approve").mustSucceed(t, "a password rotation and a grant change")
	w.requireEmptyPlan(t, "after the rotation and the grant change")
	for i, db := range f.dbs {
		if err := s.as(f.owners[i], rotatedPW, db, "SELECT COUNT(*) FROM "+s.table(db, "orders")); err != nil {
			t.Errorf("owner %s after the rotation: %v", f.owners[i], err)
		}
		if err := s.as(f.reporting, f.repPW, db, "INSERT INTO "+s.table(db, "invoices")+" VALUES (7)"); err != nil {
			t.Errorf("after granting INSERT on %s: %v", db, err)
		}
	}
	return w
}

// secretLiteralRE is a password or its hash in a statement, for a test log.
var secretLiteralRE = regexp.MustCompile(`(?i)(PASSWORD|IDENTIFIED BY)\s+'[^']*'`)

// logMoveStatements logs what the admin changed on the server in the
// move's apply (the guide's "What runs on the server" table), and fails
// on anything that creates or drops.
func (s accServer) logMoveStatements(t *testing.T, mark testserver.LogMark) {
	t.Helper()
	stmts := s.adminDDLSince(t, mark)
	var lines []string
	for _, st := range stmts {
		lines = append(lines, secretLiteralRE.ReplaceAllString(st.Text, "$1 '<redacted>'"))
		// The ledger (tenantdb's own record of what it granted, made on a
		// server's first grant) is not a tenant's.
		if regexp.MustCompile(`(?i)^\s*(DROP|CREATE\s+(DATABASE|USER|ROLE|SCHEMA))\b`).MatchString(st.Text) &&
			!strings.Contains(st.Text, "`"+ddl.LedgerDatabase+"`") {
			t.Errorf("the move's apply ran %s: the guide says nothing is created or dropped", st.Text)
		}
		if regexp.MustCompile(`(?i)MAX_USER_CONNECTIONS|CONNECTION LIMIT`).MatchString(st.Text) {
			t.Errorf("the move's apply ran %s: an imported connection limit the configuration declares is not set again", st.Text)
		}
	}
	t.Logf("the move's apply changed the server with %d statements:\n%s", len(lines), strings.Join(lines, "\n"))
}

// guideNumber is the number a guide block assigns to attr (the peers'
// limits and tenantdb's connection_limit must be the same one).
func guideNumber(t *testing.T, block, attr string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + attr + `\s*=\s*(\d+)`).FindStringSubmatch(block)
	if m == nil {
		t.Fatalf("the guide's block sets no %s:\n%s", attr, block)
	}
	return m[1]
}

// TestAccMigrateFromPetoju: petoju/mysql's fleet on MariaDB moves to
// tenantdb as the guide says.
func TestAccMigrateFromPetoju(t *testing.T) {
	blocks := requireMarkedBlocks(t, migrationGuide, migrationGuideBlocks)
	// cyrilgdn's move stays on PostgreSQL 18 too: the guide has a step
	// of its own for 16+.
	skipOnStandIn(t, "mariadb", "petoju's move: its statements and tenantdb's imports are the same on every MariaDB release "+
		"(TestAccGettingStarted runs README's admin rights of each release)")
	s := migrationServer(t, "mariadb")
	f := guideFleet(t, blocks["locals.tf"])
	real := realPeers(t) != ""
	// petoju's login, "terraform" in the guide's provider block.
	s.exec(t, "", "CREATE USER 'terraform'@'%' IDENTIFIED BY '"+peerAdminPW+"'",
		"GRANT ALL PRIVILEGES ON *.* TO 'terraform'@'%' WITH GRANT OPTION")
	// petoju 3.0.89+ puts max_user_connections in its CREATE USER.
	limit := guideNumber(t, blocks["mysql-before.tf"], "max_user_connections")
	makeFleet := func() bool {
		// What petoju runs, tenant by tenant (the real one just did):
		// mysql_database, mysql_user, mysql_grant on the name as written.
		if !real {
			peer := func(stmts ...string) {
				t.Helper()
				if err := s.as("terraform", peerAdminPW, "", stmts...); err != nil {
					t.Fatal(err)
				}
			}
			peer("CREATE USER '" + f.reporting + "'@'%' IDENTIFIED BY '" + f.repPW + "'")
			for i, db := range f.dbs {
				peer("CREATE DATABASE `"+db+"` DEFAULT CHARACTER SET `utf8mb4` DEFAULT COLLATE `utf8mb4_general_ci`",
					"CREATE USER '"+f.owners[i]+"'@'%' IDENTIFIED BY '"+f.oldPW+"' WITH MAX_USER_CONNECTIONS "+limit,
					"GRANT ALL PRIVILEGES ON `"+db+"`.* TO '"+f.owners[i]+"'@'%'",
					"GRANT SELECT ON `"+db+"`.* TO '"+f.reporting+"'@'%'")
			}
		}
		for i, db := range f.dbs {
			// The grants are on the name as written.
			if n := s.count(t, "", "SELECT COUNT(*) FROM mysql.db WHERE Db = ?", db); n != 2 {
				t.Fatalf("%d grant rows on the unescaped name %s, want 2 (owner, %s): not petoju's fleet", n, db, f.reporting)
			}
			// The tenant writes.
			if err := s.as(f.owners[i], f.oldPW, db,
				"CREATE TABLE "+s.table(db, "orders")+" (id INT PRIMARY KEY)", "INSERT INTO "+s.table(db, "orders")+" VALUES (1), (2)",
				"CREATE TABLE "+s.table(db, "invoices")+" (id INT PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
		}
		return true // every grant moves to the escaped name
	}
	w := s.moveFleet(t, blocks, f, "mysql", makeFleet, func(r cliResult) {
		// Each login's old unescaped grant is reported, with its REVOKE.
		r.requireDiag(t, "warning", "DriftDetected: an old unescaped grant on the database name remains")
		var details strings.Builder
		for _, d := range r.Diagnostics {
			details.WriteString(d.Detail + "\n")
		}
		for i, db := range f.dbs {
			for _, user := range []string{f.owners[i], f.reporting} {
				want := "REVOKE ALL PRIVILEGES ON `" + db + "`.* FROM '" + user + "'@'%';"
				if !strings.Contains(details.String(), want) {
					t.Errorf("the move's apply does not name %s\n%s", want, details.String())
				}
				if !strings.Contains(blocks["mysql-revoke"], want) {
					t.Errorf("the guide's REVOKE block lacks %s", want)
				}
			}
		}
	}, func() {
		// The guide's revokes, as the tenantdb admin.
		s.runGuideSQL(t, blocks["mysql-revoke"], s.Admin.Username, s.Admin.Password)
		for _, db := range f.dbs {
			if n := s.count(t, "", "SELECT COUNT(*) FROM mysql.db WHERE Db = ?", db); n != 0 {
				t.Errorf("%d unescaped grant rows left on %s after the guide's revokes", n, db)
			}
			if n := s.count(t, "", "SELECT COUNT(*) FROM mysql.db WHERE Db = ?", strings.ReplaceAll(db, "_", `\_`)); n != 2 {
				t.Errorf("%d escaped grant rows on %s after the guide's revokes, want 2 (owner, %s)", n, db, f.reporting)
			}
		}
	})
	s.destroyKeepsFleet(t, w, f)
}

// cyrilgdnFleet makes the guide's fleet as cyrilgdn/postgresql does,
// resource by resource, as its login "terraform": a CREATEDB CREATEROLE
// login that is not a superuser (the owner role lent for each statement
// that needs it, the database CONNECT silently not granted), or with
// superuser a superuser (every grant made). It returns the makeFleet of
// moveFleet: with the real peer, which has just applied the guide's
// "before" configuration, only the tenants' writes.
func (s accServer) cyrilgdnFleet(t *testing.T, blocks map[string]string, f migrationFleet, superuser bool) func() bool {
	t.Helper()
	const peerAdmin = "terraform"
	s.exec(t, "", fmt.Sprintf("CREATE ROLE %s LOGIN CREATEDB CREATEROLE PASSWORD '%s'", peerAdmin, peerAdminPW))
	if superuser {
		s.exec(t, "", "ALTER ROLE "+peerAdmin+" SUPERUSER")
	}
	real := realPeers(t) != ""
	peer := func(db string, stmts ...string) {
		t.Helper()
		if err := s.as(peerAdmin, peerAdminPW, db, stmts...); err != nil {
			t.Fatal(err)
		}
	}
	// lent is stmts inside the owner role lent to the admin, as cyrilgdn
	// does when its admin is not a superuser.
	lent := func(o string, stmts ...string) []string {
		if superuser {
			return stmts
		}
		return append(append([]string{"GRANT " + o + " TO " + peerAdmin}, stmts...), "REVOKE "+o+" FROM "+peerAdmin)
	}
	role := func(name, pw, limit string) string {
		return fmt.Sprintf(`CREATE ROLE %q WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT NOREPLICATION CONNECTION LIMIT %s PASSWORD '%s'`, name, limit, pw)
	}
	// The owners' postgresql_role sets connection_limit; the shared one does not (-1).
	ownerLimit := guideNumber(t, blocks["postgres-before.tf"], "connection_limit")
	writes := func(owner, db string, stmts ...string) {
		t.Helper()
		if err := s.as(owner, f.oldPW, db, stmts...); err != nil {
			t.Fatal(err)
		}
	}
	return func() bool {
		if !real {
			peer("", role(f.reporting, f.repPW, "-1")) // postgresql_role.reporting
		}
		grantsUpdated := false
		for i, db := range f.dbs {
			o, rep := fmt.Sprintf("%q", f.owners[i]), fmt.Sprintf("%q", f.reporting)
			if real {
				writes(f.owners[i], db, "CREATE TABLE orders (id int PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)",
					"CREATE TABLE invoices (id int PRIMARY KEY)")
			} else {
				peer("", role(f.owners[i], f.oldPW, ownerLimit)) // postgresql_role
				// postgresql_database.
				peer("", lent(o, fmt.Sprintf(`CREATE DATABASE %q OWNER %s TEMPLATE template0 ENCODING 'UTF8' ALLOW_CONNECTIONS true CONNECTION LIMIT -1 IS_TEMPLATE false`, db, o))...)
				writes(f.owners[i], db, "CREATE TABLE orders (id int PRIMARY KEY)", "INSERT INTO orders VALUES (1), (2)")
				// postgresql_grant, object_type database: no role lent; run by
				// a non-owner that is not a superuser, both statements only warn
				// ("no privileges were granted"): the CONNECT is silently missing.
				peer(db, fmt.Sprintf(`REVOKE ALL PRIVILEGES ON DATABASE %q FROM %s`, db, rep),
					fmt.Sprintf(`GRANT CONNECT ON DATABASE %q TO %s`, db, rep))
				// postgresql_grant, object_type table, and
				// postgresql_default_privileges.
				peer(db, lent(o, "REVOKE ALL PRIVILEGES ON ALL TABLES IN SCHEMA public FROM "+rep,
					"GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+rep)...)
				peer(db, lent(o, "ALTER DEFAULT PRIVILEGES FOR ROLE "+o+" IN SCHEMA public REVOKE ALL ON TABLES FROM "+rep,
					"ALTER DEFAULT PRIVILEGES FOR ROLE "+o+" IN SCHEMA public GRANT SELECT ON TABLES TO "+rep)...)
				// The tenant writes a table later: the default privileges cover it.
				writes(f.owners[i], db, "CREATE TABLE invoices (id int PRIMARY KEY)")
			}
			connect := s.count(t, db, `SELECT COUNT(*) FROM pg_database d, aclexplode(d.datacl) a
				WHERE d.datname = current_database() AND a.grantee = $1::regrole AND a.privilege_type = 'CONNECT'`, f.reporting)
			// The real cyrilgdn v1.26.0 leaves it so too (make testacc-peers).
			if want := map[bool]int{true: 1, false: 0}[superuser]; connect != want {
				t.Fatalf("cyrilgdn's CONNECT for %s on %s: %d entries, want %d (superuser admin: %v, real peer: %v)", f.reporting, db, connect, want, superuser, real)
			}
			grantsUpdated = grantsUpdated || connect == 0
			own, public := s.schemaUsage(t, db, f.reporting)
			if own || !public {
				t.Fatalf("schema public of %s: %s's own USAGE %v, PUBLIC's %v; cyrilgdn grants none, PostgreSQL 15+ gives PUBLIC's", db, f.reporting, own, public)
			}
			if err := s.as(f.reporting, f.repPW, db, "SELECT COUNT(*) FROM orders", "SELECT COUNT(*) FROM invoices"); err != nil {
				t.Fatalf("%s cannot read %s before the move: %v", f.reporting, db, err)
			}
		}
		// Before you start, 2 (PostgreSQL 16+): the superuser's one-time grant.
		if s.administersOnlyItsRoles(t) {
			s.exec(t, "", sqlStatements(blocks["postgres-admin-option"])...)
		}
		return grantsUpdated
	}
}

// moveCyrilgdnFleet runs the guide on a cyrilgdn fleet.
func (s accServer) moveCyrilgdnFleet(t *testing.T, blocks map[string]string, f migrationFleet, makeFleet func() bool) {
	t.Helper()
	w := s.moveFleet(t, blocks, f, "postgres", makeFleet, func(r cliResult) {
		// The owner imports made the admin a member of each owner role.
		for _, o := range f.owners {
			if n := s.count(t, "", `SELECT COUNT(*) FROM pg_roles WHERE rolname = $1 AND pg_has_role($2, oid, 'USAGE')`, o, s.Admin.Username); n != 1 {
				t.Errorf("after the import the admin does not act as %s", o)
			}
		}
	}, func() {
		// The guide: the admin, now a member of each owner role, revokes
		// PUBLIC's rights on each database.
		s.runGuideSQL(t, blocks["postgres-revoke"], s.Admin.Username, s.Admin.Password)
		for _, db := range f.dbs {
			if n := s.count(t, "", `SELECT COUNT(*) FROM pg_database d, aclexplode(d.datacl) a
				WHERE d.datname = $1 AND a.grantee = 0`, db); n != 0 {
				t.Errorf("PUBLIC keeps %d rights on %s after the guide's REVOKE", n, db)
			}
		}
	})
	// PUBLIC gone: an owner reaches no other tenant's database.
	if err := s.as(f.owners[1], "Rotated-pw-3", f.dbs[0], "SELECT 1"); err == nil {
		t.Errorf("owner %s connects to %s after the move", f.owners[1], f.dbs[0])
	}
	s.destroyKeepsFleet(t, w, f)
}

// TestAccMigrateFromCyrilgdn: cyrilgdn/postgresql's fleet moves to
// tenantdb as the guide says (PostgreSQL 15 here; 16-18 through make
// testacc-pg-matrix, with the guide's one-time superuser statement), made
// by a CREATEDB CREATEROLE admin that is not a superuser (its grants lack
// CONNECT: the move's apply completes them), and by a superuser (every
// grant complete, public's USAGE from PUBLIC: the grants import as held
// and the move's apply leaves them alone, issue 36 item 2).
func TestAccMigrateFromCyrilgdn(t *testing.T) {
	blocks := requireMarkedBlocks(t, migrationGuide, migrationGuideBlocks)
	for _, tc := range []struct {
		name      string
		superuser bool
	}{{"createroleAdmin", false}, {"superuserAdmin", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := migrationServer(t, "postgres")
			f := guideFleet(t, blocks["locals.tf"])
			s.moveCyrilgdnFleet(t, blocks, f, s.cyrilgdnFleet(t, blocks, f, tc.superuser))
		})
	}
}

// TestAccMigrateFromCyrilgdn_ownerNotAdministered: PostgreSQL 16+ without
// the guide's superuser statement, the owner's import is refused
// (MissingAdminRights) with that statement, and the admin joins nothing.
// Skipped on 15, where the import joins the role itself.
func TestAccMigrateFromCyrilgdn_ownerNotAdministered(t *testing.T) {
	s := testAccServer(t, "postgres")
	if !s.administersOnlyItsRoles(t) {
		t.Skip("PostgreSQL 15 lets a CREATEROLE admin join any role (make test runs this on 18: TENANTDB_TEST_ENGINES=postgres18)")
	}
	db, owner := uniqueName("mvn"), uniqueName("mvn_app")
	s.CreateLogin(t, owner, "Peer-pw-1")
	t.Cleanup(func() { s.dropDatabase(t, db) }) // before the login's own cleanup
	s.exec(t, "", "CREATE DATABASE "+s.ident(db)+" OWNER "+s.ident(owner))
	w := newCLIWorkspace(t)
	// The database is imported too, as the guide's move does (a create of
	// it would be refused by the plan first: DatabasePreExists).
	w.write(s.serverHCL("") + ownerHCL(db, owner, "Tenantdb-pw-2", 1, "") + fmt.Sprintf(`
import {
  to = tenantdb_tenant_database.db
  id = jsonencode({ server = tenantdb_db_server.main.ref, name = %q })
}
import {
  to = tenantdb_tenant_owner.o
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = %q, username = %q })
}
`, db, db, owner))
	r := w.run("plan").mustFail(t, "the import of an owner the admin does not administer")
	d := r.requireDiag(t, "error", "MissingAdminRights")
	if want := fmt.Sprintf("GRANT %q TO %q WITH ADMIN OPTION;", owner, s.Admin.Username); !strings.Contains(d.Detail, want) {
		t.Errorf("the refusal does not give %s:\n%s", want, d.Detail)
	}
	if n := s.count(t, "", `SELECT COUNT(*) FROM pg_roles WHERE rolname = $1 AND pg_has_role($2, oid, 'MEMBER')`, owner, s.Admin.Username); n != 0 {
		t.Errorf("the refused import made the admin a member of %s", owner)
	}
}
