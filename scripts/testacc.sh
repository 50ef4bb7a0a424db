#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc: the whole acceptance suite on every server kind: MariaDB
# 10.11 and PostgreSQL 15 (local binaries) in one `go test ./...`, and MySQL
# 9.7 (the Debian root scripts/mysql-root.sh builds) in a second `go test`
# of the packages that start servers, run at the same time. Most of a test's
# wall time is spent waiting on terraform and the servers, so the two runs
# share the machine's cores well; run one after the other they would take
# the sum (TESTING.md, "What runs where").
#
# TENANTDB_TEST_ENGINES, when set, chooses the kinds and runs one `go test`
# as before (e.g. TENANTDB_TEST_ENGINES=mariadb,postgres leaves MySQL out,
# for a machine where it cannot run: it needs root for chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CHECKPOINT_DISABLE=1 TF_ACC=1

command -v terraform >/dev/null || { echo "terraform is not on PATH: acceptance tests need it (terraform >= 1.11)" >&2; exit 1; }

if [ -n "${TENANTDB_TEST_ENGINES:-}" ]; then
	exec $GO test ./... -count=1 -timeout 40m
fi

# MySQL 9.7's Debian root: built once, reused after.
./scripts/mysql-root.sh

# The MySQL packages: those whose tests start a server.
mysql_pkgs=(./internal/testserver/ ./internal/dbclient/ ./internal/provider/ ./internal/demo/)
log=$(mktemp "${TMPDIR:-/tmp}/tenantdb-testacc-mysql.XXXXXX")
trap 'rm -f "$log"' EXIT

# Build the test binaries once before the two runs start, so they do not
# compile the same packages twice at the same time.
$GO test -count=1 -run '^$' ./... >/dev/null

start=$(date +%s)
TENANTDB_TEST_ENGINES=mysql $GO test "${mysql_pkgs[@]}" -count=1 -timeout 40m >"$log" 2>&1 &
mysql_pid=$!

status=0
TENANTDB_TEST_ENGINES=mariadb,postgres $GO test ./... -count=1 -timeout 40m || status=$?
echo "testacc: MariaDB and PostgreSQL done after $(($(date +%s) - start)) s (exit $status); waiting for MySQL 9.7"

mysql_status=0
wait "$mysql_pid" || mysql_status=$?
echo "testacc: MySQL 9.7 run (TENANTDB_TEST_ENGINES=mysql), done after $(($(date +%s) - start)) s (exit $mysql_status):"
sed 's/^/[mysql] /' "$log"

if [ "$status" != 0 ] || [ "$mysql_status" != 0 ]; then
	echo "testacc: FAILED (MariaDB/PostgreSQL exit $status, MySQL 9.7 exit $mysql_status)" >&2
	exit 1
fi
