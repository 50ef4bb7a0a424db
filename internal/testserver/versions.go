// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"os"
)

// EnvVersionsFile names a file that every server Start starts gets a line
// in: its release (Server.Release) and its version as it reported it
// ("mariadb11 11.8.9-MariaDB-0+deb13u1 from Debian-log"). scripts/testacc.sh
// sets it and checks README's compatibility table against what ran
// (scripts/check-compat.sh). Servers started from a bin dir a test chose
// (WithPostgresBinDir: PostgreSQL 14, to see it refused) are left out: they
// are not what the suite ran on.
const EnvVersionsFile = "TENANTDB_TEST_VERSIONS_FILE"

func recordVersion(s *Server) {
	path := os.Getenv(EnvVersionsFile)
	if path == "" || s.opts.postgresBinDir != "" {
		return
	}
	// One short O_APPEND write per line: test binaries running side by
	// side do not interleave their lines.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintf(f, "%s %s\n", s.Release(), s.version)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testserver: %s: %v\n", EnvVersionsFile, err)
	}
}
