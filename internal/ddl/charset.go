// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"regexp"
	"strings"
)

// Character sets, collations, PostgreSQL encodings and locales: validated per
// engine, and compared the way the server compares them, so that a value the
// user wrote and the value the server reports back are recognised as the same
// setting when they are (DESIGN.md: "Settings as the server sees them").
//
// MySQL 8 / MariaDB 10.6+ (checked on MariaDB 10.11.14; MySQL from its
// reference manual and release notes):
//   - character set and collation names are case-insensitive, and the server
//     reports them in lower case (UTF8MB4_UNICODE_CI -> utf8mb4_unicode_ci);
//   - utf8 is an alias of utf8mb3 and utf8_xxx of utf8mb3_xxx. MySQL 8.0.29+
//     reports the character set as utf8mb3 and 8.0.30+ the collations as
//     utf8mb3_xxx (earlier 8.0 releases report utf8/utf8_xxx); MariaDB 10.6+
//     reports utf8mb3 while old_mode contains UTF8_IS_UTF8MB3, its default.
//     A MariaDB session without that old_mode flag, or a MySQL session with
//     the INTERPRET_UTF8_AS_UTF8MB4 sql_mode (MySQL 9.x innovation releases),
//     reads utf8 as utf8mb4 instead; tenantdb pins sql_mode
//     (MySQLSessionSQLMode) without that mode and assumes the default
//     old_mode;
//   - every collation is named <charset>_..., except MariaDB's (10.10+)
//     charset-independent UCA 14.0.0 collations (uca1400_ai_ci, ...), which
//     the server stores as <charset>_uca1400_ai_ci and which apply only to
//     the Unicode character sets.
//
// PostgreSQL 15+:
//   - encoding names are looked up as pg_char_to_encoding does
//     (src/common/encnames.c): case and every non-alphanumeric character are
//     ignored (UTF8 = utf8 = UTF-8 = utf_8) and the alias table applies
//     (UNICODE = UTF8, ISO-8859-1 = LATIN1, WIN1252 = WINDOWS-1252, ...); the
//     server reports the official name (pg_encoding_to_char: "UTF8");
//   - a locale is stored in pg_database.datcollate as setlocale() returns it,
//     which with glibc is the name as written except that POSIX becomes C
//     (checked on PostgreSQL 15.18 / Debian 12: LOCALE 'C.utf8' is stored as
//     "C.utf8", 'C.UTF-8' as "C.UTF-8", 'POSIX' as "C"). Locale names are
//     case-sensitive ('c.utf8' is refused) except for the codeset after the
//     dot, which glibc normalises (C.UTF-8, C.utf8 and C.UTF8 load the same
//     locale).

// MySQL/MariaDB collation and character set names keep the strict pattern
// (charsetPattern); PostgreSQL names get their own.
var (
	// pgEncodingPattern: what pg_char_to_encoding could resolve, written
	// without characters that need thought: ASCII letters, digits, _ and -,
	// at most 63 bytes (longer names are "certainly not in the table").
	pgEncodingPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)
	// pgLocalePattern: language[_territory][.codeset][@modifier] as glibc
	// names locales, plus C and POSIX. Rendered as one pgLiteral.
	pgLocalePattern = regexp.MustCompile(PostgresLocalePattern)
)

// PostgresLocalePattern is the documented rule for a PostgreSQL locale
// (collation) name; at most 63 bytes (postgresMaxIdentifierBytes). No quote,
// backslash, space or control character can match it.
const PostgresLocalePattern = `^[A-Za-z0-9_]+([.][A-Za-z0-9_-]+)?(@[A-Za-z0-9_]+)?$`

