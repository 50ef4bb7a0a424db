// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewCharsetFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine Engine
		in     string
		ok     bool
	}{
		{EngineMySQL, "utf8mb4", true},
		{EngineMySQL, "UTF8MB4", true},
		{EngineMySQL, "utf8", true},
		{EngineMySQL, "latin1", true},
		{EngineMySQL, strings.Repeat("c", 64), true},
		{EngineMySQL, strings.Repeat("c", 65), false},
		{EngineMySQL, "UTF-8", false}, // PostgreSQL spelling: not a MySQL name
		{EngineMySQL, "", false},
		{EngineMySQL, "utf8 mb4", false},
		{EngineMySQL, "utf8`mb4", false},
		{EngineMySQL, "utf8'", false},

		{EnginePostgres, "UTF8", true},
		{EnginePostgres, "utf8", true},
		{EnginePostgres, "UTF-8", true},
		{EnginePostgres, "utf-8", true},
		{EnginePostgres, "Utf_8", true},
		{EnginePostgres, "unicode", true},
		{EnginePostgres, "LATIN1", true},
		{EnginePostgres, "latin1", true},
		{EnginePostgres, "ISO-8859-1", true},
		{EnginePostgres, "iso_8859_1", true},
		{EnginePostgres, "LATIN9", true},
		{EnginePostgres, "ISO_8859_5", true},
		{EnginePostgres, "WIN1252", true},
		{EnginePostgres, "windows-1252", true},
		{EnginePostgres, "SQL_ASCII", true},
		{EnginePostgres, "sql-ascii", true},
		{EnginePostgres, "EUC_JP", true},
		{EnginePostgres, "EUC_JIS_2004", true},
		{EnginePostgres, "KOI8-R", true},
		{EnginePostgres, "MULE_INTERNAL", true},
		{EnginePostgres, "SJIS", false}, // client-only
		{EnginePostgres, "Shift_JIS", false},
		{EnginePostgres, "BIG5", false},
		{EnginePostgres, "GBK", false},
		{EnginePostgres, "GB18030", false},
		{EnginePostgres, "UHC", false},
		{EnginePostgres, "JOHAB", false},
		{EnginePostgres, "SHIFT_JIS_2004", false},
		{EnginePostgres, "utf8mb4", false}, // a MySQL name PostgreSQL does not know
		{EnginePostgres, "DEFAULT", false},
		{EnginePostgres, "nosuchencoding", false},
		{EnginePostgres, "", false},
		{EnginePostgres, "UTF 8", false},
		{EnginePostgres, "-UTF8", false},
		{EnginePostgres, "_UTF8", false},
		{EnginePostgres, "UTF8'", false},
		{EnginePostgres, "UTF8'; DROP DATABASE x; --", false},
		{EnginePostgres, `UTF8\`, false},
		{EnginePostgres, "UTF8\n", false},
		{EnginePostgres, "UTF8\x00", false},
		{EnginePostgres, "ÜTF8", false},
		{EnginePostgres, "UTF8" + strings.Repeat("-", 59), true},  // 63 bytes, cleans to utf8
		{EnginePostgres, "UTF8" + strings.Repeat("-", 60), false}, // 64 bytes: the server never looks it up
	}
	for _, c := range cases {
		got, err := NewCharsetFor(c.engine, c.in)
		if c.ok != (err == nil) {
			t.Errorf("NewCharsetFor(%s, %q) err = %v, want ok=%v", c.engine, c.in, err, c.ok)
			continue
		}
		if err != nil {
			if ReasonOf(err) != InvalidIdentifier || !strings.HasPrefix(err.(*Error).Summary(), "InvalidIdentifier: character set") {
				t.Errorf("NewCharsetFor(%s, %q) = %v", c.engine, c.in, err)
			}
			continue
		}
		if got.String() != c.in {
			t.Errorf("NewCharsetFor(%s, %q) kept %q, want the user's spelling", c.engine, c.in, got)
		}
	}
	// The old constructor is NewCharsetFor(EngineMySQL, ...).
	for _, c := range cases {
		if c.engine != EngineMySQL {
			continue
		}
		_, err1 := NewCharset(c.in)
		_, err2 := NewCharsetFor(EngineMySQL, c.in)
		if (err1 == nil) != (err2 == nil) {
			t.Errorf("NewCharset and NewCharsetFor(mysql) disagree on %q", c.in)
		}
	}
	if _, err := NewCharsetFor(EnginePostgres, "SJIS"); err == nil || !strings.Contains(err.Error(), "client-only") {
		t.Errorf("client-only encoding not explained: %v", err)
	}
}

func TestNewCollationFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine Engine
		in     string
		ok     bool
	}{
		{EngineMySQL, "utf8mb4_unicode_ci", true},
		{EngineMySQL, "UTF8MB4_UNICODE_CI", true},
		{EngineMySQL, "uca1400_ai_ci", true},
		{EngineMySQL, "binary", true},
		{EngineMySQL, "C.UTF-8", false},
		{EngineMySQL, "", false},
		{EngineMySQL, "utf8mb4_unicode_ci`", false},
		{EngineMySQL, strings.Repeat("c", 65), false},

		{EnginePostgres, "C", true},
		{EnginePostgres, "POSIX", true},
		{EnginePostgres, "C.UTF-8", true},
		{EnginePostgres, "C.utf8", true},
		{EnginePostgres, "C.UTF8", true},
		{EnginePostgres, "en_US.UTF-8", true},
		{EnginePostgres, "en_US.utf8", true},
		{EnginePostgres, "en_US", true},
		{EnginePostgres, "de_DE@euro", true},
		{EnginePostgres, "de_DE.ISO-8859-15@euro", true},
		{EnginePostgres, "sr_RS@latin", true},
		{EnginePostgres, "ca_ES.UTF-8@valencia", true},
		{EnginePostgres, "utf8mb4_unicode_ci", true},                // well-formed; the server says it does not exist
		{EnginePostgres, strings.Repeat("l", 57) + ".UTF-8", true},  // 63 bytes
		{EnginePostgres, strings.Repeat("l", 58) + ".UTF-8", false}, // 64 bytes
		{EnginePostgres, "", false},
		{EnginePostgres, "C'", false},
		{EnginePostgres, "C.UTF-8'; DROP DATABASE x; --", false},
		{EnginePostgres, "en_US.UTF-8' TEMPLATE template1 --", false},
		{EnginePostgres, `C\`, false},
		{EnginePostgres, `C.UTF-8\'`, false},
		{EnginePostgres, `C"`, false},
		{EnginePostgres, "C\n", false},
		{EnginePostgres, "C.UTF-8\nx", false},
		{EnginePostgres, "C\x00", false},
		{EnginePostgres, "en US.UTF-8", false},
		{EnginePostgres, "en-US", false},
		{EnginePostgres, "English_United States.1252", false}, // Windows names are not supported
		{EnginePostgres, ".UTF-8", false},
		{EnginePostgres, "C.", false},
		{EnginePostgres, "C@", false},
		{EnginePostgres, "C.UTF-8.x", false},
		{EnginePostgres, "de_DE@euro.UTF-8", false},
		{EnginePostgres, "de_DE@eu@ro", false},
		{EnginePostgres, "C.UTF-8 ", false},
		{EnginePostgres, "ç.UTF-8", false},
		{EnginePostgres, "$C", false},
		{EnginePostgres, "C;", false},
	}
	db := must(NewDatabaseName(EnginePostgres, "acme"))
	for _, c := range cases {
		got, err := NewCollationFor(c.engine, c.in)
		if c.ok != (err == nil) {
			t.Errorf("NewCollationFor(%s, %q) err = %v, want ok=%v", c.engine, c.in, err, c.ok)
			continue
		}
		if err != nil {
			if ReasonOf(err) != InvalidIdentifier || !strings.HasPrefix(err.(*Error).Summary(), "InvalidIdentifier: collation") {
				t.Errorf("NewCollationFor(%s, %q) = %v", c.engine, c.in, err)
			}
			continue
		}
		if got.String() != c.in {
			t.Errorf("NewCollationFor(%s, %q) kept %q", c.engine, c.in, got)
		}
		if c.engine != EnginePostgres {
			continue
		}
		// Rendered as exactly one literal that reads back as the input.
		stmt := NewDialect(pg15).CreateDatabase(db, Charset{}, got).Statements[0].SQL()
		const prefix = `CREATE DATABASE "acme" TEMPLATE template0 LOCALE `
		if !strings.HasPrefix(stmt, prefix) {
			t.Fatalf("rendered %q", stmt)
		}
		v, rest := unquote(t, stmt[len(prefix):], '\'')
		if v != c.in || rest != "" {
			t.Errorf("%q rendered as %q", c.in, stmt)
		}
	}
	for _, c := range cases {
		if c.engine != EngineMySQL {
			continue
		}
		_, err1 := NewCollation(c.in)
		_, err2 := NewCollationFor(EngineMySQL, c.in)
		if (err1 == nil) != (err2 == nil) {
			t.Errorf("NewCollation and NewCollationFor(mysql) disagree on %q", c.in)
		}
	}
}

func TestSameCharset(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine Engine
		a, b   string
		want   bool
	}{
		{EngineMySQL, "utf8mb4", "utf8mb4", true},
		{EngineMySQL, "UTF8MB4", "utf8mb4", true},
		{EngineMySQL, "utf8", "utf8mb3", true},
		{EngineMySQL, "UTF8", "utf8mb3", true},
		{EngineMySQL, "Utf8", "UTF8", true},
		{EngineMySQL, "utf8", "utf8mb4", false},
		{EngineMySQL, "utf8mb3", "utf8mb4", false},
		{EngineMySQL, "latin1", "latin2", false},
		{EngineMySQL, "utf16", "utf16le", false},
		{EngineMySQL, "UTF-8", "utf8", false}, // MySQL has no such name

		{EnginePostgres, "UTF8", "UTF8", true},
		{EnginePostgres, "UTF8", "utf8", true},
		{EnginePostgres, "UTF8", "UTF-8", true},
		{EnginePostgres, "UTF8", "utf-8", true},
		{EnginePostgres, "UTF8", "Utf_8", true},
		{EnginePostgres, "UTF8", "unicode", true},
		{EnginePostgres, "LATIN1", "ISO-8859-1", true},
		{EnginePostgres, "LATIN1", "iso88591", true},
		{EnginePostgres, "LATIN1", "latin1", true},
		{EnginePostgres, "LATIN9", "ISO-8859-15", true},
		{EnginePostgres, "LATIN5", "ISO-8859-9", true},
		{EnginePostgres, "WIN1252", "windows-1252", true},
		{EnginePostgres, "WIN1258", "TCVN", true},
		{EnginePostgres, "WIN866", "ALT", true},
		{EnginePostgres, "KOI8R", "koi8", true},
		{EnginePostgres, "SQL_ASCII", "sql-ascii", true},
		{EnginePostgres, "ISO_8859_5", "iso-8859-5", true},
		{EnginePostgres, "UTF8", "LATIN1", false},
		{EnginePostgres, "LATIN1", "LATIN10", false},
		{EnginePostgres, "UTF8", "SQL_ASCII", false},
		{EnginePostgres, "UTF8", "utf8mb4", false},
		{EnginePostgres, "nosuch", "NO-SUCH", true}, // unknown: compared as the server would clean them
	}
	for _, c := range cases {
		for _, pair := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got := SameCharsetFor(c.engine, pair[0], pair[1]); got != c.want {
				t.Errorf("SameCharsetFor(%s, %q, %q) = %v, want %v", c.engine, pair[0], pair[1], got, c.want)
			}
		}
		infos := []ServerInfo{mysql80, mysql8013, mariadb, mariadb114}
		if c.engine == EnginePostgres {
			infos = []ServerInfo{pg15}
		}
		for _, info := range infos {
			if got := SameCharset(info, c.a, c.b); got != c.want {
				t.Errorf("SameCharset(%s, %q, %q) = %v, want %v", info, c.a, c.b, got, c.want)
			}
		}
	}
	// The cases: what the server reports back equals what was written.
	if !SameCharset(pg15, "utf8", "UTF8") || !SameCharset(mariadb, "UTF8MB4", "utf8mb4") || !SameCharset(mariadb, "utf8", "utf8mb3") {
		t.Error("the issue's cases are not recognised")
	}
	if CanonicalCharset(EnginePostgres, "utf-8") != "UTF8" || CanonicalCharset(EngineMySQL, "UTF8") != "utf8mb3" {
		t.Error("canonical names differ from what the servers report")
	}
}

