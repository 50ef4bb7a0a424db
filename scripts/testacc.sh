#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc: the whole acceptance suite on every server kind: MariaDB
# 10.11 and PostgreSQL 15 (local binaries) in one `go test ./...`, and MySQL
# 9.7 (the Debian root scripts/mysql-root.sh builds) in a second `go test`
# of the packages that start servers, run at the same time. Most of a test's
# wall time is spent waiting on terraform and the servers, so the two runs
# share the machine's cores well; run one after the other they would take
# the sum (TESTING.md says how long each takes).
#
# Both run with -v into logs; what is printed is each package's result, the
# tests run per server kind (subtests are named by kind: TestX/mariadb) and,
# when something failed, every failing test's output.
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
logs=$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-testacc.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# Build the test binaries once before the two runs start, so they do not
# compile the same packages twice at the same time.
$GO test -count=1 -run '^$' ./... >/dev/null

start=$(date +%s)
TENANTDB_TEST_ENGINES=mysql $GO test -v "${mysql_pkgs[@]}" -count=1 -timeout 40m >"$logs/mysql.log" 2>&1 &
mysql_pid=$!
echo "testacc: MySQL 9.7 (TENANTDB_TEST_ENGINES=mysql) and MariaDB + PostgreSQL running side by side"

status=0
TENANTDB_TEST_ENGINES=mariadb,postgres $GO test -v ./... -count=1 -timeout 40m >"$logs/main.log" 2>&1 || status=$?
echo "testacc: MariaDB and PostgreSQL done after $(($(date +%s) - start)) s (exit $status)"
mysql_status=0
wait "$mysql_pid" || mysql_status=$?
echo "testacc: MySQL 9.7 done after $(($(date +%s) - start)) s (exit $mysql_status)"

# summarize LOG: package results, tests per kind, failures in full.
summarize() {
	local log=$1
	grep -E '^(ok\s|FAIL|panic:|--- FAIL:)' "$log" || true
	for kind in mariadb postgres mysql; do
		local pass fail skip
		pass=$(grep -cE "^\s*--- PASS: Test[^/ ]+/$kind " "$log" || true)
		fail=$(grep -cE "^\s*--- FAIL: Test[^/ ]+/$kind " "$log" || true)
		skip=$(grep -cE "^\s*--- SKIP: Test[^/ ]+/$kind " "$log" || true)
		if [ $((pass + fail + skip)) -gt 0 ]; then
			echo "testacc: tests run on $kind: $pass passed, $fail failed, $skip skipped"
		fi
	done
	if grep -qE '^(FAIL|panic:)' "$log"; then
		echo "testacc: the failing tests' output:"
		# Every line of a failing test: go test -v prints a test's output
		# before its "--- FAIL" line, from its "=== RUN".
		awk '/^=== (RUN|CONT|PAUSE|NAME)/ { buf = "" } { buf = buf $0 "\n" } /--- FAIL/ { printf "%s", buf; buf = "" } /^(FAIL|panic:)/ { print }' "$log"
	fi
}

echo "== MariaDB and PostgreSQL =="
summarize "$logs/main.log"
echo "== MySQL 9.7 =="
summarize "$logs/mysql.log" | sed 's/^/[mysql] /'

if [ "$status" != 0 ] || [ "$mysql_status" != 0 ]; then
	echo "testacc: FAILED (MariaDB/PostgreSQL exit $status, MySQL 9.7 exit $mysql_status)" >&2
	exit 1
fi
