// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The property for every constructor and renderer: any input is either
// refused, or appears in the rendered SQL only as one correctly quoted
// identifier or literal, which reads back as exactly the input.

var fuzzSeeds = []string{
	"acme", "acme_1", "a`b", `a"b`, "a'b", `a\b`, "a%b", "mysql", "Template1",
	"ü", "\x00", strings.Repeat("a", 64), strings.Repeat("a", 65), "a.b$c-d", "",
}

// unquote reads one quoted token starting at s[0] with the given quote
// character (doubling escapes it, no backslash escapes) and returns its
// value and the rest of s.
func unquote(t *testing.T, s string, q byte) (string, string) {
	t.Helper()
	if len(s) == 0 || s[0] != q {
		t.Fatalf("expected %c-quoted token at %q", q, s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), s[i+1:]
	}
	t.Fatalf("unterminated %c-quoted token in %q", q, s)
	return "", ""
}

func FuzzDatabaseName(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, info := range []ServerInfo{mysql80, pg15} {
			db, err := NewDatabaseName(info.Flavor.Engine(), in)
			if err != nil {
				if ReasonOf(err) != InvalidIdentifier {
					t.Fatalf("reason %q", ReasonOf(err))
				}
				continue
			}
			q, prefix := byte('`'), "DROP DATABASE IF EXISTS "
			if info.Flavor == FlavorPostgres {
				q = '"'
			}
			got := NewDialect(info).DropDatabase(db).Statements[0].SQL()
			if !strings.HasPrefix(got, prefix) {
				t.Fatalf("unexpected %q", got)
			}
			name, rest := unquote(t, got[len(prefix):], q)
			if name != in || rest != "" {
				t.Fatalf("%q rendered as %q (read back %q, rest %q)", in, got, name, rest)
			}
		}
	})
}

func FuzzUsernameAndPassword(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, s)
	}
	f.Add("acme_app", "p'a\\ss\"wö`rd''\\'%_?")
	f.Add("acme_app", "leak-me-\x00-'please'")
	f.Add("acme_app", "invalid-\xff-utf8-'quoted'")
	f.Fuzz(func(t *testing.T, user, password string) {
		u, err := NewUsername(EngineMySQL, user)
		if err != nil {
			if ReasonOf(err) != InvalidIdentifier {
				t.Fatalf("reason %q", ReasonOf(err))
			}
			return
		}
		pw, err := NewPassword(password)
		if err != nil {
			if ReasonOf(err) != InvalidPassword {
				t.Fatalf("reason %q", ReasonOf(err))
			}
			if strings.Contains(err.Error(), password) && len(password) > 3 {
				t.Fatalf("error echoes the password")
			}
			// Escaped or truncated echoes too: the refusal of a password
			// that differs only in letters, digits and quotes reads the same.
			_, twinErr := NewPassword(twinPassword(password))
			if twinErr == nil || twinErr.Error() != err.Error() {
				t.Fatalf("the refusal depends on the password's text:\n%v\n%v", err, twinErr)
			}
			return
		}
		// MySQL 8: ALTER USER 'u'@'%' IDENTIFIED BY '<pw>', read back exactly.
		got := NewDialect(mysql80).SetPassword(u, pw, false).Statements[0].SQL()
		rest := strings.TrimPrefix(got, "ALTER USER ")
		name, rest := unquote(t, rest, '\'')
		if name != user || !strings.HasPrefix(rest, "@'%' IDENTIFIED BY ") {
			t.Fatalf("user %q rendered as %q", user, got)
		}
		lit, rest := unquote(t, strings.TrimPrefix(rest, "@'%' IDENTIFIED BY "), '\'')
		if lit != password || rest != "" {
			t.Fatalf("password rendered as %q, read back %q rest %q", got, lit, rest)
		}
		// MariaDB: the native hash, never the password.
		maria := NewDialect(mariadb).SetPassword(u, pw, false).Statements[0].SQL()
		name, rest = unquote(t, strings.TrimPrefix(maria, "ALTER USER "), '\'')
		if name != user || !strings.HasPrefix(rest, "@'%' IDENTIFIED BY PASSWORD '*") {
			t.Fatalf("mariadb rendered %q", maria)
		}
		if hash, rest := unquote(t, strings.TrimPrefix(rest, "@'%' IDENTIFIED BY PASSWORD "), '\''); hash != mysqlNativeHash(password) || rest != "" {
			t.Fatalf("mariadb password clause %q is not the native hash alone", maria)
		}
		// PostgreSQL: the literal is a verifier, never the password.
		pg := NewDialect(pg15).SetPassword(u, pw, false).Statements[0].SQL()
		role, rest := unquote(t, strings.TrimPrefix(pg, "ALTER ROLE "), '"')
		if role != user || !strings.HasPrefix(rest, " PASSWORD 'SCRAM-SHA-256$4096:") {
			t.Fatalf("pg rendered %q", pg)
		}
		verifier, _ := unquote(t, strings.TrimPrefix(rest, " PASSWORD "), '\'')
		if len(password) >= 8 && strings.Contains(verifier, password) {
			t.Fatalf("pg statement contains the plaintext")
		}
	})
}

