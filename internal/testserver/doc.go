// SPDX-License-Identifier: MPL-2.0

// Package testserver starts throwaway MariaDB/MySQL and PostgreSQL servers for
// the provider's acceptance and integration tests.
//
// Each server comes with two logins:
//
//   - Admin ("tenantdb_admin"): the minimal-rights tenant admin the provider
//     is meant to run as. It is deliberately NOT a superuser (no SUPER / ALL
//     on MySQL, no SUPERUSER on PostgreSQL), so tests prove that the provider
//     works with the rights its documentation asks for. The rights live in
//     adminGrantStatements.
//   - Super ("tenantdb_super"): a superuser for test setup, inspection and
//     out-of-band changes. Use SuperDB, MustExec and CreateLogin.
//
// Usage, one server per engine per test binary:
//
//	func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }
//
//	func TestSomething(t *testing.T) {
//		srv := testserver.Shared(t, "postgres")
//		// srv.Host, srv.Port, srv.Admin, srv.CAPEM, srv.TLSMode() ...
//	}
//
// Give the provider srv.Host, srv.Port, srv.Admin and, for tls =
// srv.TLSMode() ("verify-full" on the local backend), srv.CAPEM. Check or
// change things behind its back with srv.MustExec, srv.SuperDB or srv.Open.
// Statements go one per string (MySQL multi-statements are off). Shared
// servers live for the whole test binary: give databases and logins
// test-specific names and drop them.
//
// A server that cannot start fails the test (never skips it): a green run
// must mean the tests really ran.
//
// # Backends
//
// The backend is chosen by TENANTDB_TEST_BACKEND:
//
//   - "local": start the server binaries installed on this machine, on a free
//     loopback port, in a fresh temp dir (TMPDIR). MariaDB needs mariadbd and
//     mariadb-install-db (apt-get install -y mariadb-server); PostgreSQL needs
//     initdb and postgres under /usr/lib/postgresql/<major>/bin, the highest
//     major is used (apt-get install -y postgresql), or the dir named by
//     TENANTDB_TEST_POSTGRES_BINDIR. As root, PostgreSQL runs as the
//     "postgres" OS user, so TMPDIR must be reachable by that user.
//     The server gets a CA and a server certificate generated at start-up
//     (ECDSA P-256, SAN IP:127.0.0.1, IP:::1, DNS:localhost); CAPEM is the CA,
//     and TLS is offered but not required, so tests can use tls "verify-full"
//     as well as "disable".
//   - "docker": testcontainers-go. The image is TENANTDB_TEST_MYSQL_IMAGE
//     (default mariadb:11.4; mysql:8.4 and mysql:8.0 work too) or
//     TENANTDB_TEST_POSTGRES_IMAGE (default postgres:15). No certificate of
//     ours is installed: CAPEM is "" and TLSMode reports what the image
//     offers ("require" for MariaDB/MySQL images, which make their own
//     self-signed certificate, "disable" for postgres images).
//   - "dsn": an existing server, reached through a superuser DSN in
//     TENANTDB_TEST_MYSQL_SUPER_DSN (go-sql-driver format, tcp only, e.g.
//     "root:pw@tcp(127.0.0.1:3306)/?tls=skip-verify") or
//     TENANTDB_TEST_POSTGRES_SUPER_DSN (pgx URL or key/value string). Super
//     is that DSN's login. The admin login gets a random suffix
//     ("tenantdb_admin_xxxxxxxx") so that parallel runs against one server
//     do not collide, and is dropped by Stop. TENANTDB_TEST_CA_FILE may name
//     the PEM file of the CA that signed the server's certificate; it fills
//     CAPEM (TLSMode then says "verify-full").
//   - unset or "auto": "dsn" if that engine's DSN variable is set; else
//     "docker" if a Docker daemon answers a ping within about a second; else
//     "local". A client binary alone (no daemon) never selects docker.
//
// # Cleanup
//
// Stop ends the server and removes its temp dir. RunMain stops every server
// still running when the tests end and when SIGINT/SIGTERM arrives. A panic
// in a test goroutine or a "go test -timeout" kills the test process without
// running any Go code, so each local server also has a tiny watchdog shell
// process holding a pipe to the test process: when the pipe closes (the test
// process is gone, however it died) the watchdog kills the server and removes
// the temp dir. Docker containers are reaped by testcontainers' own reaper.
package testserver
