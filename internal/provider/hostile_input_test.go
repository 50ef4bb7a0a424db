// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Adversarial configuration values (project issue 12), through the real
// terraform CLI and the built provider, as users run it:
//
//   - TestAccHostileInput_refusedBeforeApply: no server. Every hostile value in
//     every place a name, privilege, setting, host or server name goes is
//     refused by `terraform validate` or, when the rule needs the engine or
//     the server's reserved names, by `terraform plan`, with its pinned
//     reason word and a summary naming the value exactly.
//   - TestAccHostileInput_refusedAtApply (TF_ACC): the same refusals when the
//     value is unknown until apply (it comes from terraform_data), proven
//     to run no SQL from the server's own statement log and catalog.
//   - TestAccHostileInput_exactAtApply (TF_ACC): values that pass validation
//     (names at exactly the maximum length, digits-only and exponent-like
//     names, mixed case, `_` wildcards, `--` and `$` in usernames, odd but
//     allowed privilege and encoding spellings, a 63-character server name)
//     are created exactly: the server holds exactly those names.
//   - TestHostileInput_reservedUsernamesValidated and
//     TestHostileInput_oneRefusalPerValue (no server) pin two gaps this
//     file found: reserved_usernames entries are not validated, and a bad
//     character set or collation on a PostgreSQL server is refused twice,
//     once with the MySQL rule.