// twinPassword changes every letter, digit and quote of a password and
// keeps everything a validator may look at: length, UTF-8 validity, NULs.
// A refusal that does not echo the password reads the same for both.
func twinPassword(pw string) string {
	b := []byte(pw)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+1)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+1)%26
		case c >= '0' && c <= '9':
			b[i] = '0' + (c-'0'+1)%10
		case c == '\'':
			b[i] = '"'
		case c == '"':
			b[i] = '\''
		case c == '\\':
			b[i] = '/'
		case c == '/':
			b[i] = '\\'
		}
	}
	return string(b)
}

// FuzzPrivileges: declared privileges a, b and an actual set picked from the
// server's catalog (plus GRANT OPTION where read-back reports it, and names
// read-back never produces) by the bits of held. The properties:
//   - ALL PRIVILEGES is exclusive: accepted only alone (repeats allowed);
//     GRANT OPTION is never accepted.
//   - Diff grants exactly what desired lacks and revokes exactly the
//     surplus: a revoke names only privileges in the actual set (catalog
//     members or GRANT OPTION) and outside desired; a grant names only
//     privileges of desired, or exactly [ALL PRIVILEGES] when desired is
//     ALL; ALL and GRANT OPTION are never revoked/granted respectively.
//   - From nothing, ALL grants exactly [ALL PRIVILEGES] (ALL stays ALL), a
//     list grants exactly the list; the diff then converges: applying it
//     and diffing again changes nothing.
//   - The rendered plan grants before it revokes, its GRANT lists name only
//     granted privileges (PostgreSQL adds CONNECT and USAGE), its REVOKE
//     lists only revoked ones, never ALL, never "WITH GRANT OPTION", and
//     every privilege of the diff is rendered.
func FuzzPrivileges(f *testing.F) {
	f.Add("SELECT", "delete", uint64(0))
	f.Add("ALL PRIVILEGES", "", uint64(0))
	f.Add("ALL PRIVILEGES", "all  privileges", uint64(0x5))
	f.Add("ALL PRIVILEGES", "SELECT", uint64(0))
	f.Add("GRANT OPTION", "SELECT", uint64(1))
	f.Add("select; drop table x", "x", uint64(0))
	f.Add("SELECT", "INSERT", ^uint64(0))
	f.Add("ALL PRIVILEGES", "ALL PRIVILEGES", ^uint64(0)>>3)
	f.Add("lock tables", "show view", uint64(0xaaaa))
	f.Add("temporary", "truncate", uint64(0x1f0))
	f.Fuzz(func(t *testing.T, a, b string, held uint64) {
		for _, info := range []ServerInfo{mysql80, mariadb, mariadb114, pg15} {
			e := info.Flavor.Engine()
			declared := []string{a, b}
			set, err := ParsePrivileges(e, declared)
			if err != nil {
				if ReasonOf(err) != PrivilegeNotAllowed {
					t.Fatalf("reason %q", ReasonOf(err))
				}
				continue
			}
			checkParsedSet(t, info, declared, set)

			catalog := Catalog(info)
			universe := append(slices.Clone(catalog), "CONNECT", "USAGE", "MAINTAIN")
			if info.Flavor != FlavorPostgres {
				// Only MySQL/MariaDB read-back reports GRANT OPTION.
				universe = append(universe, GrantOption)
			}
			var actual []Privilege
			for i, p := range universe {
				if held&(1<<i) != 0 {
					actual = append(actual, p)
				}
			}

			// From nothing: ALL stays ALL, a list is granted as is.
			fresh := Diff(info, set, nil)
			wantFresh := set.Expand(info)
			if set.IsAll() {
				wantFresh = []Privilege{AllPrivileges}
			}
			if !slices.Equal(fresh.Grant, wantFresh) || len(fresh.Revoke) != 0 {
				t.Fatalf("%s: Diff(%v, nothing) = %+v, want grant %v only", info.Flavor, set.Names(), fresh, wantFresh)
			}
			// Holding exactly what is desired: nothing to do.
			if d := Diff(info, set, set.Expand(info)); !d.Empty() {
				t.Fatalf("%s: Diff(%v, the same set) = %+v, want nothing", info.Flavor, set.Names(), d)
			}

			d := Diff(info, set, actual)
			checkDiff(t, info, set, actual, d)
			checkConverges(t, info, set, actual, d)

			db := must(NewDatabaseName(e, "acme"))
			u := must(NewUsername(e, "maester"))
			owner := must(NewUsername(e, "acme_owner"))
			for _, diff := range []PrivilegeDiff{fresh, d} {
				checkRendered(t, info, diff, NewDialect(info).SyncPrivileges(db, u, owner, diff))
			}
		}
	})
}