func TestSameCollation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine Engine
		a, b   string
		want   bool
	}{
		{EngineMySQL, "utf8mb4_unicode_ci", "utf8mb4_unicode_ci", true},
		{EngineMySQL, "UTF8MB4_UNICODE_CI", "utf8mb4_unicode_ci", true},
		{EngineMySQL, "utf8_general_ci", "utf8mb3_general_ci", true},
		{EngineMySQL, "UTF8_UNICODE_CI", "utf8mb3_unicode_ci", true},
		{EngineMySQL, "utf8_bin", "UTF8MB3_BIN", true},
		{EngineMySQL, "utf8mb4_general_ci", "utf8mb4_unicode_ci", false},
		{EngineMySQL, "utf8mb4_0900_ai_ci", "utf8mb4_0900_as_ci", false},
		{EngineMySQL, "utf8_general_ci", "utf8mb4_general_ci", false},
		{EngineMySQL, "latin1_swedish_ci", "latin1_bin", false},
		// MariaDB stores a charset-independent collation under the
		// database's character set (compared separately).
		{EngineMySQL, "uca1400_ai_ci", "utf8mb4_uca1400_ai_ci", true},
		{EngineMySQL, "UCA1400_AI_CI", "utf8mb3_uca1400_ai_ci", true},
		{EngineMySQL, "uca1400_nopad_ai_ci", "utf8mb4_uca1400_nopad_ai_ci", true},
		{EngineMySQL, "utf8_uca1400_ai_ci", "utf8mb3_uca1400_ai_ci", true},
		{EngineMySQL, "uca1400_ai_ci", "utf8mb4_uca1400_as_ci", false},
		{EngineMySQL, "uca1400_ai_ci", "nosuch_uca1400_ai_ci", false},
		{EngineMySQL, "bin", "utf8mb4_bin", false}, // only the uca family is charset-independent
		{EngineMySQL, "uca1400_ai_ci", "uca1400_ai_ci", true},

		{EnginePostgres, "C", "C", true},
		{EnginePostgres, "POSIX", "C", true},
		{EnginePostgres, "C.UTF-8", "C.UTF-8", true},
		{EnginePostgres, "C.UTF-8", "C.utf8", true},
		{EnginePostgres, "C.UTF8", "C.utf-8", true},
		{EnginePostgres, "en_US.UTF-8", "en_US.utf8", true},
		{EnginePostgres, "de_DE.ISO-8859-15@euro", "de_DE.iso885915@euro", true},
		{EnginePostgres, "de_DE.8859-15@euro", "de_DE.iso885915@euro", true},
		{EnginePostgres, "sr_RS@latin", "sr_RS@latin", true},
		{EnginePostgres, "C", "C.UTF-8", false},
		{EnginePostgres, "c", "C", false},
		{EnginePostgres, "posix", "C", false},
		{EnginePostgres, "en_US.UTF-8", "en_us.UTF-8", false},
		{EnginePostgres, "en_US", "en_US.UTF-8", false},
		{EnginePostgres, "de_DE@euro", "de_DE@EURO", false},
		{EnginePostgres, "de_DE@euro", "de_DE", false},
		{EnginePostgres, "en_US.UTF-8", "en_GB.UTF-8", false},
		{EnginePostgres, "uca1400_ai_ci", "utf8mb4_uca1400_ai_ci", false},
	}
	for _, c := range cases {
		for _, pair := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got := SameCollationFor(c.engine, pair[0], pair[1]); got != c.want {
				t.Errorf("SameCollationFor(%s, %q, %q) = %v, want %v", c.engine, pair[0], pair[1], got, c.want)
			}
		}
		info := mariadb
		if c.engine == EnginePostgres {
			info = pg15
		}
		if got := SameCollation(info, c.a, c.b); got != c.want {
			t.Errorf("SameCollation(%s, %q, %q) = %v, want %v", info, c.a, c.b, got, c.want)
		}
	}
}