// hclQuote renders s as an HCL quoted string that evaluates to exactly s:
// template sequences (${ and %{) are escaped, and so is every control
// character (HCL has no \x escape; \u0000 is a NUL).
func hclQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && strings.HasPrefix(s[i+1:], "{"):
			b.WriteRune(r)
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hclList(vals ...string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = hclQuote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// hostileCase is one adversarial value in one place of a configuration.
type hostileCase struct {
	label string // unique; the resource label and the "# case" marker
	hcl   string // the resource block(s)
	// want is the exact diagnostic summary: the reason word, the kind of
	// object and the value as Go quotes it. wantPrefix is used instead
	// where the wording is not pinned: the summary must start with it and
	// contain the quoted value.
	want       string
	wantPrefix string
	value      string
}

func (c hostileCase) matches(summary string) bool {
	if c.want != "" {
		return summary == c.want
	}
	return strings.HasPrefix(summary, c.wantPrefix) && strings.Contains(summary, strconv.Quote(c.value))
}

func (c hostileCase) wanted() string {
	if c.want != "" {
		return c.want
	}
	return fmt.Sprintf("%s… naming %s", c.wantPrefix, strconv.Quote(c.value))
}

func (c hostileCase) reason() string {
	w := c.want
	if w == "" {
		w = c.wantPrefix
	}
	return strings.SplitN(w, ":", 2)[0]
}

// Hostile values shared by the places below.
var (
	// hostileNames fail the database name pattern: SQL metacharacters,
	// wildcards, comment markers, confusables and full-width letters,
	// invisible and control characters, template sequences, empty, too long.
	hostileNames = []string{
		"a;DROP DATABASE x", "a' OR '1'='1", `a"b`, "a`b", `a\b`, `a\`, "a%", "%", "a b",
		"a--b", "--", "a/*b*/", "/*", "a#b", "#", "a;", "'", "a.b", "a-b", "a$b", "a@b",
		"ａｃｍｅ", "асме", "acmé", "acme\u200b", "\ufeffacme", "Ａ",
		"", "a\x00b", "\x00", " acme", "acme ", "acme\n", "a\nb", "a\r\nb", "a\tb", "acme\x7f",
		"${path.module}", "%{if true}x%{endif}",
		strings.Repeat("a", 65), strings.Repeat("é", 32),
	}
	// systemSchemaNames, in odd case: never a tenant database.
	systemSchemaNames = []string{
		"mysql", "MySQL", "SYS", "Information_Schema", "PERFORMANCE_SCHEMA", "Performance_Schema",
		"postgres", "Postgres", "template0", "TEMPLATE1", "Template1",
	}
	// hostileUsernames fail the username pattern.
	hostileUsernames = []string{
		"a;DROP USER x", "a' OR '1'='1", `a"b`, "a`b", `a\b`, "a%", "%", "a@b", "a@'%'", "a'@'%",
		"a b", "--a", "-a", "/*", "a/*", "#a", "a#", ".a", "$a", "a;",
		"ａｐｐ", "арр", "appé", "app\u200b", "", "a\x00b", " app", "app ", "app\n", "a\tb",
		"${x}", strings.Repeat("a", 33),
	}
	// reservedOwners are system accounts (any case), pg_* roles, the admin
	// login and the server's reserved_usernames (any case).
	reservedOwners = []string{
		"root", "ROOT", "Root", "mysql.sys", "MySQL.Session", "mysql.infoschema", "mariadb.sys",
		"MariaDB.Sys", "debian-sys-maint", "Debian-Sys-Maint", "postgres", "POSTGRES",
		"pg_monitor", "PG_MONITOR", "Pg_Read_All_Data", "pg_", "pg_anything",
		"tenantdb_admin", "TenantDB_Admin", "app_group", "APP_GROUP",
	}
	// hostilePrivileges are refused on every engine.
	hostilePrivileges = []string{
		"SELECT;DROP DATABASE x", "SELECT, INSERT", "SELECT -- x", "SELECT /* x */", "SELECT # x",
		"SELECT'", "'SELECT'", "`SELECT`", "SUPER", "GRANT OPTION", "ALL PRIVILEGES WITH GRANT OPTION",
		"SELECT WITH GRANT OPTION", "ALL", "FILE", "PROCESS", "CREATE USER", "RELOAD", "SHUTDOWN",
		"USAGE", "CONNECT", "CREATEROLE", "SUPERUSER", "ＳＥＬＥＣＴ", "ѕelect", "SEL ECT", "",
		"SELECT\x00", "SELECT\x00;DROP DATABASE x",
	}
	hostileCharsets = []string{
		"utf8mb4;DROP DATABASE x", "utf8mb4'", "utf8mb4 ", " utf8mb4", "utf8mb4\n", "ｕｔｆ８ｍｂ４",
		"utf8mb4 --", "utf8mb4--", "utf8mb4/*", "utf8mb4#", "utf8mb4`", `utf8mb4\`, "", "a\x00b",
		"latin1 COLLATE latin1_bin", "UTF8' --", strings.Repeat("a", 65),
	}
	hostileCollations = []string{
		"utf8mb4_bin'", "utf8mb4_bin;DROP DATABASE x", "C.UTF-8'", "C.UTF-8 --", "C--", "C/*", "C'",
		`C\`, "C ", " C", "C\n", "ｃ", "", "a\x00b", "C#x", "en_US.UTF-8@euro;", "POSIX;DROP DATABASE x",
		"C.UTF-8@x y", strings.Repeat("a", 65),
	}
	hostileHosts = []string{
		"a;DROP DATABASE x", "127.0.0.1;--", "db.internal --", "db.internal#x", "db.internal/*",
		"127.0.0.1 ", " 127.0.0.1", "127.0.0.1\n", "127.0.0.1\x00", "", "ｌｏｃａｌｈｏｓｔ", "lоcalhost",
		"localhost\u200b", "[::1]", "[::1]:5432", "localhost:5432", "127.0.0.1:3306", "user@localhost",
		"tcp://localhost", "/var/run/mysqld/mysqld.sock", "fe80::1%eth0", "256.1.1.1", "10.0.0",
		strings.Repeat("a", 64) + ".internal", "a..b", "-a", "a-", "localhost.", "'localhost'",
		`"localhost"`, "local%host", "localhost?sslmode=disable", "host=evil", "localhost sslmode=disable",
		"localhost\tx", "local`host",
	}
	hostileServerNames = []string{
		"Main", "MAIN", "main;DROP DATABASE x", "main'", "1main", "_main", "-main", "main name", "main\n",
		"main ", " main", "", "ｍａｉｎ", "мain", "a" + strings.Repeat("b", 63), "main.x", "main/*", "main#",
		"a\x00b", "${x}",
	}
	// hostileReserved can never match a valid username: an entry like this
	// in reserved_usernames is a mistake that silently reserves nothing.
	hostileReserved = []string{
		"a;DROP DATABASE x", " app_group", "app_group ", "", "a\x00b", "ａｐｐ", "арр", "app\n",
	}
)

// hostileCases builds every case for one engine against the offline server
// tenantdb_db_server.main (name "offline", admin tenantdb_admin,
// reserved_usernames ["app_group"]).
func hostileCases(engine string) []hostileCase {
	var cases []hostileCase
	n := 0
	add := func(place, value, want string, block func(label string) string) {
		n++
		label := fmt.Sprintf("%s_%d", place, n)
		cases = append(cases, hostileCase{label: label, hcl: block(label), want: want, value: value})
	}
	invalid := func(kind, v string) string { return fmt.Sprintf("InvalidIdentifier: %s %s", kind, strconv.Quote(v)) }
	privilege := func(v string) string { return "PrivilegeNotAllowed: privilege " + strconv.Quote(v) }

	database := func(name, extra string) func(string) string {
		return func(label string) string {
			return fmt.Sprintf("resource \"tenantdb_tenant_database\" %q {\n  server = tenantdb_db_server.main.ref\n  name   = %s\n%s}\n",
				label, name, extra)
		}
	}
	owner := func(db, user, extra string) func(string) string {
		return func(label string) string {
			return fmt.Sprintf("resource \"tenantdb_tenant_owner\" %q {\n  server      = tenantdb_db_server.main.ref\n"+
				"  database    = %s\n  username    = %s\n  password_wo = \"Hostile-pw-1\"\n  password_wo_version = 1\n%s}\n", label, db, user, extra)
		}
	}
	grant := func(db, user, privs string) func(string) string {
		return func(label string) string {
			return fmt.Sprintf("resource \"tenantdb_tenant_grant\" %q {\n  server     = tenantdb_db_server.main.ref\n"+
				"  database   = %s\n  username   = %s\n  privileges = %s\n}\n", label, db, user, privs)
		}
	}
	server := func(name, host, extra string) func(string) string {
		return func(label string) string {
			return fmt.Sprintf("resource \"tenantdb_db_server\" %q {\n  name     = %s\n  engine   = %q\n  host     = %s\n"+
				"  port     = 1\n  username = \"tenantdb_admin\"\n%s}\n", label, name, engine, host, extra)
		}
	}
	// A hand-written server (jsonencode), as the lead allows.
	handRef := func(name, host, extra string) string {
		return fmt.Sprintf("jsonencode({ name = %s, engine = %q, host = %s, port = 1, username = \"tenantdb_admin\"%s })",
			name, engine, host, extra)
	}
	withRef := func(ref string, block func(string) string) func(string) string {
		return func(label string) string {
			return strings.Replace(block(label), "tenantdb_db_server.main.ref", ref, 1)
		}
	}

	// Database names, in all three places a database is named.
	names := append(slices.Clone(hostileNames), systemSchemaNames...)
	if engine == "postgres" {
		names = append(names, strings.Repeat("a", 64), "a"+strings.Repeat("é", 32)) // 64 and 65 bytes
	}
	for _, v := range names {
		want := invalid("database name", v)
		add("db_name", v, want, database(hclQuote(v), ""))
		add("owner_db", v, want, owner(hclQuote(v), `"acme_app"`, ""))
		add("grant_db", v, want, grant(hclQuote(v), `"acme_reader"`, `["SELECT"]`))
	}

	// Usernames: the owner and the grant principal.
	for _, v := range hostileUsernames {
		add("owner_user", v, invalid("username", v), owner(`"acme"`, hclQuote(v), ""))
		add("grant_user", v, invalid("username", v), grant(`"acme"`, hclQuote(v), `["SELECT"]`))
	}
	for _, v := range reservedOwners {
		add("owner_reserved", v, "OwnerUserReserved: owner username "+strconv.Quote(v), owner(`"acme"`, hclQuote(v), ""))
		add("grant_reserved", v, "GrantUserReserved: grant username "+strconv.Quote(v), grant(`"acme"`, hclQuote(v), `["SELECT"]`))
	}
	// reserved_usernames entries match in any case, also in a hand-written
	// server object.
	mixed := handRef(`"offline"`, `"127.0.0.1"`, `, reserved_usernames = ["Mixed.Case$1"]`)
	add("owner_reserved_ref", "mixed.case$1", `OwnerUserReserved: owner username "mixed.case$1"`,
		withRef(mixed, owner(`"acme"`, `"mixed.case$1"`, "")))
	add("grant_reserved_ref", "MIXED.CASE$1", `GrantUserReserved: grant username "MIXED.CASE$1"`,
		withRef(mixed, grant(`"acme"`, `"MIXED.CASE$1"`, `["SELECT"]`)))

	// Privileges: the owner's and a grant's.
	privs := slices.Clone(hostilePrivileges)
	if engine == "mysql" {
		privs = append(privs, "TRUNCATE", "TEMPORARY") // PostgreSQL-only
	} else {
		privs = append(privs, "LOCK TABLES", "EVENT", "SHOW VIEW") // MySQL-only
	}
	for _, v := range privs {
		add("grant_priv", v, privilege(v), grant(`"acme"`, `"acme_reader"`, hclList(v)))
		add("owner_priv", v, privilege(v), owner(`"acme"`, `"acme_app"`, "  privileges = "+hclList(v)+"\n"))
	}
	add("grant_priv_all", "", "PrivilegeNotAllowed: privileges", grant(`"acme"`, `"acme_reader"`, hclList("ALL PRIVILEGES", "SELECT")))
	add("grant_priv_all2", "", "PrivilegeNotAllowed: privileges", grant(`"acme"`, `"acme_reader"`, hclList("select", "all  privileges")))
	add("grant_priv_none", "", "PrivilegeNotAllowed: privileges", grant(`"acme"`, `"acme_reader"`, "[]"))
	add("owner_priv_all", "", "PrivilegeNotAllowed: privileges", owner(`"acme"`, `"acme_app"`, "  privileges = "+hclList("ALL PRIVILEGES", "DROP")+"\n"))
	if engine == "postgres" {
		// The owner owns the database: narrower sets are refused.
		for _, v := range []string{"SELECT", "CREATE"} {
			add("owner_priv_pg", v, "PrivilegeNotAllowed: owner privileges "+strconv.Quote(v),
				owner(`"acme"`, `"acme_app"`, "  privileges = "+hclList(v)+"\n"))
		}
	}

	// Character sets and collations.
	charsets, collations := slices.Clone(hostileCharsets), slices.Clone(hostileCollations)
	if engine == "mysql" {
		charsets = append(charsets, "UTF-8", "UTF--8")
		collations = append(collations, "C.UTF-8", "en_US.UTF-8", "C.--")
	} else {
		charsets = append(charsets, "utf8mb4", "SJIS", "U--", "MULE_INTERNAL_X")
		collations = append(collations, strings.Repeat("a", 64), "C.UTF-8.x")
	}
	for _, v := range charsets {
		add("charset", v, invalid("character set", v), database(`"acme"`, "  character_set = "+hclQuote(v)+"\n"))
	}
	for _, v := range collations {
		add("collation", v, invalid("collation", v), database(`"acme"`, "  collation = "+hclQuote(v)+"\n"))
	}

	// Server host: on the server, and in a hand-written server object.
	for _, v := range hostileHosts {
		add("host", v, invalid("host", v), server(`"offline"`, hclQuote(v), ""))
		add("ref_host", v, invalid("host", v), withRef(handRef(`"offline"`, hclQuote(v), ""), database(`"acme"`, "")))
	}
	// Server name: likewise.
	for _, v := range hostileServerNames {
		add("server_name", v, invalid("server name", v), server(hclQuote(v), `"127.0.0.1"`, ""))
		if v != "" { // an empty name in a hand-written server is "missing" (Invalid server), not a pattern failure
			add("ref_name", v, invalid("server name", v), withRef(handRef(hclQuote(v), `"127.0.0.1"`, ""), database(`"acme"`, "")))
		}
	}
	return cases
}

// offlineServerHCL is a server nothing listens on: refusals before apply
// need none.
func offlineServerHCL(engine string) string {
	return fmt.Sprintf(`
resource "tenantdb_db_server" "main" {
  name               = "offline"
  engine             = %q
  host               = "127.0.0.1"
  port               = 1
  username           = "tenantdb_admin"
  reserved_usernames = ["app_group"]
}
`, engine)
}

// tfDiag is a diagnostic from terraform's JSON output, with its place.
type tfDiag struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Address  string `json:"address"`
	Range    *struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
}

