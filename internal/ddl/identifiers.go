// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"regexp"
	"strings"
)

// The patterns are the product contract (DESIGN.md). Validation is the
// contract; quoting in the renderers is the belt on top of the braces.
var (
	serverNamePattern   = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	databaseNamePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
	usernamePattern     = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}$`)
	charsetPattern      = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
)

// postgresMaxIdentifierBytes is NAMEDATALEN-1: PostgreSQL silently truncates
// longer identifiers, so two long names could collide on the server.
const postgresMaxIdentifierBytes = 63

// systemSchemas may never be a tenant database: a tenant must never hold
// privileges on grant tables or templates.
var systemSchemas = []string{
	"mysql", "sys", "information_schema", "performance_schema",
	"postgres", "template0", "template1",
}

// ServerName names a tenantdb_db_server; it keys admin passwords.
type ServerName struct{ s string }

// DatabaseName is a validated tenant database name.
type DatabaseName struct{ s string }

// Username is a validated login/role name; on MySQL/MariaDB with the host
// part of its account (account_host.go: "" is '%').
type Username struct{ s, host string }

// Charset is a validated character set (PostgreSQL: encoding) name.
type Charset struct{ s string }

// Collation is a validated collation (PostgreSQL: locale) name.
type Collation struct{ s string }

func (n ServerName) String() string   { return n.s }
func (n DatabaseName) String() string { return n.s }
func (n Username) String() string     { return n.s }
func (n Charset) String() string      { return n.s }
func (n Collation) String() string    { return n.s }

// IsZero reports whether the value was never constructed.
func (n DatabaseName) IsZero() bool { return n.s == "" }
func (n Username) IsZero() bool     { return n.s == "" }
func (n Charset) IsZero() bool      { return n.s == "" }
func (n Collation) IsZero() bool    { return n.s == "" }

func invalid(kind, value, rule string) *Error {
	return refuse(InvalidIdentifier, fmt.Sprintf("%s %q", kind, printable(value)),
		fmt.Sprintf("The %s %s.", kind, rule),
		fmt.Sprintf("Choose a %s that matches the documented pattern.", kind))
}

// printable keeps diagnostics readable and single-line for hostile input.
func printable(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// NewServerName validates a server name (^[a-z][a-z0-9_-]{0,62}$).
func NewServerName(s string) (ServerName, error) {
	if !serverNamePattern.MatchString(s) {
		return ServerName{}, invalid("server name", s, "must match ^[a-z][a-z0-9_-]{0,62}$")
	}
	return ServerName{s}, nil
}

// NewDatabaseName validates a tenant database name for an engine.
func NewDatabaseName(engine Engine, s string) (DatabaseName, error) {
	if !databaseNamePattern.MatchString(s) {
		return DatabaseName{}, invalid("database name", s, "must match ^[A-Za-z0-9_]{1,64}$")
	}
	if engine == EnginePostgres && len(s) > postgresMaxIdentifierBytes {
		return DatabaseName{}, invalid("database name", s,
			fmt.Sprintf("is %d bytes; PostgreSQL identifiers are at most 63 bytes and longer ones are silently truncated", len(s)))
	}
	if matchesLedgerAsPattern(s) && !isScratchName(s) {
		return DatabaseName{}, invalid("database name", s, "read as a MySQL grant pattern (\"_\" matches any "+
			"character), matches "+LedgerDatabase+", tenantdb's ledger; no tenant database may take a name whose "+
			"privilege rows could reach it")
	}
	if isScratchName(s) {
		return DatabaseName{}, invalid("database name", s, "starts with "+NonceDatabasePrefix+" (in any case), the "+
			"namespace of the scratch databases tenantdb's PostgreSQL claims make and drop and of its MySQL ledger ("+LedgerDatabase+"); it can never be a tenant "+
			"database, on any engine")
	}
	for _, sys := range systemSchemas {
		if strings.EqualFold(s, sys) {
			return DatabaseName{}, invalid("database name", s, "is a system database and can never be a tenant database")
		}
	}
	return DatabaseName{s}, nil
}

// NewUsername validates a login name for an engine. It does not check
// reserved accounts: that depends on the server (see ReservedNames).
func NewUsername(engine Engine, s string) (Username, error) {
	if !usernamePattern.MatchString(s) {
		return Username{}, invalid("username", s, "must match ^[A-Za-z0-9_][A-Za-z0-9_.$-]{0,31}$")
	}
	return Username{s: s}, nil
}

// NewCharset validates a character set or PostgreSQL encoding name.
func NewCharset(s string) (Charset, error) {
	if !charsetPattern.MatchString(s) {
		return Charset{}, invalid("character set", s, "must match ^[A-Za-z0-9_]{1,64}$")
	}
	return Charset{s}, nil
}

// NewCollation validates a collation or PostgreSQL locale name.
func NewCollation(s string) (Collation, error) {
	if !charsetPattern.MatchString(s) {
		return Collation{}, invalid("collation", s, "must match ^[A-Za-z0-9_]{1,64}$")
	}
	return Collation{s}, nil
}

// DefaultCharset and DefaultCollation are what a tenant database gets when
// the configuration omits them. PostgreSQL's locale "C" sorts by code point,
// exists on every server and is compatible with any encoding.
func DefaultCharset(e Engine) Charset {
	if e == EnginePostgres {
		return Charset{"UTF8"}
	}
	return Charset{"utf8mb4"}
}

func DefaultCollation(e Engine) Collation {
	if e == EnginePostgres {
		return Collation{"C"}
	}
	return Collation{"utf8mb4_unicode_ci"}
}
