#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc: the whole acceptance suite on every server kind, in three
# `go test` runs side by side:
#
#   main    MariaDB 10.11 and PostgreSQL 15 (local binaries): go test ./...
#   mysql   MySQL 9.7 (the Debian sid root scripts/server-root.sh builds)
#   newest  MariaDB 11.8 (the Debian trixie root) and PostgreSQL 18 (the npm
#           build scripts/pg-bin.sh installs): the packages that start servers
#
# The newest run names the kinds mariadb11 and postgres18
# (TENANTDB_TEST_ENGINES), which run the MariaDB and PostgreSQL tests, their
# subtests keeping the family's name (TestX/mariadb): this script counts them
# under the run's kind. Most of a test's wall time is spent waiting on
# terraform and the servers, so the runs share the machine's cores well;
# one after the other they would take the sum (TESTING.md says how long
# each takes).
#
# All run with -v into logs; what is printed is each package's result, the
# subtests run per server kind and, when something failed, every failing
# test's output. Every server a test starts records its kind and version
# (TENANTDB_TEST_VERSIONS_FILE); after a run of every kind,
# scripts/check-compat.sh checks README's compatibility table against them.
#
# TENANTDB_TEST_ENGINES, when set, chooses the kinds: only the runs holding
# a named kind run, with those kinds (e.g. TENANTDB_TEST_ENGINES=mariadb,postgres
# for a machine where the others cannot run: the roots need root for chroot,
# PostgreSQL 18 needs npm), and README is not checked.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CHECKPOINT_DISABLE=1 TF_ACC=1

command -v terraform >/dev/null || { echo "terraform is not on PATH: acceptance tests need it (terraform >= 1.11)" >&2; exit 1; }

# The runs: name, kinds, packages.
server_pkgs="./internal/testserver/ ./internal/dbclient/ ./internal/provider/ ./internal/demo/"
runs=(main mysql newest)
declare -A KINDS=([main]=mariadb,postgres [mysql]=mysql [newest]=mariadb11,postgres18)
declare -A PKGS=([main]=./... [mysql]=$server_pkgs [newest]=$server_pkgs)
declare -A LABEL=([main]="MariaDB 10.11 + PostgreSQL 15" [mysql]="MySQL 9.7" [newest]="MariaDB 11.8 + PostgreSQL 18")
# How each run's subtests are counted: family=kind.
declare -A COUNT=([main]="mariadb=mariadb postgres=postgres" [mysql]="mysql=mysql" [newest]="mariadb=mariadb11 postgres=postgres18")

full=1
if [ -n "${TENANTDB_TEST_ENGINES:-}" ]; then
	full=
	named=$(tr 'A-Z' 'a-z' <<<"$TENANTDB_TEST_ENGINES" | tr -d ' ' | tr ',' '\n')
	[ "$named" != all ] || named=$'mariadb\npostgres\nmysql'
	chosen=()
	for run in "${runs[@]}"; do
		kinds=$(tr ',' '\n' <<<"${KINDS[$run]}" | grep -xF "$named" | paste -sd, -) || true
		if [ -n "$kinds" ]; then
			KINDS[$run]=$kinds
			chosen+=("$run")
		fi
	done
	unknown=$(grep -vxE 'mariadb|mariadb11|mysql|postgres|postgres18' <<<"$named" || true)
	[ -z "$unknown" ] || { echo "testacc: TENANTDB_TEST_ENGINES names unknown kinds: $unknown" >&2; exit 1; }
	runs=("${chosen[@]}")
fi
# wants KIND: a chosen run runs that kind.
wants() {
	local run
	for run in "${runs[@]}"; do
		[[ ",${KINDS[$run]}," != *",$1,"* ]] || return 0
	done
	return 1
}

# The Debian roots (built once, reused after) and PostgreSQL 18's build.
if wants mysql; then ./scripts/server-root.sh mysql; fi
if wants mariadb11; then ./scripts/server-root.sh mariadb11; fi
if wants postgres18; then
	TENANTDB_TEST_POSTGRES18_BINDIR=$(./scripts/pg-bin.sh 18)
	export TENANTDB_TEST_POSTGRES18_BINDIR
fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-testacc.XXXXXX")
trap 'rm -rf "$logs"' EXIT
export TENANTDB_TEST_VERSIONS_FILE=$logs/versions

# Build the test binaries once before the runs start, so they do not
# compile the same packages at the same time.
$GO test -count=1 -run '^$' ./... >/dev/null

# TENANTDB_TESTACC_PROFILE=DIR: the runs write go test -json into DIR, a
# sampler records each test binary's process-tree CPU once a second, and
# DIR/report.tsv gets every top-level test's wall time and CPU
# (scripts/testacc-profile.py; TESTING.md, "Where the time goes").
profile=${TENANTDB_TESTACC_PROFILE:-}
format=-v
if [ -n "$profile" ]; then
	mkdir -p "$profile"
	format=-json
	python3 ./scripts/testacc-sample.py >"$profile/samples" &
	sampler=$!
fi

start=$(date +%s)
declare -A PID STATUS
for run in "${runs[@]}"; do
	out=$logs/$run.log
	[ -z "$profile" ] || out=$profile/$run.json
	# shellcheck disable=SC2086 # PKGS holds a list of packages
	TENANTDB_TEST_ENGINES=${KINDS[$run]} $GO test $format ${PKGS[$run]} -count=1 -timeout "${TENANTDB_TESTACC_TIMEOUT:-45m}" >"$out" 2>&1 &
	PID[$run]=$!
done
echo "testacc: running side by side: $(for run in "${runs[@]}"; do printf '%s (%s); ' "${LABEL[$run]}" "${KINDS[$run]}"; done)"
for run in "${runs[@]}"; do
	STATUS[$run]=0
	wait "${PID[$run]}" || STATUS[$run]=$?
	echo "testacc: ${LABEL[$run]} done after $(($(date +%s) - start)) s (exit ${STATUS[$run]})"
done
if [ -n "$profile" ]; then
	kill "$sampler" 2>/dev/null || true
	reports=()
	for run in "${runs[@]}"; do
		python3 ./scripts/testacc-profile.py text "$profile/$run.json" >"$logs/$run.log"
		reports+=("$run=$profile/$run.json:${KINDS[$run]}")
	done
	python3 ./scripts/testacc-profile.py report "$profile/samples" "${reports[@]}" >"$profile/report.tsv"
	echo "testacc: the 20 most expensive tests (wall s, CPU s; all in $profile/report.tsv):"
	sed -n 2,21p "$profile/report.tsv"
fi

# shellcheck source=scripts/testacc-summary.sh
. ./scripts/testacc-summary.sh

failed=
for run in "${runs[@]}"; do
	echo "== ${LABEL[$run]} =="
	# shellcheck disable=SC2086 # COUNT holds a list of pairs
	summarize "$logs/$run.log" ${COUNT[$run]} | sed "s/^/[$run] /"
	[ "${STATUS[$run]}" = 0 ] || failed+=" ${LABEL[$run]} (exit ${STATUS[$run]})"
done
if [ -n "$failed" ]; then
	echo "testacc: FAILED:$failed" >&2
	exit 1
fi
if [ -n "$full" ]; then
	./scripts/check-compat.sh "$TENANTDB_TEST_VERSIONS_FILE"
fi