// NewCharsetFor validates a character set for an engine. MySQL/MariaDB: the
// strict pattern of NewCharset. PostgreSQL: an encoding name as the server
// accepts it (UTF8, utf8, UTF-8, unicode, LATIN1, ISO-8859-1, WIN1252, ...),
// which must name a server encoding: unknown names and client-only encodings
// (SJIS, BIG5, GBK, UHC, GB18030, JOHAB, SHIFT_JIS_2004) are refused, as
// CREATE DATABASE would refuse them. The value keeps the user's spelling.
func NewCharsetFor(e Engine, s string) (Charset, error) {
	if e != EnginePostgres {
		return NewCharset(s)
	}
	if !pgEncodingPattern.MatchString(s) {
		return Charset{}, invalid("character set", s,
			"must be a PostgreSQL encoding name such as UTF8 (ASCII letters, digits, _ and -, at most 63 bytes)")
	}
	enc, ok := pgEncodingNames[pgCleanEncodingName(s)]
	if !ok {
		return Charset{}, invalid("character set", s,
			"is not an encoding PostgreSQL knows (for example UTF8, LATIN1, LATIN9, WIN1252, EUC_JP, SQL_ASCII)")
	}
	if !pgServerEncodings[enc] {
		return Charset{}, invalid("character set", s,
			fmt.Sprintf("names %s, a client-only encoding: PostgreSQL cannot store a database in it", enc))
	}
	return Charset{s}, nil
}

// NewCollationFor validates a collation for an engine. MySQL/MariaDB: the
// strict pattern of NewCollation. PostgreSQL: a locale name (C, POSIX,
// C.UTF-8, en_US.UTF-8, en_US.utf8, de_DE@euro, sr_RS@latin, ...) matching
// PostgresLocalePattern, at most 63 bytes. Whether the server has that locale
// installed is for the server to say.
func NewCollationFor(e Engine, s string) (Collation, error) {
	if e != EnginePostgres {
		return NewCollation(s)
	}
	if !pgLocalePattern.MatchString(s) || len(s) > postgresMaxIdentifierBytes {
		return Collation{}, invalid("collation", s,
			"must be a PostgreSQL locale name such as C, POSIX, C.UTF-8 or en_US.UTF-8 "+
				"(pattern "+PostgresLocalePattern+", at most 63 bytes)")
	}
	return Collation{s}, nil
}

// SameCharset reports whether two character set (PostgreSQL: encoding)
// names mean the same on a connected server. Every supported flavor and
// version agrees with SameCharsetFor(info.Flavor.Engine(), a, b); this form
// exists for callers that know the server, so a future difference has one
// place to go.
func SameCharset(info ServerInfo, a, b string) bool {
	return SameCharsetFor(info.Flavor.Engine(), a, b)
}

// SameCollation reports whether two collation (PostgreSQL: locale) names
// mean the same on a connected server; see SameCharset.
func SameCollation(info ServerInfo, a, b string) bool {
	return SameCollationFor(info.Flavor.Engine(), a, b)
}

// SameCharsetFor compares at plan time, when only the engine is known.
// MySQL/MariaDB: case-insensitive, utf8 = utf8mb3. PostgreSQL: the encodings
// the names resolve to (UTF8 = utf8 = UTF-8 = UNICODE).
func SameCharsetFor(e Engine, a, b string) bool {
	return CanonicalCharset(e, a) == CanonicalCharset(e, b)
}

// SameCollationFor compares at plan time, when only the engine is known.
// MySQL/MariaDB: case-insensitive, utf8_xxx = utf8mb3_xxx, and MariaDB's
// charset-independent uca1400_xxx equals <charset>_uca1400_xxx as the server
// reports it (compare the character sets separately). PostgreSQL: exact,
// except that POSIX = C and the codeset after the dot is compared as glibc
// normalises it (C.UTF-8 = C.utf8); the language, territory and modifier are
// case-sensitive, as they are to the server.
func SameCollationFor(e Engine, a, b string) bool {
	ca, cb := CanonicalCollation(e, a), CanonicalCollation(e, b)
	if ca == cb {
		return true
	}
	if e == EnginePostgres {
		return false
	}
	return sameBareCollation(ca, cb) || sameBareCollation(cb, ca)
}