// validateDiags runs terraform validate -json (one JSON document).
func validateDiags(t *testing.T, w *cliWorkspace) []tfDiag {
	t.Helper()
	res := w.run("validate")
	i := strings.Index(res.Output, "{\n")
	if i < 0 {
		t.Fatalf("terraform validate -json printed no JSON: %v\n%s", res.Err, res.Output)
	}
	var out struct {
		Valid       *bool    `json:"valid"`
		Diagnostics []tfDiag `json:"diagnostics"`
	}
	if err := json.NewDecoder(strings.NewReader(res.Output[i:])).Decode(&out); err != nil || out.Valid == nil {
		t.Fatalf("terraform validate -json: %v\n%s", err, res.Output)
	}
	return out.Diagnostics
}

// streamDiags runs a terraform command with -json (one JSON object a line)
// and returns its diagnostics.
func streamDiags(t *testing.T, w *cliWorkspace, args ...string) ([]tfDiag, cliResult) {
	t.Helper()
	res := w.run(args...)
	var diags []tfDiag
	sc := bufio.NewScanner(strings.NewReader(res.Output))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var line struct {
			Type       string `json:"type"`
			Diagnostic tfDiag `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "diagnostic" {
			diags = append(diags, line.Diagnostic)
		}
	}
	return diags, res
}

// writeCases writes the server and the cases, each after a "# case" line,
// and returns the line where each case starts in main.tf.
func writeCases(t *testing.T, w *cliWorkspace, server string, cases []hostileCase) map[string]int {
	t.Helper()
	var b strings.Builder
	b.WriteString(server)
	for _, c := range cases {
		fmt.Fprintf(&b, "\n# case %s\n%s", c.label, c.hcl)
	}
	w.write(b.String())
	raw, err := os.ReadFile(filepath.Join(w.dir, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	starts := map[string]int{}
	for i, line := range strings.Split(string(raw), "\n") {
		if label, ok := strings.CutPrefix(line, "# case "); ok {
			starts[label] = i + 1
		}
	}
	if len(starts) != len(cases) {
		t.Fatalf("found %d case markers in main.tf, want %d", len(starts), len(cases))
	}
	return starts
}

// attribute maps each error diagnostic to the case whose lines hold it.
// Errors outside every case are returned under "".
func attribute(cases []hostileCase, starts map[string]int, diags []tfDiag) map[string][]tfDiag {
	type span struct {
		label string
		start int
	}
	var spans []span
	for _, c := range cases {
		spans = append(spans, span{c.label, starts[c.label]})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := map[string][]tfDiag{}
	for _, d := range diags {
		if d.Severity != "error" {
			continue
		}
		label := ""
		if d.Range != nil {
			for _, s := range spans {
				if s.start <= d.Range.Start.Line {
					label = s.label
				}
			}
		}
		out[label] = append(out[label], d)
	}
	return out
}

// TestAccHostileInput_refusedBeforeApply: every adversarial value is refused
// by terraform validate or, for rules that need the engine or the server's
// reserved names, by terraform plan, with no server listening. Each case's
// diagnostics must include its exact summary (reason word, kind, the value
// Go-quoted) and carry no other reason; a case that validate lets through
// must be refused by plan; no error may fall outside the cases.
func TestAccHostileInput_refusedBeforeApply(t *testing.T) {
	t.Parallel()
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipOnStandIn(t, engine, "refused by validate or plan with no server listening")
			// No server, but kinds are selected as elsewhere: unselected,
			// MySQL 9.7 would repeat MariaDB's engine "mysql" cases.
			skipUnselectedKind(t, engine)
			t.Parallel()
			cases := hostileCases(providerEngine(engine))
			w := newCLIWorkspace(t)
			server := offlineServerHCL(providerEngine(engine))

			starts := writeCases(t, w, server, cases)
			byCase := attribute(cases, starts, validateDiags(t, w))
			if stray := byCase[""]; len(stray) > 0 {
				t.Fatalf("terraform validate: errors outside every case (the server block is broken?): %+v", stray)
			}
			stage := map[string]string{}
			var later []hostileCase
			for _, c := range cases {
				if len(byCase[c.label]) == 0 {
					later = append(later, c)
					continue
				}
				stage[c.label] = "validate"
				checkCaseDiags(t, "terraform validate", c, byCase[c.label])
			}

			// What validate let through needs the engine or the server:
			// plan must refuse each of them, before anything is applied.
			if len(later) > 0 {
				starts = writeCases(t, w, server, later)
				diags, res := streamDiags(t, w, "plan", "-refresh=false", "-input=false")
				if res.Err == nil {
					t.Errorf("terraform plan succeeded with %d hostile cases that validate let through", len(later))
				}
				byCase = attribute(later, starts, diags)
				if stray := byCase[""]; len(stray) > 0 {
					t.Errorf("terraform plan: errors outside every case: %+v", stray)
				}
				for _, c := range later {
					if len(byCase[c.label]) == 0 {
						t.Errorf("%s: value %s was accepted by validate and plan; want %s", c.label, strconv.Quote(c.value), c.wanted())
						continue
					}
					stage[c.label] = "plan"
					checkCaseDiags(t, "terraform plan", c, byCase[c.label])
				}
			}
			var atValidate, atPlan int
			for _, s := range stage {
				if s == "validate" {
					atValidate++
				} else {
					atPlan++
				}
			}
			t.Logf("%d hostile cases: %d refused by terraform validate, %d by terraform plan", len(cases), atValidate, atPlan)
		})
	}
}

// checkCaseDiags: the case's exact summary is among its errors, every error
// carries the same reason word, and each says why and what to do.
func checkCaseDiags(t *testing.T, stage string, c hostileCase, diags []tfDiag) {
	t.Helper()
	found := false
	for _, d := range diags {
		if c.matches(d.Summary) {
			found = true
		}
		if !strings.HasPrefix(d.Summary, c.reason()+":") {
			t.Errorf("%s: %s: value %s: unexpected error %q (%s)", stage, c.label, strconv.Quote(c.value), d.Summary, d.Detail)
		}
		if strings.TrimSpace(d.Detail) == "" {
			t.Errorf("%s: %s: error %q has no detail (why, and what to do)", stage, c.label, d.Summary)
		}
	}
	if !found {
		var got []string
		for _, d := range diags {
			got = append(got, d.Summary)
		}
		t.Errorf("%s: %s: value %s: want %s, got %q", stage, c.label, strconv.Quote(c.value), c.wanted(), got)
	}
}

// exitCode is a command's exit status (0 when it succeeded).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestHostileInput_reservedUsernamesValidated: a reserved_usernames entry
// that no username can ever equal (SQL metacharacters, a stray space, a NUL,
// full-width or Cyrillic letters, empty) is a mistake that silently
// reserves nothing: with " app_group" the owner "app_group" is allowed.
// Like every identifier (DESIGN.md: "every identifier ... is validated at
// plan time"), it must be refused by validate or plan with
// InvalidIdentifier naming the entry. A valid entry in any case keeps
// working (the control: OwnerUserReserved).
func TestHostileInput_reservedUsernamesValidated(t *testing.T) {
	t.Parallel()
	engine := "mysql"
	server := func(label, reserved string) string {
		return fmt.Sprintf("resource \"tenantdb_db_server\" %q {\n  name     = \"offline\"\n  engine   = %q\n  host     = \"127.0.0.1\"\n"+
			"  port     = 1\n  username = \"tenantdb_admin\"\n  reserved_usernames = %s\n}\n", label, engine, reserved)
	}
	owner := func(label, serverLabel, user string) string {
		return fmt.Sprintf("resource \"tenantdb_tenant_owner\" %q {\n  server      = tenantdb_db_server.%s.ref\n"+
			"  database    = \"acme\"\n  username    = %s\n  password_wo = \"Hostile-pw-1\"\n  password_wo_version = 1\n}\n", label, serverLabel, hclQuote(user))
	}
	var cases []hostileCase
	for i, v := range hostileReserved {
		label := fmt.Sprintf("reserved_%d", i)
		cases = append(cases, hostileCase{
			label: label, hcl: server(label, hclList(v)), wantPrefix: "InvalidIdentifier", value: v,
		})
	}
	// The control: a valid entry, in another case than the owner.
	cases = append(cases, hostileCase{
		label: "control", hcl: server("control", hclList("App.Group$1")) + owner("control_owner", "control", "app.group$1"),
		want: `OwnerUserReserved: owner username "app.group$1"`, value: "app.group$1",
	})
	w := newCLIWorkspace(t)
	starts := writeCases(t, w, "", cases)
	byCase := attribute(cases, starts, validateDiags(t, w))
	var later []hostileCase
	for _, c := range cases {
		if len(byCase[c.label]) == 0 {
			later = append(later, c)
			continue
		}
		checkCaseDiags(t, "terraform validate", c, byCase[c.label])
	}
	starts = writeCases(t, w, "", later)
	diags, _ := streamDiags(t, w, "plan", "-refresh=false", "-input=false")
	byCase = attribute(later, starts, diags)
	for _, c := range later {
		if len(byCase[c.label]) == 0 {
			t.Errorf("reserved_usernames = [%s] was accepted by validate and plan: it can never match a username, so it "+
				"reserves nothing (want %s)", strconv.Quote(c.value), c.wanted())
			continue
		}
		checkCaseDiags(t, "terraform plan", c, byCase[c.label])
	}
}

// unknownHCL is a terraform_data whose output (the value) is unknown until
// apply, so the provider can only refuse it then.
func unknownHCL(label, value string) string {
	return fmt.Sprintf("resource \"terraform_data\" %q {\n  input = %s\n}\n", label, value)
}

// TestAccHostileInput_refusedAtApply: hostile values that are unknown at plan
// time (they come from terraform_data) pass the plan and must be refused by
// the provider's second validation, in Go, before any SQL: the apply fails
// with each value's exact refusal, the admin sent no DDL/DCL (the server's
// statement log) and the server's catalog is unchanged, and no hostile
// resource reached state.
func TestAccHostileInput_refusedAtApply(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			skipOnStandIn(t, engine, "refused at apply before any SQL, by the provider's own checks")
			s := testAccServer(t, engine)
			s.RequireStatementLog(t)
			base := uniqueName("hostile")
			t.Cleanup(func() { s.dropDatabase(t, base) })
			w := newCLIWorkspace(t)
			baseHCL := s.serverHCL(`reserved_usernames = ["app_group"]`) + tenantDatabaseHCL(base, "")
			w.write(baseHCL)
			w.run("apply", "-auto-approve").mustSucceed(t, "create the base database")

			long := strings.Repeat("a", 65)
			if engine == "postgres" {
				long = strings.Repeat("a", 64)
			}
			type unknownCase struct {
				value string // HCL of the terraform_data input
				hcl   string // the resource using terraform_data.<label>.output
				want  string // the exact summary
			}
			var cases []unknownCase
			n := 0
			label := func() string { n++; return fmt.Sprintf("v%d", n) }
			database := func(v string) {
				l := label()
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_database\" %q {\n  server = tenantdb_db_server.main.ref\n  name   = terraform_data.%s.output\n}\n", l, l),
					"InvalidIdentifier: database name " + strconv.Quote(v)})
			}
			setting := func(attr, kind, v string) {
				l := label()
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_database\" %q {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n  %s = terraform_data.%s.output\n}\n",
						l, base+"_"+l, attr, l),
					fmt.Sprintf("InvalidIdentifier: %s %s", kind, strconv.Quote(v))})
			}
			owner := func(v, want string) {
				l := label()
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_owner\" %q {\n  server      = tenantdb_db_server.main.ref\n  database    = %q\n"+
						"  username    = terraform_data.%s.output\n  password_wo = \"Hostile-pw-1\"\n  password_wo_version = 1\n}\n", l, base, l),
					want})
			}
			ownerDB := func(v string) {
				l := label()
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_owner\" %q {\n  server      = tenantdb_db_server.main.ref\n  database    = terraform_data.%s.output\n"+
						"  username    = \"hostile_owner\"\n  password_wo = \"Hostile-pw-1\"\n  password_wo_version = 1\n}\n", l, l),
					"InvalidIdentifier: database name " + strconv.Quote(v)})
			}
			grant := func(v, want string) {
				l := label()
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_grant\" %q {\n  server     = tenantdb_db_server.main.ref\n  database   = %q\n"+
						"  username   = terraform_data.%s.output\n  privileges = [\"SELECT\"]\n}\n", l, base, l),
					want})
			}
			privileges := func(resourceType string, v string) {
				l := label()
				hcl := grantHCL(l, strconv.Quote(base), "hostile_reader", "terraform_data."+l+".output", "")
				if resourceType == "owner" {
					hcl = fmt.Sprintf("resource \"tenantdb_tenant_owner\" %q {\n  server      = tenantdb_db_server.main.ref\n  database    = %q\n"+
						"  username    = \"hostile_owner\"\n  password_wo = \"Hostile-pw-1\"\n  password_wo_version = 1\n  privileges  = terraform_data.%s.output\n}\n", l, base, l)
				}
				cases = append(cases, unknownCase{hclList(v), hcl, "PrivilegeNotAllowed: privilege " + strconv.Quote(v)})
			}
			ref := func(field, v, want string) {
				l := label()
				host, name := strconv.Quote(s.Host), strconv.Quote(s.name)
				if field == "host" {
					host = "terraform_data." + l + ".output"
				} else {
					name = "terraform_data." + l + ".output"
				}
				cases = append(cases, unknownCase{hclQuote(v),
					fmt.Sprintf("resource \"tenantdb_tenant_database\" %q {\n  server = jsonencode({ name = %s, engine = %q, host = %s, port = %d, "+
						"username = %q, tls = \"verify-full\" })\n  name   = %q\n}\n",
						l, name, s.Engine, host, s.Port, s.Admin.Username, base+"_"+l),
					want})
			}

			for _, v := range []string{"a;DROP DATABASE x", "a' OR '1'='1", "a`b", "a\x00b", "ａｃｍｅ", "асме", "acme ", "MySQL",
				"Information_Schema", "TEMPLATE1", long, ""} {
				database(v)
			}
			ownerDB("a;DROP DATABASE x")
			ownerDB("Performance_Schema")
			setting("character_set", "character set", "utf8mb4' --")
			setting("collation", "collation", "C'; DROP DATABASE x; --")
			for _, v := range []string{"root", "Root", "mariadb.sys", "MySQL.Sys", "PG_MONITOR", "postgres", "app_group", "APP_GROUP",
				strings.ToUpper(s.Admin.Username)} {
				owner(v, "OwnerUserReserved: owner username "+strconv.Quote(v))
				grant(v, "GrantUserReserved: grant username "+strconv.Quote(v))
			}
			for _, v := range []string{"a' OR '1'='1", `a"b`, "a;DROP USER x", "ａｐｐ", "app\n", strings.Repeat("u", 33)} {
				owner(v, "InvalidIdentifier: username "+strconv.Quote(v))
				grant(v, "InvalidIdentifier: username "+strconv.Quote(v))
			}
			for _, v := range []string{"SUPER", "GRANT OPTION", "SELECT;DROP DATABASE x", "ALL PRIVILEGES WITH GRANT OPTION", "ＳＥＬＥＣＴ"} {
				privileges("grant", v)
				privileges("owner", v)
			}
			ref("host", "127.0.0.1;DROP DATABASE x", `InvalidIdentifier: host "127.0.0.1;DROP DATABASE x"`)
			ref("host", s.Host+" ", fmt.Sprintf("InvalidIdentifier: host %q", s.Host+" "))
			ref("name", "Main;--", `InvalidIdentifier: server name "Main;--"`)

			// reserved_usernames unknown until apply: the server's ref is
			// unknown at plan time, so only apply can refuse the owner.
			late := s.serverResourceHCL("late", s.name, s.Port, "reserved_usernames = terraform_data.late.output")
			late += unknownHCL("late", `["late_group"]`) + fmt.Sprintf(`
resource "tenantdb_tenant_owner" "late" {
  server      = tenantdb_db_server.late.ref
  database    = %q
  username    = "LATE_GROUP"
  password_wo = "Hostile-pw-1"
  password_wo_version = 1
}
`, base)
			wants := []string{`OwnerUserReserved: owner username "LATE_GROUP"`}

			var b strings.Builder
			b.WriteString(baseHCL + late)
			for i, c := range cases {
				b.WriteString(unknownHCL(fmt.Sprintf("v%d", i+1), c.value))
				b.WriteString(c.hcl)
				wants = append(wants, c.want)
			}
			hostile := b.String()

			// The plan accepts all of it: the values are unknown.
			w.write(hostile)
			w.run("plan", "-input=false").mustSucceed(t, "plan with hostile values unknown until apply")

			var proof noSQLProof
			s.beforeRefusal(t, &proof, "")
			res := w.run("apply", "-auto-approve", "-input=false").mustFail(t, "apply of hostile values")
			proof.assert(t, "hostile values refused at apply")

			// Each value's exact refusal, and no other error. (The same
			// refusal twice, for a character set or collation on
			// PostgreSQL, is TestHostileInput_oneRefusalPerValue's bug.)
			summaries := map[string]bool{}
			for _, d := range res.Diagnostics {
				if d.Severity == "error" {
					summaries[d.Summary] = true
					if strings.TrimSpace(d.Detail) == "" {
						t.Errorf("refusal %q has no detail", d.Summary)
					}
				}
			}
			for _, want := range wants {
				if !summaries[want] {
					t.Errorf("apply: no error %q", want)
				}
			}
			for got := range summaries {
				if !slices.Contains(wants, got) {
					t.Errorf("apply: unexpected error %q", got)
				}
			}
			t.Logf("apply refused %d hostile values unknown at plan time; the admin sent no DDL/DCL", len(wants))

			// Nothing hostile reached state.
			raw, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
			if err != nil {
				t.Fatal(err)
			}
			var st map[string]any
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatal(err)
			}
			for _, typ := range []string{"tenantdb_tenant_owner", "tenantdb_tenant_grant"} {
				if is := instances(st, typ); len(is) > 0 {
					t.Errorf("%d %s instance(s) in state after their refusal", len(is), typ)
				}
			}
			if is := instances(st, "tenantdb_tenant_database"); len(is) != 1 {
				t.Errorf("%d tenantdb_tenant_database instances in state, want only the base database", len(is))
			}

			// A value validation lets through and the server refuses: the
			// one statement that carries it fails and changes nothing.
			serverRefused, serverSays := "", ""
			if engine == "postgres" {
				// PostgreSQL 15: "invalid locale name"; 16+: "invalid LC_COLLATE locale name".
				serverRefused, serverSays = `collation = "C.--"`, `invalid (LC_[A-Z]+ )?locale name`
			} else {
				// MySQL/MariaDB: the plan asks the server (issue 57's
				// preflight) and refuses with its error number.
				serverRefused, serverSays = `character_set = "unicode"`, `InvalidIdentifier: character set \\"unicode\\" on server.*1115`
			}
			odd := base + "_odd"
			w.write(baseHCL + tenantDatabaseHCL(odd, serverRefused))
			s.beforeRefusal(t, &proof, "")
			res = w.run("apply", "-auto-approve", "-input=false").mustFail(t, "apply of "+serverRefused)
			proof.assertOnly(t, serverRefused, "CREATE DATABASE")
			if !regexp.MustCompile(serverSays).MatchString(res.Output) {
				t.Errorf("apply of %s: want the server's %q, got:\n%s", serverRefused, serverSays, res.Output)
			}
			if s.databaseExists(t, odd) {
				t.Errorf("database %s exists after the server refused its settings", odd)
			}

			w.write(baseHCL)
			w.run("apply", "-auto-approve").mustSucceed(t, "back to the base configuration")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}