// checkParsedSet: ALL PRIVILEGES is exclusive, GRANT OPTION never accepted,
// and the set holds exactly the declared (canonical) names.
func checkParsedSet(t *testing.T, info ServerInfo, declared []string, set PrivilegeSet) {
	t.Helper()
	sawAll := false
	var names []string
	for _, d := range declared {
		p := NormalizePrivilege(d)
		if p == GrantOption {
			t.Fatalf("%s: GRANT OPTION accepted in %q", info.Flavor, declared)
		}
		if p == AllPrivileges {
			sawAll = true
		}
		if !slices.Contains(names, string(p)) {
			names = append(names, string(p))
		}
	}
	slices.Sort(names)
	if sawAll {
		if len(names) != 1 || !set.IsAll() {
			t.Fatalf("%s: ALL PRIVILEGES combined with others accepted: %q -> %v", info.Flavor, declared, set.Names())
		}
		if !slices.Equal(set.Names(), []string{string(AllPrivileges)}) || !slices.Equal(set.Expand(info), Catalog(info)) {
			t.Fatalf("%s: ALL names %v, expands to %v", info.Flavor, set.Names(), set.Expand(info))
		}
		return
	}
	if set.IsAll() || !slices.Equal(set.Names(), names) {
		t.Fatalf("%s: %q parsed as %v (all=%v), want %v", info.Flavor, declared, set.Names(), set.IsAll(), names)
	}
	for _, p := range set.Expand(info) {
		if !slices.Contains(Catalog(info), p) {
			t.Fatalf("%s: declared %q is not in the catalog %v", info.Flavor, p, Catalog(info))
		}
	}
}

func checkDiff(t *testing.T, info ServerInfo, set PrivilegeSet, actual []Privilege, d PrivilegeDiff) {
	t.Helper()
	want, catalog := set.Expand(info), Catalog(info)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: Diff(%v, %v) = %+v: %s", info.Flavor, set.Names(), actual, d, fmt.Sprintf(format, args...))
	}
	for _, p := range d.Revoke {
		switch {
		case p == AllPrivileges:
			fail("revokes ALL PRIVILEGES")
		case !slices.Contains(actual, p):
			fail("revokes %q, which is not held", p)
		case slices.Contains(want, p):
			fail("revokes %q, which is desired", p)
		case !slices.Contains(catalog, p) && p != GrantOption:
			fail("revokes %q, outside the catalog", p)
		case slices.Contains(d.Grant, p):
			fail("grants and revokes %q", p)
		}
	}
	for _, p := range actual {
		surplus := (slices.Contains(catalog, p) || p == GrantOption) && !slices.Contains(want, p)
		if surplus && !slices.Contains(d.Revoke, p) {
			fail("keeps the surplus %q", p)
		}
	}
	missing := minus(want, sortedUnique(actual))
	if set.IsAll() {
		wantGrant := []Privilege(nil)
		if len(missing) > 0 {
			wantGrant = []Privilege{AllPrivileges}
		}
		if !slices.Equal(d.Grant, wantGrant) {
			fail("grant %v, want %v", d.Grant, wantGrant)
		}
		return
	}
	if !slices.Equal(d.Grant, missing) {
		fail("grant %v, want exactly the missing %v", d.Grant, missing)
	}
	for _, p := range d.Grant {
		if p == AllPrivileges || p == GrantOption || !slices.Contains(want, p) {
			fail("grants %q, which is not desired", p)
		}
	}
}

// checkConverges applies d to actual as a server would and diffs again.
func checkConverges(t *testing.T, info ServerInfo, set PrivilegeSet, actual []Privilege, d PrivilegeDiff) {
	t.Helper()
	after := slices.Clone(actual)
	for _, p := range d.Grant {
		if p == AllPrivileges {
			after = append(after, Catalog(info)...)
		} else {
			after = append(after, p)
		}
	}
	after = minus(sortedUnique(after), d.Revoke)
	if again := Diff(info, set, after); !again.Empty() {
		t.Fatalf("%s: Diff(%v, %v) = %+v does not converge: then %v, diff again %+v", info.Flavor, set.Names(), actual, d, after, again)
	}
}

