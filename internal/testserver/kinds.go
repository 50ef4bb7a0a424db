// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Server kinds: the servers the tests run on, named as
// TENANTDB_TEST_ENGINES selects them. Three of them speak engine "mysql"
// (the provider's engine name for MariaDB and MySQL alike).
//
// The tests iterate the families (Kinds: mariadb, mysql, postgres) and
// compare their loop variable with those names to choose a family's SQL.
// The newer releases, mariadb11 and postgres18, are stand-ins: a test
// process whose TENANTDB_TEST_ENGINES names one runs its family's tests on
// it, so every MariaDB test (the MariaDB-only ones too) runs on 11.8 and
// every PostgreSQL test on 18 without a line of test code knowing; their
// subtests keep the family's name (TestX/mariadb). One process runs one
// release of a family: naming mariadb and mariadb11 together is an error
// (scripts/testacc.sh runs them in separate go tests and counts each run's
// subtests under its kind).
const (
	KindMariaDB    = "mariadb"    // engine "mysql", MariaDB 10.11 (the machine's mariadbd)
	KindMariaDB11  = "mariadb11"  // engine "mysql", MariaDB 11.8 LTS from a Debian trixie root (chroot)
	KindMySQL      = "mysql"      // engine "mysql", MySQL 9.7 (WithMySQL)
	KindPostgres   = "postgres"   // engine "postgres", PostgreSQL 15 (the machine's, or TENANTDB_TEST_POSTGRES_BINDIR)
	KindPostgres18 = "postgres18" // engine "postgres", PostgreSQL 18 from the npm build (TENANTDB_TEST_POSTGRES18_BINDIR)
)

// Kinds lists the server families tests iterate, in order. A process that
// selects a stand-in (mariadb11, postgres18) serves its family's tests with it.
func Kinds() []string { return []string{KindMariaDB, KindMySQL, KindPostgres} }

// AllKinds lists every kind TENANTDB_TEST_ENGINES can name.
func AllKinds() []string {
	return []string{KindMariaDB, KindMariaDB11, KindMySQL, KindPostgres, KindPostgres18}
}

// standIns maps each newer release to the family whose tests it runs.
var standIns = map[string]string{KindMariaDB11: KindMariaDB, KindPostgres18: KindPostgres}

// familyOf is the family kind a kind runs the tests of (itself for a family).
func familyOf(kind string) string {
	if f, ok := standIns[kind]; ok {
		return f
	}
	return kind
}

// withKind serves the engine with that kind's server (KindServer).
func withKind(kind string) Option {
	return func(o *startOptions) { o.kind = kind }
}

// KindServer returns the engine and the option that start a server of kind
// (nil option for the family's server of this process, see the constants).
// It panics on an unknown kind: kinds are constants in test code.
func KindServer(kind string) (engine string, opt Option) {
	switch kind {
	case KindMariaDB:
		return EngineMySQL, nil
	case KindMariaDB11:
		return EngineMySQL, withKind(KindMariaDB11)
	case KindMySQL:
		return EngineMySQL, WithMySQL()
	case KindPostgres:
		return EnginePostgres, nil
	case KindPostgres18:
		return EnginePostgres, withKind(KindPostgres18)
	}
	panic(fmt.Sprintf("testserver: unknown server kind %q (want one of %s)", kind, strings.Join(AllKinds(), ", ")))
}

// kindOf names the kind of server engine and o start.
func kindOf(engine string, o startOptions) string {
	switch {
	case o.kind != "":
		return o.kind
	case engine == EnginePostgres:
		return KindPostgres
	}
	return KindMariaDB
}

// namedKinds is TENANTDB_TEST_ENGINES as a list ("" = unset).
func namedKinds() []string {
	var out []string
	for _, e := range strings.Split(os.Getenv(EnvEngines), ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// EngineSelected reports whether TENANTDB_TEST_ENGINES (a comma-separated
// list of server kinds, e.g. "postgres" or "mariadb,mysql", or "all")
// selects kind (AllKinds). Unset or empty selects mariadb and postgres:
// MySQL runs when it is named, because its server needs root (chroot) and
// the Debian root scripts/server-root.sh builds, and so do the newer
// releases (mariadb11 needs the same; postgres18 the npm build); "all"
// selects the three families on their default releases. A stand-in selects
// its family too: with "mariadb11", EngineSelected("mariadb") is true, and
// the MariaDB tests run on 11.8. make testacc names every kind, in runs of
// their own (scripts/testacc.sh). Shared skips the tests of kinds it leaves
// out.
func EngineSelected(kind string) bool {
	named := namedKinds()
	if len(named) == 0 {
		return kind == KindMariaDB || kind == KindPostgres
	}
	for _, e := range named {
		if e == kind || (e == "all" && familyOf(kind) == kind) || familyOf(e) == kind {
			return true
		}
	}
	return false
}

// resolveKind fills in which release serves the family's default server in
// this process: the stand-in TENANTDB_TEST_ENGINES names, if any. A server
// asked for by bin dir (WithPostgresBinDir) or by kind is left as it is.
func resolveKind(engine string, o startOptions) (startOptions, error) {
	if o.kind != "" || o.postgresBinDir != "" {
		return o, nil
	}
	family := kindOf(engine, o)
	named := namedKinds()
	for standIn, f := range standIns {
		if f != family || !slices.Contains(named, standIn) {
			continue
		}
		if slices.Contains(named, family) {
			return o, fmt.Errorf("testserver: %s=%q names %s and %s: one test process runs the %s tests on one release "+
				"(their subtests are named %s either way); run a go test for each (scripts/testacc.sh does)",
				EnvEngines, os.Getenv(EnvEngines), family, standIn, family, family)
		}
		o.kind = standIn
	}
	return o, nil
}

// StandIn reports whether this process serves family's tests with a newer
// release (mariadb11, postgres18: TENANTDB_TEST_ENGINES names it). Tests
// whose point does not depend on the server's release (a demo that starts
// the machine's own binaries, the transports in front of a server) run on
// the family's default release only, so a stand-in's run repeats none of
// them (scripts/testacc.sh; TESTING.md, "Where the time goes").
func StandIn(family string) bool {
	named := namedKinds()
	for standIn, f := range standIns {
		if f == family && slices.Contains(named, standIn) {
			return true
		}
	}
	return false
}