// catalogNames lists the server's database and login names as stored,
// compared exactly in Go (MariaDB's information_schema compares names
// case-insensitively).
func (s accServer) catalogNames(t *testing.T) (databases, logins []string) {
	t.Helper()
	qdb, qlogin := `SELECT SCHEMA_NAME FROM information_schema.SCHEMATA`, `SELECT User FROM mysql.user WHERE Host = '%'`
	if s.Engine == "postgres" {
		qdb, qlogin = `SELECT datname FROM pg_database`, `SELECT rolname FROM pg_roles`
	}
	read := func(q string) []string {
		rows, err := s.super(t, "").Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	return read(qdb), read(qlogin)
}

// waitNoSessions waits until no session other than the admin's is in any
// of dbs (a test's own logins close asynchronously), so that a drop is not
// refused for sessions the test opened.
func (s accServer) waitNoSessions(t *testing.T, dbs ...string) {
	t.Helper()
	q := `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ? AND USER <> ?`
	if s.Engine == "postgres" {
		q = `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1 AND usename <> $2`
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, db := range dbs {
		for {
			var n int
			if err := s.super(t, "").QueryRow(q, db, s.Admin.Username).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d session(s) still in %s", n, db)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// pad extends s with fill to exactly n bytes.
func pad(s string, fill byte, n int) string {
	if len(s) > n {
		panic(fmt.Sprintf("%q is longer than %d", s, n))
	}
	return s + strings.Repeat(string(fill), n-len(s))
}

// TestAccHostileInput_exactAtApply: values at the edge of what validation
// allows are created exactly as written, and the server holds exactly
// those names: a database name of exactly the maximum length (MySQL 64,
// PostgreSQL 63 bytes) in mixed case; a digits-only and an exponent-like
// name (1e…, a number if unquoted); a name with `_`, whose MySQL grant must
// not match the sibling name with another character there; an owner login
// of exactly 32 characters starting with a digit, with `.`, `$`, `--` and
// upper case, and a password full of quotes, backslashes and comment
// markers; a grant to a principal named with `.`, `$` and `-`, with
// privileges spelled oddly (spaces, case, Unicode case mappings that fold to
// the keyword); a character set spelled as the server does not report it;
// and a server name of exactly 63 characters. Then a plan is empty (no
// drift from the spellings) and destroy removes exactly what was created.
func TestAccHostileInput_exactAtApply(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			maxDB := 64
			if engine == "postgres" {
				maxDB = 63
			}
			pid, next := os.Getpid()%10000, func() int64 { return uniq.Add(1) }
			maxName := pad(uniqueName("MaxLen"), 'X', maxDB)
			digits := fmt.Sprintf("9%d0%d", pid, next())
			expo := fmt.Sprintf("1e%d0%d", pid, next())
			wild := uniqueName("w")
			sibling := strings.Replace(wild, "_", "X", 1) // what an unescaped `_` would match
			ownerName := pad(fmt.Sprintf("0Q.$--%d_%d", pid, next()), 'z', 32)
			principal := fmt.Sprintf("Rp.$-%d_%d", pid, next())
			longServer := pad("tenantdb_long_server_name_", '0', 63)
			const ownerPW = `Hostile-'pw'--"\%_$` + "`#/*;"
			t.Cleanup(func() {
				s.dropDatabase(t, maxName, digits, expo, wild, sibling)
				s.dropLogins(t, ownerName)
			})
			envMu.Lock()
			os.Setenv(AdminPasswordEnv(longServer), s.Admin.Password)
			envMu.Unlock()
			t.Cleanup(func() {
				envMu.Lock()
				os.Unsetenv(AdminPasswordEnv(longServer))
				envMu.Unlock()
			})
			s.principal(t, principal)
			s.foreignDatabase(t, sibling)

			charset, collation, wantCS, wantCO := "UTF8MB4", "UTF8MB4_BIN", "utf8mb4", "utf8mb4_bin"
			if engine == "postgres" {
				charset, collation, wantCS, wantCO = "UTF--8", "C", "UTF8", "C"
			}
			hcl := caCertsHCL(map[string]string{s.name: s.CAPEM, longServer: s.CAPEM}) +
				s.serverResourceHCL("main", s.name, s.Port, "") + s.serverResourceHCL("long", longServer, s.Port, "") + fmt.Sprintf(`
resource "tenantdb_tenant_database" "max" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  character_set   = %q
  collation       = %q
  deletion_policy = "delete"
}
resource "tenantdb_tenant_database" "digits" {
  server          = tenantdb_db_server.long.ref
  name            = %q
  deletion_policy = "delete"
}
resource "tenantdb_tenant_database" "expo" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
resource "tenantdb_tenant_database" "wild" {
  server          = tenantdb_db_server.main.ref
  name            = %q
  deletion_policy = "delete"
}
resource "tenantdb_tenant_owner" "o" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.wild.name
  username            = %q
  password_wo         = %s
  password_wo_version = 1
}
resource "tenantdb_tenant_grant" "g" {
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.wild.name
  username   = %q
  privileges = [" select ", "Select", "ſelect", "ınsert"]
  depends_on = [tenantdb_tenant_owner.o]
}
`, maxName, charset, collation, digits, expo, wild, ownerName, hclQuote(ownerPW), principal)
			w := newCLIWorkspace(t)
			w.write(hcl)
			apply := w.run("apply", "-auto-approve", "-input=false").mustSucceed(t, "apply of edge values")
			t.Logf("applied: databases %q, %q, %q, %q; owner %q; grant to %q; server name %q (%d diagnostics)",
				maxName, digits, expo, wild, ownerName, principal, longServer, len(apply.Diagnostics))

			// Exactly these names, byte for byte, and no folded variant.
			dbs, logins := s.catalogNames(t)
			for _, n := range []string{maxName, digits, expo, wild} {
				if !slices.Contains(dbs, n) {
					t.Errorf("database %q (%d bytes) is not on the server; it has %q", n, len(n), dbs)
				}
			}
			if l := strings.ToLower(maxName); slices.Contains(dbs, l) {
				t.Errorf("the server holds the case-folded name %q", l)
			}
			if !slices.Contains(logins, ownerName) {
				t.Errorf("login %q is not on the server", ownerName)
			}
			if l := strings.ToLower(ownerName); slices.Contains(logins, l) {
				t.Errorf("the server holds the case-folded login %q", l)
			}
			if cs, co := s.charsetCollation(t, maxName); cs != wantCS || co != wantCO {
				t.Errorf("%s has %s/%s, want %s/%s", maxName, cs, co, wantCS, wantCO)
			}

			// The owner logs in with exactly its password, works in its
			// database, and reaches nothing in the `_` sibling.
			tbl := s.table(wild, "t")
			if err := s.as(ownerName, ownerPW, wild, "CREATE TABLE "+tbl+" (v int)", "INSERT INTO "+tbl+" VALUES (1)"); err != nil {
				t.Fatalf("the owner cannot work in its database: %v", err)
			}
			if err := s.as(ownerName, ownerPW+" ", wild, "SELECT 1"); err == nil {
				t.Errorf("the owner logs in with its password plus a space")
			}
			if err := denied(s.as(ownerName, ownerPW, wild, "SELECT v FROM "+s.table(sibling, "t")), "the owner reading "+sibling); s.Engine == "mysql" && err != nil {
				t.Errorf("wildcard: %v", err)
			}
			if engine == "postgres" {
				if err := denied(s.as(ownerName, ownerPW, sibling, "SELECT v FROM t"), "the owner reading "+sibling); err != nil {
					t.Errorf("%v", err)
				}
			}
			// The principal holds exactly SELECT and INSERT.
			if err := s.as(principal, principalPW, wild, "SELECT v FROM "+tbl, "INSERT INTO "+tbl+" VALUES (2)"); err != nil {
				t.Errorf("the principal cannot SELECT and INSERT: %v", err)
			}
			if err := denied(s.as(principal, principalPW, wild, "DELETE FROM "+tbl), "the principal's DELETE"); err != nil {
				t.Errorf("%v", err)
			}
			if s.Engine == "mysql" {
				if err := s.requireResidue(t, wild, principal, []string{"Insert_priv", "Select_priv"}, nil); err != nil {
					t.Errorf("%v", err)
				}
				if err := denied(s.as(principal, principalPW, wild, "SELECT v FROM "+s.table(sibling, "t")), "the principal reading "+sibling); err != nil {
					t.Errorf("wildcard: %v", err)
				}
			}

			// No drift from any spelling.
			if res := w.run("plan", "-detailed-exitcode", "-input=false"); exitCode(res.Err) != 0 {
				t.Errorf("plan after apply is not empty (exit %d):\n%s", exitCode(res.Err), res.Output)
			}

			s.waitNoSessions(t, maxName, digits, expo, wild)
			w.run("destroy", "-auto-approve", "-input=false").mustSucceed(t, "destroy")
			dbs, logins = s.catalogNames(t)
			for _, n := range []string{maxName, digits, expo, wild} {
				if slices.Contains(dbs, n) {
					t.Errorf("database %q survived destroy under deletion_policy = \"delete\"", n)
				}
			}
			s.requireForeignIntact(t, sibling)
			if slices.Contains(logins, ownerName) {
				t.Errorf("login %q survived destroy", ownerName)
			}
			if !slices.Contains(logins, principal) {
				t.Errorf("the principal %q is gone: a grant never drops its principal", principal)
			}
		})
	}
}

// TestHostileInput_oneRefusalPerValue: a character set or collation that
// breaks every engine's rule, on a PostgreSQL server known at validate time
// (a hand-written server object), must be refused once, with
// PostgreSQL's rule. Terraform folds identical diagnostics, so this is only
// visible where the two rules differ: today the attribute validator (which
// does not know the engine and reports the MySQL pattern,
// ^[A-Za-z0-9_]{1,64}$, which PostgreSQL locales such as C.UTF-8 do not
// follow) and ValidateConfig (PostgreSQL's rule) both refuse it. The same
// happens at apply for values unknown until then, as Terraform validates
// the final configuration again.
func TestHostileInput_oneRefusalPerValue(t *testing.T) {
	t.Parallel()
	ref := `jsonencode({ name = "offline", engine = "postgres", host = "127.0.0.1", port = 1, username = "tenantdb_admin" })`
	cases := []hostileCase{
		{label: "charset", value: "utf8mb4' --", want: `InvalidIdentifier: character set "utf8mb4' --"`,
			hcl: "resource \"tenantdb_tenant_database\" \"charset\" {\n  server = " + ref + "\n  name = \"acme\"\n  character_set = \"utf8mb4' --\"\n}\n"},
		{label: "collation", value: "C'; DROP DATABASE x; --", want: `InvalidIdentifier: collation "C'; DROP DATABASE x; --"`,
			hcl: "resource \"tenantdb_tenant_database\" \"collation\" {\n  server = " + ref + "\n  name = \"acme\"\n  collation = \"C'; DROP DATABASE x; --\"\n}\n"},
	}
	w := newCLIWorkspace(t)
	starts := writeCases(t, w, "", cases)
	byCase := attribute(cases, starts, validateDiags(t, w))
	for _, c := range cases {
		checkCaseDiags(t, "terraform validate", c, byCase[c.label])
		var details []string
		for _, d := range byCase[c.label] {
			details = append(details, d.Detail)
		}
		if len(details) != 1 || !strings.Contains(details[0], "PostgreSQL") {
			t.Errorf("%s %s on a PostgreSQL server: want one refusal stating PostgreSQL's rule, got %d:\n%s",
				c.label, strconv.Quote(c.value), len(details), strings.Join(details, "\n---\n"))
		}
	}
}
