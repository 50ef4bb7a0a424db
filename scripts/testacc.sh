#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc: the whole acceptance suite on every server kind, as a queue
# of small test runs (each package's test binary linked once and run as `go
# test` runs it: scripts/testacc-bins.sh), TENANTDB_TESTACC_JOBS (default 3)
# side by side:
#
#   <kind>-acc-<i>   the provider package's TestAcc tests of shard i of
#                    TENANTDB_TESTACC_SHARDS (default 2), on one kind
#   main-servers     testserver, dbclient and demo on MariaDB 10.11 and
#                    PostgreSQL 15, and the TestAcc tests that need both
#                    families in one process (cross_tests); mysql-servers
#                    on MySQL 9.7; newest-servers on MariaDB 11.8 and
#                    PostgreSQL 18
#   unit             every other package, and the provider package's tests
#                    that start no server (once)
#
# The kinds: mariadb (MariaDB 10.11), postgres (PostgreSQL 15), mysql
# (MySQL 9.7, the Debian sid root scripts/server-root.sh builds), mariadb11
# (MariaDB 11.8, the trixie root) and postgres18 (the npm build
# scripts/pg-bin.sh installs). mariadb11 and postgres18 run the family's
# tests, their subtests keeping the family's name (TestX/mariadb), which
# this script counts under the kind. A shard is the TestAcc tests whose
# name hashes to it (cksum), so the shards stay put from run to run; no
# run comes near its `-timeout` (TENANTDB_TESTACC_TIMEOUT, default 45m),
# whatever the load, and the longest runs go first. Most of a test's wall
# time is spent waiting on terraform and the servers, so the runs share the
# machine's cores well; TESTING.md says how long each takes.
#
# All run with -v into logs; what is printed is each run's end and time,
# then per kind: its runs' time, each package's result, the subtests run
# and, when something failed, every failing test's output, and last a
# line per failing test with the last line it logged (a CI page may show
# only the output's end: scripts/testacc-summary.sh). Every server a
# test starts records its kind and version (TENANTDB_TEST_VERSIONS_FILE);
# after a run of every kind, scripts/check-compat.sh checks README's
# compatibility table against them.
#
# TENANTDB_TEST_ENGINES, when set, chooses the kinds (e.g. mariadb,postgres
# for a machine where the others cannot run: the roots need root for
# chroot, PostgreSQL 18 needs npm), and README is not checked.
# TENANTDB_TESTACC_RUN=REGEXP keeps only the provider tests it matches (a
# developer's quick pass; the other packages still run).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CHECKPOINT_DISABLE=1 TF_ACC=1

command -v terraform >/dev/null || { echo "terraform is not on PATH: acceptance tests need it (terraform >= 1.11)" >&2; exit 1; }

all_kinds=(mariadb postgres mysql mariadb11 postgres18)
declare -A LABEL=([mariadb]="MariaDB 10.11" [postgres]="PostgreSQL 15" [mysql]="MySQL 9.7" [mariadb11]="MariaDB 11.8" [postgres18]="PostgreSQL 18")
declare -A FAMILY=([mariadb]=mariadb [postgres]=postgres [mysql]=mysql [mariadb11]=mariadb [postgres18]=postgres)
# The other packages with servers run per pair of releases, as before the
# provider package was split: their tests are short.
declare -A SERVERS_OF=([mariadb]=main-servers [postgres]=main-servers [mysql]=mysql-servers [mariadb11]=newest-servers [postgres18]=newest-servers)
server_pkgs="./internal/testserver/ ./internal/dbclient/... ./internal/demo/"
provider_pkg=./internal/provider/
# The TestAcc tests that need a server of each family of a pair in one
# process (the other engine's port as a configuration error): they run in
# the pair's servers run, not in a kind's shard.
cross_tests='TestAccDBServer_configErrors'

full=1
kinds=("${all_kinds[@]}")
if [ -n "${TENANTDB_TEST_ENGINES:-}" ]; then
	full=
	named=$(tr 'A-Z' 'a-z' <<<"$TENANTDB_TEST_ENGINES" | tr -d ' ' | tr ',' '\n')
	[ "$named" != all ] || named=$'mariadb\npostgres\nmysql'
	unknown=$(grep -vxE 'mariadb|mariadb11|mysql|postgres|postgres18' <<<"$named" || true)
	[ -z "$unknown" ] || { echo "testacc: TENANTDB_TEST_ENGINES names unknown kinds: $unknown" >&2; exit 1; }
	kinds=()
	for k in "${all_kinds[@]}"; do
		if grep -qxF "$k" <<<"$named"; then kinds+=("$k"); fi
	done
