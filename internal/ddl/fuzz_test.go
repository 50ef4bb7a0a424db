// SPDX-License-Identifier: MPL-2.0

package ddl

import (
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
			return
		}
		// MySQL: ALTER USER 'u'@'%' IDENTIFIED BY '<pw>'
		got := NewDialect(mariadb).SetPassword(u, pw, false).Statements[0].SQL()
		rest := strings.TrimPrefix(got, "ALTER USER ")
		name, rest := unquote(t, rest, '\'')
		if name != user || !strings.HasPrefix(rest, "@'%' IDENTIFIED BY ") {
			t.Fatalf("user %q rendered as %q", user, got)
		}
		lit, rest := unquote(t, strings.TrimPrefix(rest, "@'%' IDENTIFIED BY "), '\'')
		if lit != password || rest != "" {
			t.Fatalf("password rendered as %q, read back %q rest %q", got, lit, rest)
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

func FuzzPrivileges(f *testing.F) {
	f.Add("SELECT", "delete")
	f.Add("ALL PRIVILEGES", "")
	f.Add("GRANT OPTION", "SELECT")
	f.Add("select; drop table x", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, info := range []ServerInfo{mysql80, mariadb, pg15} {
			set, err := ParsePrivileges(info.Flavor.Engine(), []string{a, b})
			if err != nil {
				if ReasonOf(err) != PrivilegeNotAllowed {
					t.Fatalf("reason %q", ReasonOf(err))
				}
				continue
			}
			db, u := must(NewDatabaseName(info.Flavor.Engine(), "acme")), must(NewUsername(info.Flavor.Engine(), "maester"))
			p := NewDialect(info).SyncPrivileges(db, u, u, Diff(info, set, Catalog(info)))
			for _, s := range p.Statements {
				if strings.Contains(s.SQL(), "GRANT OPTION") || strings.ContainsAny(s.SQL(), ";\x00") {
					t.Fatalf("rendered %q", s.SQL())
				}
			}
		}
	})
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

func FuzzParseMySQLGrantLine(f *testing.F) {
	f.Add("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` IDENTIFIED BY PASSWORD '*ABC' WITH GRANT OPTION")
	f.Add("GRANT SELECT ON `db`.* TO `x`@`%`")
	f.Fuzz(func(t *testing.T, line string) {
		var h MySQLHeldRights
		h.ParseMySQLGrantLine(mariadb, line)
		for _, p := range h.Global {
			if strings.Contains(string(p), " ON ") {
				t.Fatalf("parsed past ON: %q", p)
			}
		}
	})
}
