// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

// FuzzCharsetCollationFor: whatever the engine-aware constructors accept is
// rendered as exactly one quoted identifier (MySQL) or literal (PostgreSQL)
// that reads back as the input, and the comparison helpers are reflexive,
// symmetric and never panic.
func FuzzCharsetCollationFor(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, s)
	}
	for _, p := range [][2]string{
		{"UTF8", "C.UTF-8"}, {"utf-8", "en_US.utf8"}, {"LATIN1", "de_DE@euro"}, {"latin1", "utf8mb4_unicode_ci"},
		{"utf8", "utf8_general_ci"}, {"UTF8MB4", "uca1400_ai_ci"}, {"SJIS", "POSIX"}, {"UTF8", "C.UTF-8'; --"},
		{"ISO-8859-15", "sr_RS@latin"}, {"unicode", "C.utf8\\"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, info := range []ServerInfo{mysql80, mariadb, pg15} {
			e := info.Flavor.Engine()
			for _, s := range []string{a, b} {
				if !SameCharsetFor(e, s, s) || !SameCollationFor(e, s, s) {
					t.Fatalf("%s: %q is not the same as itself", e, s)
				}
				if c := CanonicalCharset(e, s); CanonicalCharset(e, c) != c {
					t.Fatalf("%s: CanonicalCharset not idempotent on %q", e, s)
				}
				if c := CanonicalCollation(e, s); CanonicalCollation(e, c) != c {
					t.Fatalf("%s: CanonicalCollation not idempotent on %q", e, s)
				}
			}
			if SameCharsetFor(e, a, b) != SameCharsetFor(e, b, a) || SameCollationFor(e, a, b) != SameCollationFor(e, b, a) {
				t.Fatalf("%s: comparison of %q and %q is not symmetric", e, a, b)
			}
			if err := CheckCharsetCollation(e, a, b); err != nil && ReasonOf(err) != InvalidIdentifier {
				t.Fatalf("reason %q", ReasonOf(err))
			}

			cs, err := NewCharsetFor(e, a)
			if err != nil {
				if ReasonOf(err) != InvalidIdentifier {
					t.Fatalf("reason %q", ReasonOf(err))
				}
				cs = Charset{}
			}
			co, err := NewCollationFor(e, b)
			if err != nil {
				if ReasonOf(err) != InvalidIdentifier {
					t.Fatalf("reason %q", ReasonOf(err))
				}
				co = Collation{}
			}
			db := must(NewDatabaseName(e, "acme"))
			got := NewDialect(info).CreateDatabase(db, cs, co).Statements[0].SQL()
			if e == EnginePostgres {
				rest := strings.TrimPrefix(got, `CREATE DATABASE "acme" TEMPLATE template0`)
				if !cs.IsZero() {
					if !strings.HasPrefix(rest, " ENCODING ") {
						t.Fatalf("rendered %q", got)
					}
					var v string
					v, rest = unquote(t, strings.TrimPrefix(rest, " ENCODING "), '\'')
					if v != a {
						t.Fatalf("encoding %q rendered as %q", a, got)
					}
				}
				wantLocale := b
				if co.IsZero() {
					if cs.IsZero() {
						if rest != "" {
							t.Fatalf("rendered %q", got)
						}
						continue
					}
					wantLocale = "C"
				}
				if !strings.HasPrefix(rest, " LOCALE ") {
					t.Fatalf("rendered %q", got)
				}
				v, rest := unquote(t, strings.TrimPrefix(rest, " LOCALE "), '\'')
				if v != wantLocale || rest != "" {
					t.Fatalf("locale %q rendered as %q", wantLocale, got)
				}
				continue
			}
			rest := strings.TrimPrefix(got, "CREATE DATABASE `acme`")
			if !cs.IsZero() {
				var v string
				v, rest = unquote(t, strings.TrimPrefix(rest, " CHARACTER SET "), '`')
				if v != a {
					t.Fatalf("charset %q rendered as %q", a, got)
				}
			}
			if !co.IsZero() {
				var v string
				v, rest = unquote(t, strings.TrimPrefix(rest, " COLLATE "), '`')
				if v != b {
					t.Fatalf("collation %q rendered as %q", b, got)
				}
			}
			if rest != "" {
				t.Fatalf("rendered %q", got)
			}
		}
	})
}