fi
wants() { [[ " ${kinds[*]} " == *" $1 "* ]]; }

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

# The test binaries, linked once before the runs start (so they do not
# compile the same packages at the same time, nor link a package's binary
# again in every run: scripts/testacc-bins.sh).
# shellcheck source=scripts/testacc-bins.sh
. ./scripts/testacc-bins.sh
build_test_bins "$logs/bin" >/dev/null
# The provider binaries the CLI tests run (the plain one and the kill-point
# suite's), built once for every run instead of twice per run
# (internal/provider/cli_test.go, prebuiltProvider).
export TENANTDB_TEST_PROVIDER_BINS=$logs/providers
$GO build -o "$TENANTDB_TEST_PROVIDER_BINS/plain/terraform-provider-tenantdb" .
$GO build -tags killpoints -o "$TENANTDB_TEST_PROVIDER_BINS/killpoints/terraform-provider-tenantdb" .

# The provider package's TestAcc tests, dealt into shards by a hash of
# their names; its other tests start no server (testAccServer fails a test
# not named TestAcc) and run once, in the unit run.
shards=${TENANTDB_TESTACC_SHARDS:-2}
declare -A SHARD_RUN=()
provider_path=$($GO list $provider_pkg)
provider_tests=$(cd "${TEST_DIR[$provider_path]}" && "${TEST_BIN[$provider_path]}" -test.list '.*' | grep -E '^(Test|Example|Fuzz)')
while read -r sum name; do
	i=$((sum % shards + 1))
	SHARD_RUN[$i]+="${SHARD_RUN[$i]:+|}$name"
done < <(grep -E '^TestAcc' <<<"$provider_tests" | grep -vxE "$cross_tests" | grep -E "${TENANTDB_TESTACC_RUN:-.}" |
	while read -r name; do echo "$(printf %s "$name" | cksum | cut -d' ' -f1) $name"; done)
provider_unit_run="^($(grep -vE '^TestAcc' <<<"$provider_tests" | paste -sd'|' -))\$"
unit_pkgs=$($GO list ./... | grep -vE '/internal/(testserver|dbclient(/[a-z]+)?|provider|demo)$' | tr '\n' ' ')
# shellcheck disable=SC2086 # a list of packages
server_pkgs=$($GO list $server_pkgs | tr '\n' ' ')

# The queue, the longest runs first: every kind's shards, then the other
# packages with servers, then those without.
queue=()
for i in $(seq 1 "$shards"); do
	[ -n "${SHARD_RUN[$i]:-}" ] || continue
	for k in "${kinds[@]}"; do queue+=("$k-acc-$i"); done
done
for job in main-servers mysql-servers newest-servers; do
	for k in "${kinds[@]}"; do
		if [ "${SERVERS_OF[$k]}" = "$job" ]; then
			queue+=("$job")
			break
		fi
	done
done
queue+=(unit)

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

# kinds_of JOB: the kinds a servers run runs, of those chosen.
kinds_of() {
	local k out=
	for k in "${kinds[@]}"; do
		if [ "${SERVERS_OF[$k]}" = "$1" ]; then out+=${out:+,}$k; fi
	done
	echo "$out"
}