func TestAsWritten(t *testing.T) {
	t.Parallel()
	cases := []struct {
		got, want string
	}{
		{CharsetAsWritten(EnginePostgres, "utf8", "UTF8"), "utf8"},
		{CharsetAsWritten(EnginePostgres, "UTF-8", "UTF8"), "UTF-8"},
		{CharsetAsWritten(EnginePostgres, "LATIN1", "UTF8"), "UTF8"},
		{CharsetAsWritten(EnginePostgres, "", "UTF8"), "UTF8"},
		{CharsetAsWritten(EngineMySQL, "UTF8MB4", "utf8mb4"), "UTF8MB4"},
		{CharsetAsWritten(EngineMySQL, "utf8", "utf8mb3"), "utf8"},
		{CharsetAsWritten(EngineMySQL, "utf8", "utf8mb4"), "utf8mb4"},
		{CharsetAsWritten(EngineMySQL, "", "latin1"), "latin1"},
		{CollationAsWritten(EngineMySQL, "UTF8MB4_UNICODE_CI", "utf8mb4_unicode_ci"), "UTF8MB4_UNICODE_CI"},
		{CollationAsWritten(EngineMySQL, "utf8_general_ci", "utf8mb3_general_ci"), "utf8_general_ci"},
		{CollationAsWritten(EngineMySQL, "uca1400_ai_ci", "utf8mb4_uca1400_ai_ci"), "uca1400_ai_ci"},
		{CollationAsWritten(EngineMySQL, "utf8mb4_unicode_ci", "utf8mb4_general_ci"), "utf8mb4_general_ci"},
		{CollationAsWritten(EnginePostgres, "POSIX", "C"), "POSIX"},
		{CollationAsWritten(EnginePostgres, "C.utf8", "C.UTF-8"), "C.utf8"},
		{CollationAsWritten(EnginePostgres, "C", "C.UTF-8"), "C.UTF-8"},
		{CollationAsWritten(EnginePostgres, "", "C.UTF-8"), "C.UTF-8"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestCheckCharsetCollation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine             Engine
		charset, collation string
		ok                 bool
	}{
		{EngineMySQL, "utf8mb4", "utf8mb4_unicode_ci", true},
		{EngineMySQL, "UTF8MB4", "UTF8MB4_UNICODE_CI", true},
		{EngineMySQL, "utf8mb4", "utf8mb4_0900_ai_ci", true},
		{EngineMySQL, "latin1", "latin1_swedish_ci", true},
		{EngineMySQL, "latin1", "LATIN1_GERMAN2_CI", true},
		{EngineMySQL, "utf8", "utf8_general_ci", true},
		{EngineMySQL, "utf8", "utf8mb3_general_ci", true},
		{EngineMySQL, "utf8mb3", "utf8_general_ci", true},
		{EngineMySQL, "utf8mb3", "utf8mb3_bin", true},
		{EngineMySQL, "binary", "binary", true},
		{EngineMySQL, "utf16le", "utf16le_general_ci", true},
		{EngineMySQL, "utf16", "utf16_bin", true},
		{EngineMySQL, "utf8mb4", "uca1400_ai_ci", true},
		{EngineMySQL, "utf8", "uca1400_ai_ci", true},
		{EngineMySQL, "ucs2", "uca1400_as_cs", true},
		{EngineMySQL, "utf8mb4", "utf8mb4_uca1400_ai_ci", true},
		{EngineMySQL, "utf8mb4", "newstyle_ai_ci", true}, // unknown prefix: the server decides
		{EngineMySQL, "newcs", "newcs_general_ci", true},
		{EngineMySQL, "newcs", "uca1400_ai_ci", true}, // unknown charset: the server decides
		{EngineMySQL, "latin1", "", true},             // charset only: the server picks its default
		{EngineMySQL, "", "utf8mb4_bin", true},        // collation only: it implies its charset
		{EngineMySQL, "", "", true},
		// Malformed values are the constructors' to refuse, not judged here.
		{EngineMySQL, "latin1", "utf8mb4_unicode_ci`\n", true},
		{EnginePostgres, "LATIN1", "C.UTF-8'", true},

		{EngineMySQL, "latin1", "utf8mb4_unicode_ci", false}, // the case
		{EngineMySQL, "LATIN1", "UTF8MB4_UNICODE_CI", false},
		{EngineMySQL, "utf8mb4", "latin1_swedish_ci", false},
		{EngineMySQL, "utf8mb4", "utf8_general_ci", false}, // utf8_ is utf8mb3
		{EngineMySQL, "utf8", "utf8mb4_bin", false},
		{EngineMySQL, "utf8mb3", "utf8mb4_bin", false},
		{EngineMySQL, "latin1", "binary", false},
		{EngineMySQL, "utf16", "utf16le_bin", false},
		{EngineMySQL, "utf16le", "utf16_bin", false},
		{EngineMySQL, "latin1", "uca1400_ai_ci", false}, // MariaDB: 1253
		{EngineMySQL, "ascii", "UCA1400_NOPAD_AI_CI", false},
		{EngineMySQL, "newcs", "utf8mb4_bin", false}, // the collation names another charset

		{EnginePostgres, "UTF8", "C.UTF-8", true},
		{EnginePostgres, "utf8", "en_US.utf8", true},
		{EnginePostgres, "UTF-8", "C", true},
		{EnginePostgres, "LATIN1", "C", true},
		{EnginePostgres, "LATIN1", "POSIX", true},
		{EnginePostgres, "LATIN1", "de_DE.ISO-8859-1", true},
		{EnginePostgres, "LATIN1", "en_US", true}, // no codeset in the name: the server decides
		{EnginePostgres, "LATIN9", "de_DE@euro", true},
		{EnginePostgres, "SQL_ASCII", "C", true},
		{EnginePostgres, "sql_ascii", "POSIX", true},
		{EnginePostgres, "SQL_ASCII", "C.UTF-8", false}, // only a superuser may, and the admin is not one
		{EnginePostgres, "SQL_ASCII", "en_US", false},
		{EnginePostgres, "nosuch", "C.UTF-8", true},
		{EnginePostgres, "LATIN1", "", true},
		{EnginePostgres, "", "C.UTF-8", true},
		{EnginePostgres, "LATIN1", "C.UTF-8", false}, // encoding "LATIN1" does not match locale "C.UTF-8"
		{EnginePostgres, "latin1", "en_US.utf8", false},
		{EnginePostgres, "WIN1252", "ca_ES.UTF-8@valencia", false},
		{EnginePostgres, "EUC_JP", "ja_JP.UTF8", false},
	}
	for _, c := range cases {
		err := CheckCharsetCollation(c.engine, c.charset, c.collation)
		if c.ok != (err == nil) {
			t.Errorf("CheckCharsetCollation(%s, %q, %q) = %v, want ok=%v", c.engine, c.charset, c.collation, err, c.ok)
			continue
		}
		if err == nil {
			continue
		}
		e, isErr := err.(*Error)
		if !isErr || e.Reason != InvalidIdentifier || !strings.HasPrefix(e.Summary(), "InvalidIdentifier: collation") {
			t.Errorf("CheckCharsetCollation(%s, %q, %q) = %#v", c.engine, c.charset, c.collation, err)
			continue
		}
		// Names both values, says why and what to do.
		if !strings.Contains(e.Summary(), fmt.Sprintf("%q", c.charset)) || !strings.Contains(e.Summary(), fmt.Sprintf("%q", c.collation)) ||
			e.Why == "" || e.Fix == "" {
			t.Errorf("refusal does not name both values, why and fix: %s / %s", e.Summary(), e.Detail())
		}
	}
	err := CheckCharsetCollation(EngineMySQL, "latin1", "utf8mb4_unicode_ci").(*Error)
	for _, want := range []string{"belongs to character set utf8mb4, not latin1", "Omit collation", "latin1_", "latin1_swedish_ci"} {
		if !strings.Contains(err.Detail(), want) {
			t.Errorf("detail lacks %q: %s", want, err.Detail())
		}
	}
}

// TestCharsetOnlyRendering: a zero Collation means "the server picks the
// character set's default" on MySQL/MariaDB and LOCALE 'C' on PostgreSQL.
func TestCharsetOnlyRendering(t *testing.T) {
	t.Parallel()
	db := must(NewDatabaseName(EngineMySQL, "acme"))
	latin1 := must(NewCharsetFor(EngineMySQL, "latin1"))
	binColl := must(NewCollationFor(EngineMySQL, "latin1_bin"))
	for _, info := range []ServerInfo{mysql80, mariadb} {
		d := NewDialect(info)
		cases := []struct {
			cs   Charset
			co   Collation
			want string
		}{
			{latin1, Collation{}, "CREATE DATABASE `acme` CHARACTER SET `latin1`"},
			{Charset{}, binColl, "CREATE DATABASE `acme` COLLATE `latin1_bin`"},
			{latin1, binColl, "CREATE DATABASE `acme` CHARACTER SET `latin1` COLLATE `latin1_bin`"},
			{Charset{}, Collation{}, "CREATE DATABASE `acme`"},
		}
		for _, c := range cases {
			if got := d.CreateDatabase(db, c.cs, c.co).Statements[0].SQL(); got != c.want {
				t.Errorf("%s: create = %q, want %q", info, got, c.want)
			}
			alter, err := d.AlterDatabase(db, c.cs, c.co)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(c.want, "CREATE", "ALTER", 1)
			if c.cs.IsZero() && c.co.IsZero() {
				if !alter.Empty() {
					t.Errorf("%s: alter with nothing to change = %s", info, alter)
				}
				continue
			}
			if len(alter.Statements) != 1 || alter.Statements[0].SQL() != want {
				t.Errorf("%s: alter = %s, want %q", info, alter, want)
			}
		}
	}
	pdb := must(NewDatabaseName(EnginePostgres, "acme"))
	d := NewDialect(pg15)
	cases := []struct {
		cs   string
		co   string
		want string
	}{
		{"LATIN1", "", `CREATE DATABASE "acme" TEMPLATE template0 ENCODING 'LATIN1' LOCALE 'C'`},
		{"utf-8", "", `CREATE DATABASE "acme" TEMPLATE template0 ENCODING 'utf-8' LOCALE 'C'`},
		{"", "C.UTF-8", `CREATE DATABASE "acme" TEMPLATE template0 LOCALE 'C.UTF-8'`},
		{"UTF8", "en_US.UTF-8", `CREATE DATABASE "acme" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8'`},
		{"", "", `CREATE DATABASE "acme" TEMPLATE template0`},
	}
	for _, c := range cases {
		var cs Charset
		var co Collation
		if c.cs != "" {
			cs = must(NewCharsetFor(EnginePostgres, c.cs))
		}
		if c.co != "" {
			co = must(NewCollationFor(EnginePostgres, c.co))
		}
		if got := d.CreateDatabase(pdb, cs, co).Statements[0].SQL(); got != c.want {
			t.Errorf("pg create = %q, want %q", got, c.want)
		}
	}
}

// TestCharsetGolden renders the character set / collation combinations for
// every flavor into testdata/charsets.sql (update with -update).
func TestCharsetGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for _, f := range []struct {
		name string
		info ServerInfo
	}{{"mysql-8.0.36", mysql80}, {"mariadb-10.11.6", mariadb}, {"postgres-15.18", pg15}} {
		e := f.info.Flavor.Engine()
		d := NewDialect(f.info)
		db := must(NewDatabaseName(e, "acme_1"))
		type pair struct{ cs, co string }
		pairs := []pair{{"latin1", ""}, {"", "utf8mb4_bin"}, {"UTF8MB4", "UTF8MB4_UNICODE_CI"}, {"utf8", "utf8_general_ci"}, {"utf8mb4", "utf8mb4_0900_ai_ci"}, {"", ""}}
		switch f.info.Flavor {
		case FlavorMariaDB:
			pairs[4] = pair{"utf8mb4", "uca1400_ai_ci"}
		case FlavorPostgres:
			pairs = []pair{{"LATIN1", ""}, {"utf-8", ""}, {"", "C.UTF-8"}, {"UTF8", "en_US.utf8"}, {"LATIN9", "de_DE@euro"}, {"UTF8", "POSIX"}, {"", ""}}
		}
		for _, p := range pairs {
			var cs Charset
			var co Collation
			if p.cs != "" {
				cs = must(NewCharsetFor(e, p.cs))
			}
			if p.co != "" {
				co = must(NewCollationFor(e, p.co))
			}
			fmt.Fprintf(&b, "-- == %s: character_set %q, collation %q ==\n", f.name, p.cs, p.co)
			if err := CheckCharsetCollation(e, p.cs, p.co); err != nil {
				t.Fatalf("golden pair refused: %v", err)
			}
			b.WriteString(d.CreateDatabase(db, cs, co).Statements[0].SQL() + ";\n")
			switch alter, err := d.AlterDatabase(db, cs, co); {
			case err != nil:
				fmt.Fprintf(&b, "-- alter refused: %s\n", ReasonOf(err))
			case alter.Empty():
				b.WriteString("-- alter: nothing to run\n")
			default:
				for _, s := range alter.Statements {
					b.WriteString(s.SQL() + ";\n")
				}
			}
			b.WriteString("\n")
		}
	}
	got := b.String()
	path := filepath.Join("testdata", "charsets.sql")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/ddl -run TestCharsetGolden -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("plans differ from %s (-want +got):\n%s", path, d)
	}
}