// renderedPrivileges reads the verb (GRANT or REVOKE) and the privilege
// list of one rendered statement, including ALTER DEFAULT PRIVILEGES.
func renderedPrivileges(t *testing.T, sql string) (string, []Privilege) {
	t.Helper()
	s := sql
	if rest, ok := strings.CutPrefix(s, "ALTER DEFAULT PRIVILEGES FOR ROLE "); ok {
		_, after, found := strings.Cut(rest, " IN SCHEMA public ")
		if !found {
			t.Fatalf("unexpected statement %q", sql)
		}
		s = after
	}
	verb, rest, _ := strings.Cut(s, " ")
	if verb != "GRANT" && verb != "REVOKE" {
		t.Fatalf("statement %q is neither a GRANT nor a REVOKE", sql)
	}
	list, _, found := strings.Cut(rest, " ON ")
	if !found {
		t.Fatalf("statement %q has no ON", sql)
	}
	var out []Privilege
	for _, p := range strings.Split(list, ", ") {
		out = append(out, Privilege(p))
	}
	return verb, out
}

func checkRendered(t *testing.T, info ServerInfo, d PrivilegeDiff, p Plan) {
	t.Helper()
	if d.Empty() != p.Empty() {
		t.Fatalf("%s: diff %+v rendered %d statements", info.Flavor, d, len(p.Statements))
	}
	extraGrants := []Privilege(nil)
	if info.Flavor == FlavorPostgres {
		// A PostgreSQL grant also lets the grantee in: CONNECT on the
		// database, USAGE on schema public.
		extraGrants = []Privilege{"CONNECT", "USAGE"}
	}
	revoking := false
	granted, revoked := map[Privilege]bool{}, map[Privilege]bool{}
	for _, st := range p.Statements {
		sql := st.SQL()
		if strings.Contains(sql, "WITH GRANT OPTION") || strings.ContainsAny(sql, ";\x00") {
			t.Fatalf("%s: rendered %q", info.Flavor, sql)
		}
		// MariaDB grants carry their own sql_mode (NO_AUTO_CREATE_USER):
		// the statement is what follows FOR.
		if info.Flavor == FlavorMariaDB && strings.HasPrefix(sql, "SET STATEMENT ") {
			if !strings.HasPrefix(sql, mariaDBNoAutoCreate+"GRANT ") {
				t.Fatalf("%s: unexpected statement prefix in %q", info.Flavor, sql)
			}
			sql = strings.TrimPrefix(sql, mariaDBNoAutoCreate)
		}
		verb, privs := renderedPrivileges(t, sql)
		switch verb {
		case "GRANT":
			if revoking {
				t.Fatalf("%s: %q comes after a revoke: grants must come first", info.Flavor, sql)
			}
			for _, x := range privs {
				if !slices.Contains(d.Grant, x) && !slices.Contains(extraGrants, x) {
					t.Fatalf("%s: %q grants %q, not in the diff's grants %v", info.Flavor, sql, x, d.Grant)
				}
				granted[x] = true
			}
		case "REVOKE":
			revoking = true
			for _, x := range privs {
				if x == AllPrivileges || x == "ALL" || !slices.Contains(d.Revoke, x) {
					t.Fatalf("%s: %q revokes %q, not in the diff's revokes %v", info.Flavor, sql, x, d.Revoke)
				}
				revoked[x] = true
			}
		}
	}
	for _, x := range d.Grant {
		if !granted[x] {
			t.Fatalf("%s: the grant of %q is not rendered: %v", info.Flavor, x, p)
		}
	}
	for _, x := range d.Revoke {
		if !revoked[x] {
			t.Fatalf("%s: the revoke of %q is not rendered: %v", info.Flavor, x, p)
		}
	}
}

func FuzzCharsetCollation(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cs, err1 := NewCharset(in)
		co, err2 := NewCollation(in)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("charset and collation disagree on %q", in)
		}
		if err1 != nil {
			return
		}
		db := must(NewDatabaseName(EngineMySQL, "acme"))
		got := NewDialect(mysql80).CreateDatabase(db, cs, co).Statements[0].SQL()
		rest := strings.TrimPrefix(got, "CREATE DATABASE `acme` CHARACTER SET ")
		v, rest := unquote(t, rest, '`')
		if v != in || !strings.HasPrefix(rest, " COLLATE ") {
			t.Fatalf("rendered %q", got)
		}
		v, rest = unquote(t, strings.TrimPrefix(rest, " COLLATE "), '`')
		if v != in || rest != "" {
			t.Fatalf("rendered %q", got)
		}
	})
}