// sameBareCollation: bare is a MariaDB charset-independent collation
// (uca1400_ai_ci) and full is the name the server stores for it
// (utf8mb4_uca1400_ai_ci). Both canonical.
func sameBareCollation(bare, full string) bool {
	if !strings.HasPrefix(bare, "uca") {
		return false
	}
	cs, rest, ok := strings.Cut(full, "_")
	return ok && rest == bare && mysqlCharsets[cs]
}

// CanonicalCharset returns the comparison key of a character set name: for
// MySQL/MariaDB the lower-case name with utf8 read as utf8mb3 (what the
// server reports); for PostgreSQL the official encoding name the server
// reports (UTF8, LATIN1, ...), or the upper-cased cleaned name when the
// name is unknown. It is a key for comparison; render what the user wrote.
func CanonicalCharset(e Engine, s string) string {
	if e == EnginePostgres {
		key := pgCleanEncodingName(s)
		if enc, ok := pgEncodingNames[key]; ok {
			return enc
		}
		return strings.ToUpper(key)
	}
	s = strings.ToLower(s)
	if s == "utf8" {
		return "utf8mb3"
	}
	return s
}

// CanonicalCollation returns the comparison key of a collation name: for
// MySQL/MariaDB the lower-case name with utf8_ read as utf8mb3_; for
// PostgreSQL the locale with POSIX read as C and the codeset normalised as
// glibc does (en_US.UTF-8 -> en_US.utf8). It is a key for comparison;
// render what the user wrote.
func CanonicalCollation(e Engine, s string) string {
	if e == EnginePostgres {
		return canonicalLocale(s)
	}
	s = strings.ToLower(s)
	if rest, ok := strings.CutPrefix(s, "utf8_"); ok {
		return "utf8mb3_" + rest
	}
	return s
}

// CharsetAsWritten is what to keep in state after reading the server:
// written when it names the same character set as reported (the user's
// spelling is kept, so no diff appears), otherwise reported. An empty
// written value (not configured) yields reported.
func CharsetAsWritten(e Engine, written, reported string) string {
	if written != "" && SameCharsetFor(e, written, reported) {
		return written
	}
	return reported
}

// CollationAsWritten is CharsetAsWritten for collations and locales.
func CollationAsWritten(e Engine, written, reported string) string {
	if written != "" && SameCollationFor(e, written, reported) {
		return written
	}
	return reported
}

// CheckCharsetCollation refuses, at plan time and with InvalidIdentifier, a
// character set and collation that the names show cannot go together. An
// empty value means "not given" and is never refused (the server picks the
// character set's default collation).
//
// MySQL/MariaDB: a collation named <known charset>_... belongs to that
// character set (utf8_ and utf8mb3_ both to utf8mb3), so latin1 with
// utf8mb4_unicode_ci is refused; a collation that is exactly a character set
// name (binary) belongs to it; MariaDB's charset-independent uca1400_...
// collations are refused with a known non-Unicode character set. Any other
// collation (an unknown prefix, a new naming style) is left to the server.
//
// PostgreSQL: only a locale whose codeset is spelled as UTF-8 (C.UTF-8,
// en_US.utf8) with a known encoding other than UTF8 and SQL_ASCII is refused
// (the server answers: encoding "LATIN1" does not match locale "C.UTF-8").
// C and POSIX go with every encoding; everything else is the server's call.
//
// Values that NewCharsetFor/NewCollationFor refuse are not judged here (nil):
// call those first; this check only adds what the pair shows.
func CheckCharsetCollation(e Engine, charset, collation string) error {
	if charset == "" || collation == "" {
		return nil
	}
	if e == EnginePostgres {
		if !pgEncodingPattern.MatchString(charset) || !pgLocalePattern.MatchString(collation) {
			return nil
		}
		return checkPostgresEncodingLocale(charset, collation)
	}
	if !charsetPattern.MatchString(charset) || !charsetPattern.MatchString(collation) {
		return nil
	}
	cs := CanonicalCharset(e, charset)
	co := CanonicalCollation(e, collation)
	prefix, _, _ := strings.Cut(co, "_")
	switch {
	case mysqlCharsets[prefix]:
		owner := CanonicalCharset(e, prefix)
		if owner == cs {
			return nil
		}
		return mismatch(charset, collation,
			fmt.Sprintf("The collation %q belongs to character set %s, not %s: MySQL and MariaDB name every collation after its character set, "+
				"and the server would refuse the pair (COLLATION '%s' is not valid for CHARACTER SET '%s').",
				printable(collation), owner, printable(charset), printable(collation), printable(charset)))
	case strings.HasPrefix(co, "uca1400_") && mysqlCharsets[cs] && !mysqlUnicodeCharsets[cs]:
		return mismatch(charset, collation,
			fmt.Sprintf("The collation %q is one of MariaDB's Unicode (UCA 14.0.0) collations, which apply only to the Unicode character sets "+
				"(utf8mb3, utf8mb4, ucs2, utf16, utf16le, utf32); %s is not one, and the server would refuse the pair.",
				printable(collation), printable(charset)))
	}
	return nil
}

