// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"regexp"
	"strconv"
)

// Engine is what a user declares: the wire protocol family.
type Engine string

const (
	EngineMySQL    Engine = "mysql"    // MySQL 8.0+ and MariaDB 10.6+
	EnginePostgres Engine = "postgres" // PostgreSQL 15+
)

// ParseEngine validates a declared engine name.
func ParseEngine(s string) (Engine, error) {
	switch Engine(s) {
	case EngineMySQL, EnginePostgres:
		return Engine(s), nil
	}
	return "", refuse(InvalidIdentifier, fmt.Sprintf("engine %q", s),
		"The engine must be \"mysql\" (MySQL 8.0+, MariaDB 10.6+) or \"postgres\" (PostgreSQL 15+).",
		"Set engine to one of those values.")
}

// Flavor is what the server turns out to be once connected.
type Flavor string

const (
	FlavorMySQL    Flavor = "mysql"
	FlavorMariaDB  Flavor = "mariadb"
	FlavorPostgres Flavor = "postgres"
)

// Engine returns the engine family a flavor belongs to.
func (f Flavor) Engine() Engine {
	if f == FlavorPostgres {
		return EnginePostgres
	}
	return EngineMySQL
}

// Version is a server's numeric version.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// AtLeast reports whether v >= major.minor.patch.
func (v Version) AtLeast(major, minor, patch int) bool {
	if v.Major != major {
		return v.Major > major
	}
	if v.Minor != minor {
		return v.Minor > minor
	}
	return v.Patch >= patch
}

var versionPrefix = regexp.MustCompile(`^(\d+)(?:\.(\d+))?(?:\.(\d+))?`)

// ParseVersion reads the leading numeric version of a server's version string:
// "8.0.36", "10.11.6-MariaDB-0+deb12u1", "15.18 (Debian 15.18-0+deb12u1)".
func ParseVersion(s string) (Version, error) {
	m := versionPrefix.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("unrecognised server version %q", s)
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		v.Minor, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

// ServerInfo is the flavor and version of a connected server; dialects use
// it to choose syntax (MySQL-8-only statements, MariaDB privilege sets).
type ServerInfo struct {
	Flavor  Flavor
	Version Version
	// LowerCaseTableNames is MySQL/MariaDB's @@lower_case_table_names (0 on
	// PostgreSQL): at 1 or 2 the server compares database names without
	// regard to case (at 1 it also stores them lower-cased).
	LowerCaseTableNames int
	// PasswordValidation: MariaDB has an active password-validation plugin
	// (simple_password_check, cracklib_password_check, ...). Such a plugin
	// can judge only a password it sees, so the owner's password is then
	// sent as IDENTIFIED BY '...' rather than as its hash (see identifiedBy).
	PasswordValidation bool
	// PartialRevokes is MySQL's @@partial_revokes (false on MariaDB and
	// PostgreSQL, which lack it). When on, a database name in a
	// database-level GRANT is no pattern: MySQLGrantPattern leaves it as
	// written. Read once per connection pool (one provider process): a DBA
	// who turns it on between two Terraform runs is seen by the next one;
	// turning it on during an apply is not (and changes what the server's
	// existing escaped grants mean anyway, MySQL's own warning).
	PartialRevokes bool
	// SkipNameResolve is MySQL/MariaDB's @@skip_name_resolve: on, the
	// server matches accounts by the client's address only, so an account
	// whose host is a name pattern never logs in (HostNeverMatches). Read
	// with the version, in the same query.
	SkipNameResolve bool
	// Admin is the PostgreSQL admin login (the server spec's username):
	// REASSIGN OWNED names it rather than CURRENT_USER, which is whoever
	// the session runs as. Zero on MySQL/MariaDB.
	Admin RoleName
}

// literalGrantNames: the server reads a database name in GRANT ... ON db.*
// as written, not as a LIKE pattern.
func (s ServerInfo) literalGrantNames() bool {
	return s.Flavor == FlavorMySQL && s.PartialRevokes
}

func (s ServerInfo) String() string { return fmt.Sprintf("%s %s", s.Flavor, s.Version) }

// minimumVersion is the oldest supported release of each flavor.
var minimumVersion = map[Flavor]Version{
	FlavorMySQL:    {8, 0, 0},
	FlavorMariaDB:  {10, 6, 0},
	FlavorPostgres: {15, 0, 0},
}

// flavorName and minimumName are how messages say a flavor and its minimum.
var (
	flavorName  = map[Flavor]string{FlavorMySQL: "MySQL", FlavorMariaDB: "MariaDB", FlavorPostgres: "PostgreSQL"}
	minimumName = map[Flavor]string{FlavorMySQL: "8.0", FlavorMariaDB: "10.6", FlavorPostgres: "15"}
)

// CheckSupported refuses servers older than the supported minimum with
// UnsupportedServer, and a flavor that does not match the declared engine.
func CheckSupported(server string, declared Engine, info ServerInfo) error {
	min, ok := minimumVersion[info.Flavor]
	if !ok {
		return refuse(UnsupportedServer, fmt.Sprintf("server %q", server),
			fmt.Sprintf("The server reports an unknown flavor %q.", info.Flavor),
			"Use MySQL 8.0+, MariaDB 10.6+ or PostgreSQL 15+.")
	}
	if info.Flavor.Engine() != declared {
		return refuse(UnsupportedServer, fmt.Sprintf("server %q", server),
			fmt.Sprintf("The server is %s, but the configuration declares engine %q.", info, declared),
			fmt.Sprintf("Set engine = %q or point host/port at a %s server.", info.Flavor.Engine(), declared))
	}
	if !info.Version.AtLeast(min.Major, min.Minor, min.Patch) {
		return refuse(UnsupportedServer, fmt.Sprintf("server %q", server),
			fmt.Sprintf("The server is %s %s; tenantdb needs %s %s or later.", flavorName[info.Flavor], info.Version,
				flavorName[info.Flavor], minimumName[info.Flavor]),
			"Upgrade the server or manage it without tenantdb.")
	}
	return nil
}