# start_job JOB: runs one job in the background into its log.
start_job() {
	local job=$1 kind pkgs run=
	case $job in
	unit)
		kind=mariadb,postgres
		pkgs="$unit_pkgs $provider_path"
		;;
	*-acc-*)
		kind=${job%%-acc-*}
		pkgs=$provider_path
		run="^(${SHARD_RUN[${job##*-acc-}]})\$"
		;;
	*-servers)
		kind=$(kinds_of "$job")
		pkgs=$server_pkgs
		;;
	esac
	local out=$logs/$job.log
	[ -z "$profile" ] || out=$profile/$job.json
	if [[ $job == *-servers ]]; then
		# The pair's packages, then the provider tests that need both
		# families of the pair in one process.
		# shellcheck disable=SC2086 # pkgs holds a list of packages
		{
			TENANTDB_TEST_ENGINES=$kind TENANTDB_TESTACC_JOB=$job run_test_bins $format '' $pkgs
			status=$?
			TENANTDB_TEST_ENGINES=$kind TENANTDB_TESTACC_JOB=$job run_test_bins $format "^($cross_tests)\$" "$provider_path" && exit $status
		} >"$out" 2>&1 &
	elif [ "$job" = unit ]; then
		# The unit packages' every test, the provider package's non-TestAcc
		# ones: -run is one pattern for all packages, so two go tests.
		# shellcheck disable=SC2086 # pkgs holds a list of packages
		{
			TENANTDB_TEST_ENGINES=$kind TENANTDB_TESTACC_JOB=$job run_test_bins $format '' $unit_pkgs &&
				TENANTDB_TEST_ENGINES=$kind TENANTDB_TESTACC_JOB=$job run_test_bins $format "$provider_unit_run" "$provider_path"
		} >"$out" 2>&1 &
	else
		# shellcheck disable=SC2086 # pkgs holds a list of packages
		TENANTDB_TEST_ENGINES=$kind TENANTDB_TESTACC_JOB=$job run_test_bins $format "$run" $pkgs >"$out" 2>&1 &
	fi
	PID[$job]=$!
	JOB_OF[$!]=$job
	STARTED[$job]=$(date +%s)
}

jobs=${TENANTDB_TESTACC_JOBS:-3}
start=$(date +%s)
declare -A PID=() JOB_OF=() STATUS=() STARTED=() TOOK=()
wait_one() {
	local pid job status=0
	wait -n -p pid "${PID[@]}" || status=$?
	job=${JOB_OF[$pid]}
	STATUS[$job]=$status
	TOOK[$job]=$(($(date +%s) - STARTED[$job]))
	unset "PID[$job]"
	echo "testacc: $job done after ${TOOK[$job]} s (exit $status; $(($(date +%s) - start)) s since the start)"
}
echo "testacc: ${#queue[@]} runs, $jobs side by side: ${queue[*]}"
for job in "${queue[@]}"; do
	while [ ${#PID[@]} -ge "$jobs" ]; do wait_one; done
	start_job "$job"
done
while [ ${#PID[@]} -gt 0 ]; do wait_one; done
echo "testacc: all runs done after $(($(date +%s) - start)) s"

if [ -n "$profile" ]; then
	kill "$sampler" 2>/dev/null || true
	reports=()
	for job in "${queue[@]}"; do
		python3 ./scripts/testacc-profile.py text "$profile/$job.json" >"$logs/$job.log"
		reports+=("$job=$profile/$job.json:$job")
	done
	python3 ./scripts/testacc-profile.py report "$profile/samples" "${reports[@]}" >"$profile/report.tsv"
	echo "testacc: the 20 most expensive tests (wall s, CPU s; all in $profile/report.tsv):"
	sed -n 2,21p "$profile/report.tsv"
fi

# shellcheck source=scripts/testacc-summary.sh
. ./scripts/testacc-summary.sh

failed=
for job in "${queue[@]}"; do
	[ "${STATUS[$job]}" = 0 ] || failed+=" $job (exit ${STATUS[$job]})"
done
for k in "${kinds[@]}"; do
	secs=0 runs=()
	for job in "${queue[@]}"; do
		[[ $job == "$k-acc-"* || $job == "${SERVERS_OF[$k]}" ]] || continue
		[[ $job == *-servers ]] || secs=$((secs + TOOK[$job]))
		runs+=("$job ${TOOK[$job]} s")
		cat "$logs/$job.log" >>"$logs/kind-$k.log"
	done
	echo "== ${LABEL[$k]} ($k): its TestAcc shards took $secs s; runs: $(IFS=';' && echo "${runs[*]}" | sed 's/;/; /g') =="
	summarize "$logs/kind-$k.log" "${FAMILY[$k]}=$k" | sed "s/^/[$k] /"
done
echo "== the packages without servers and the provider's tests without one (unit): ${TOOK[unit]} s =="
summarize "$logs/unit.log" | sed "s/^/[unit] /"
if [ -n "$failed" ]; then
	# What failed, named in the last lines (all a CI page may show).
	for job in "${queue[@]}"; do
		[ "${STATUS[$job]}" = 0 ] || failure_digest "$logs/$job.log" | sed "s/^/testacc: $job: /"
	done
	echo "testacc: FAILED:$failed" >&2
	exit 1
fi
if [ -n "$full" ] && [ -z "${TENANTDB_TESTACC_RUN:-}" ]; then
	./scripts/check-compat.sh "$TENANTDB_TEST_VERSIONS_FILE"
fi