func mismatch(charset, collation, why string) *Error {
	fix := fmt.Sprintf("Omit collation to get the default collation of %s, or choose a collation named %s_...",
		printable(charset), strings.ToLower(printable(charset)))
	if ex, ok := mysqlExampleCollation[CanonicalCharset(EngineMySQL, charset)]; ok {
		fix += fmt.Sprintf(" (for example %s)", ex)
	}
	return refuse(InvalidIdentifier,
		fmt.Sprintf("collation %q for character set %q", printable(collation), printable(charset)),
		why, fix+".")
}

func checkPostgresEncodingLocale(charset, locale string) error {
	enc, ok := pgEncodingNames[pgCleanEncodingName(charset)]
	if !ok || enc == "UTF8" {
		return nil
	}
	if enc == "SQL_ASCII" {
		// PostgreSQL takes SQL_ASCII with a locale other than C/POSIX only
		// from a superuser (check_encoding_locale_matches), and tenantdb's
		// admin is not one.
		if canonicalLocale(locale) == "C" {
			return nil
		}
		return refuse(InvalidIdentifier,
			fmt.Sprintf("collation %q for character set %q", printable(locale), printable(charset)),
			fmt.Sprintf("SQL_ASCII goes only with the locale C or POSIX: with %q PostgreSQL answers that the encoding "+
				"does not match the locale (it accepts the pair only from a superuser, which tenantdb's admin is not).",
				printable(locale)),
			"Use collation = \"C\" (or POSIX) with SQL_ASCII, or the locale's own encoding (UTF8 for a UTF-8 locale).")
	}
	_, codeset, ok := strings.Cut(locale, ".")
	if !ok {
		return nil
	}
	codeset, _, _ = strings.Cut(codeset, "@")
	if glibcNormalizeCodeset(codeset) != "utf8" {
		return nil
	}
	return refuse(InvalidIdentifier,
		fmt.Sprintf("collation %q for character set %q", printable(locale), printable(charset)),
		fmt.Sprintf("The locale %q is a UTF-8 locale and the encoding %s is not UTF8: PostgreSQL refuses a database whose encoding does not match its locale.",
			printable(locale), enc),
		"Use character_set = \"UTF8\" with this locale, or a locale for that encoding (C and POSIX go with every encoding).")
}

// canonicalLocale: POSIX is C (glibc stores it so), and the codeset is
// normalised as glibc's _nl_normalize_codeset does.
func canonicalLocale(s string) string {
	if s == "POSIX" {
		return "C"
	}
	name, modifier, hasModifier := strings.Cut(s, "@")
	lang, codeset, hasCodeset := strings.Cut(name, ".")
	if !hasCodeset {
		return s
	}
	out := lang + "." + glibcNormalizeCodeset(codeset)
	if hasModifier {
		out += "@" + modifier
	}
	return out
}

// glibcNormalizeCodeset keeps ASCII letters (lower-cased) and digits and
// drops everything else; an all-digit result gets the prefix "iso"
// (glibc intl/l10nflist.c, _nl_normalize_codeset).
func glibcNormalizeCodeset(s string) string {
	var b strings.Builder
	digitsOnly := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			b.WriteByte(c)
			digitsOnly = false
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
			digitsOnly = false
		case '0' <= c && c <= '9':
			b.WriteByte(c)
		}
	}
	if digitsOnly && b.Len() > 0 {
		return "iso" + b.String()
	}
	return b.String()
}