// FuzzParseMySQLGrantLine: only a global grant line adds global rights. A
// line adds rights (or the grant option) only when it reads
// "GRANT <list> ON *.* TO ...", where <list> is everything before the first
// ON keyword (any case); what it adds is exactly the privileges of <list>
// (ALL expanded), never a word from after ON; the grant option only when
// the line ends WITH GRANT OPTION. Conversely a line in the form SHOW GRANTS
// prints (single spaces, upper-case words) adds its whole list.
func FuzzParseMySQLGrantLine(f *testing.F) {
	f.Add("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` IDENTIFIED BY PASSWORD '*ABC' WITH GRANT OPTION")
	f.Add("GRANT SELECT ON `db`.* TO `x`@`%`")
	f.Add("GRANT SELECT, INSERT ON `db`.* TO `x`@`%` WITH GRANT OPTION")
	f.Add("GRANT CREATE, DROP, CREATE USER ON *.* TO `tenantdb_admin`@`%` IDENTIFIED BY PASSWORD '*ABCDEF'")
	f.Add("GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION")
	f.Add("GRANT USAGE ON *.* TO `x`@`%` ON *.* TO `y`")
	f.Add("GRANT SELECT ON `a ON *.* TO `.* TO `x`@`%`")
	f.Add("GRANT SELECT ON TABLE `db`.`t` TO `x`@`%`")
	f.Add("REVOKE SELECT ON *.* FROM `x`@`%`")
	f.Add(" GRANT SELECT ON *.* TO `x`@`%`")
	// Found by this fuzz target: an empty list added the empty name "".
	f.Add("GRANT   ON *.* TO ")
	f.Add("GRANT , ON *.* TO ")
	f.Fuzz(func(t *testing.T, line string) {
		for _, info := range []ServerInfo{mariadb, mysql80} {
			var h MySQLHeldRights
			h.ParseMySQLGrantLine(info, line)
			list, global := readGlobalGrantLine(line)
			if !global {
				if len(h.Global) > 0 || h.GrantOption {
					t.Fatalf("%q is not a global grant line (GRANT <non-empty list> ON *.* TO ...), yet added %q (grant option %v)", line, h.Global, h.GrantOption)
				}
				continue
			}
			var allowed []Privilege
			for _, p := range list {
				if p == AllPrivileges || p == "ALL" {
					allowed = append(allowed, mysqlGlobalRights...)
					allowed = append(allowed, Catalog(info)...)
					continue
				}
				allowed = append(allowed, p)
			}
			for _, p := range h.Global {
				if !slices.Contains(allowed, p) {
					t.Fatalf("%q added %q, which is not in its privilege list %q", line, p, list)
				}
			}
			if h.GrantOption && !strings.HasSuffix(strings.TrimSpace(line), "WITH GRANT OPTION") {
				t.Fatalf("%q set the grant option without WITH GRANT OPTION", line)
			}
			if printedForm.MatchString(line) {
				for _, p := range allowed {
					if !slices.Contains(h.Global, p) {
						t.Fatalf("%q (a global grant line as SHOW GRANTS prints it) did not add %q: %q", line, p, h.Global)
					}
				}
				if h.GrantOption != strings.HasSuffix(line, " WITH GRANT OPTION") {
					t.Fatalf("%q: grant option %v", line, h.GrantOption)
				}
			}
		}
	})
}

// printedForm is a global grant line as SHOW GRANTS prints it.
var printedForm = regexp.MustCompile(`^GRANT [A-Z_]+( [A-Z_]+)*(, [A-Z_]+( [A-Z_]+)*)* ON \*\.\* TO `)

// readGlobalGrantLine reads a line as the server does: "GRANT", then a
// privilege list that ends at the first ON keyword, then the target. It
// reports the list (comma-separated, normalized) and whether the target is
// *.* followed by TO.
func readGlobalGrantLine(line string) ([]Privilege, bool) {
	words := strings.Fields(line)
	if len(words) < 4 || words[0] != "GRANT" || !strings.HasPrefix(line, "GRANT") {
		return nil, false
	}
	on := -1
	for i, w := range words[1:] {
		if strings.EqualFold(w, "ON") {
			on = i + 1
			break
		}
	}
	if on < 2 || on+2 >= len(words) || words[on+1] != "*.*" || !strings.EqualFold(words[on+2], "TO") {
		return nil, false
	}
	var list []Privilege
	for _, part := range strings.Split(strings.Join(words[1:on], " "), ",") {
		list = append(list, NormalizePrivilege(part))
	}
	return list, true
}