// pgCleanEncodingName is clean_encoding_name (src/common/encnames.c): ASCII
// letters lower-cased, digits kept, every other byte dropped.
func pgCleanEncodingName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// pgEncodingNames is pg_encname_tbl (src/common/encnames.c, PostgreSQL
// 15-18: the table has not changed): cleaned name -> official name as
// pg_encoding_to_char reports it. The official names themselves resolve
// through it too (EUC_JIS_2004 -> eucjis2004).
var pgEncodingNames = map[string]string{
	"abc": "WIN1258", "alt": "WIN866", "big5": "BIG5",
	"euccn": "EUC_CN", "eucjis2004": "EUC_JIS_2004", "eucjp": "EUC_JP", "euckr": "EUC_KR", "euctw": "EUC_TW",
	"gb18030": "GB18030", "gbk": "GBK",
	"iso88591": "LATIN1", "iso885910": "LATIN6", "iso885913": "LATIN7", "iso885914": "LATIN8",
	"iso885915": "LATIN9", "iso885916": "LATIN10", "iso88592": "LATIN2", "iso88593": "LATIN3",
	"iso88594": "LATIN4", "iso88595": "ISO_8859_5", "iso88596": "ISO_8859_6", "iso88597": "ISO_8859_7",
	"iso88598": "ISO_8859_8", "iso88599": "LATIN5",
	"johab": "JOHAB", "koi8": "KOI8R", "koi8r": "KOI8R", "koi8u": "KOI8U",
	"latin1": "LATIN1", "latin10": "LATIN10", "latin2": "LATIN2", "latin3": "LATIN3", "latin4": "LATIN4",
	"latin5": "LATIN5", "latin6": "LATIN6", "latin7": "LATIN7", "latin8": "LATIN8", "latin9": "LATIN9",
	"mskanji": "SJIS", "muleinternal": "MULE_INTERNAL", "shiftjis": "SJIS", "shiftjis2004": "SHIFT_JIS_2004",
	"sjis": "SJIS", "sqlascii": "SQL_ASCII", "tcvn": "WIN1258", "tcvn5712": "WIN1258", "uhc": "UHC",
	"unicode": "UTF8", "utf8": "UTF8", "vscii": "WIN1258", "win": "WIN1251",
	"win1250": "WIN1250", "win1251": "WIN1251", "win1252": "WIN1252", "win1253": "WIN1253", "win1254": "WIN1254",
	"win1255": "WIN1255", "win1256": "WIN1256", "win1257": "WIN1257", "win1258": "WIN1258",
	"win866": "WIN866", "win874": "WIN874", "win932": "SJIS", "win936": "GBK", "win949": "UHC", "win950": "BIG5",
	"windows1250": "WIN1250", "windows1251": "WIN1251", "windows1252": "WIN1252", "windows1253": "WIN1253",
	"windows1254": "WIN1254", "windows1255": "WIN1255", "windows1256": "WIN1256", "windows1257": "WIN1257",
	"windows1258": "WIN1258", "windows866": "WIN866", "windows874": "WIN874",
	"windows932": "SJIS", "windows936": "GBK", "windows949": "UHC", "windows950": "BIG5",
}

// pgServerEncodings are the encodings a database can have
// (PG_VALID_BE_ENCODING: pg_enc up to PG_KOI8U). SJIS, BIG5, GBK, UHC,
// GB18030, JOHAB and SHIFT_JIS_2004 are client-only.
var pgServerEncodings = map[string]bool{
	"SQL_ASCII": true, "EUC_JP": true, "EUC_CN": true, "EUC_KR": true, "EUC_TW": true, "EUC_JIS_2004": true,
	"UTF8": true, "MULE_INTERNAL": true,
	"LATIN1": true, "LATIN2": true, "LATIN3": true, "LATIN4": true, "LATIN5": true,
	"LATIN6": true, "LATIN7": true, "LATIN8": true, "LATIN9": true, "LATIN10": true,
	"WIN1256": true, "WIN1258": true, "WIN866": true, "WIN874": true, "KOI8R": true, "WIN1251": true, "WIN1252": true,
	"ISO_8859_5": true, "ISO_8859_6": true, "ISO_8859_7": true, "ISO_8859_8": true,
	"WIN1250": true, "WIN1253": true, "WIN1254": true, "WIN1255": true, "WIN1257": true, "KOI8U": true,
}

// mysqlCharsets are the character set names of MySQL 8 and MariaDB 10.6+
// (SHOW CHARACTER SET; gb18030 is MySQL-only, utf8 the alias).
var mysqlCharsets = map[string]bool{
	"armscii8": true, "ascii": true, "big5": true, "binary": true, "cp1250": true, "cp1251": true,
	"cp1256": true, "cp1257": true, "cp850": true, "cp852": true, "cp866": true, "cp932": true,
	"dec8": true, "eucjpms": true, "euckr": true, "gb18030": true, "gb2312": true, "gbk": true,
	"geostd8": true, "greek": true, "hebrew": true, "hp8": true, "keybcs2": true, "koi8r": true,
	"koi8u": true, "latin1": true, "latin2": true, "latin5": true, "latin7": true, "macce": true,
	"macroman": true, "sjis": true, "swe7": true, "tis620": true, "ucs2": true, "ujis": true,
	"utf16": true, "utf16le": true, "utf32": true, "utf8": true, "utf8mb3": true, "utf8mb4": true,
}

// mysqlUnicodeCharsets take MariaDB's uca1400 collations.
var mysqlUnicodeCharsets = map[string]bool{
	"utf8mb3": true, "utf8mb4": true, "ucs2": true, "utf16": true, "utf16le": true, "utf32": true,
}

// mysqlExampleCollation names, per canonical character set, a collation both
// MySQL 8 and MariaDB 10.6+ have: the default collation from SHOW CHARACTER
// SET, except utf8mb4 whose defaults differ (MySQL utf8mb4_0900_ai_ci,
// MariaDB utf8mb4_general_ci / uca1400).
var mysqlExampleCollation = map[string]string{
	"armscii8": "armscii8_general_ci", "ascii": "ascii_general_ci", "big5": "big5_chinese_ci", "binary": "binary",
	"cp1250": "cp1250_general_ci", "cp1251": "cp1251_general_ci", "cp1256": "cp1256_general_ci",
	"cp1257": "cp1257_general_ci", "cp850": "cp850_general_ci", "cp852": "cp852_general_ci",
	"cp866": "cp866_general_ci", "cp932": "cp932_japanese_ci", "dec8": "dec8_swedish_ci",
	"eucjpms": "eucjpms_japanese_ci", "euckr": "euckr_korean_ci", "gb18030": "gb18030_chinese_ci",
	"gb2312": "gb2312_chinese_ci", "gbk": "gbk_chinese_ci", "geostd8": "geostd8_general_ci",
	"greek": "greek_general_ci", "hebrew": "hebrew_general_ci", "hp8": "hp8_english_ci",
	"keybcs2": "keybcs2_general_ci", "koi8r": "koi8r_general_ci", "koi8u": "koi8u_general_ci",
	"latin1": "latin1_swedish_ci", "latin2": "latin2_general_ci", "latin5": "latin5_turkish_ci",
	"latin7": "latin7_general_ci", "macce": "macce_general_ci", "macroman": "macroman_general_ci",
	"sjis": "sjis_japanese_ci", "swe7": "swe7_swedish_ci", "tis620": "tis620_thai_ci",
	"ucs2": "ucs2_general_ci", "ujis": "ujis_japanese_ci", "utf16": "utf16_general_ci",
	"utf16le": "utf16le_general_ci", "utf32": "utf32_general_ci", "utf8mb3": "utf8mb3_general_ci",
	"utf8mb4": "utf8mb4_unicode_ci",
}
