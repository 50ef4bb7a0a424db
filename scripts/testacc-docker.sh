#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc-docker: the acceptance suite with every test server in a
# container (internal/testserver's docker backend, testcontainers-go), on
# the five server kinds of make testacc, one `go test` per kind:
#
#   mariadb     MariaDB 10.11   TENANTDB_TEST_MYSQL_IMAGE       (all packages: ./...)
#   postgres    PostgreSQL 15   TENANTDB_TEST_POSTGRES_IMAGE    \
#   mysql       MySQL 9.7       TENANTDB_TEST_MYSQL97_IMAGE      | the packages that
#   mariadb11   MariaDB 11.8    TENANTDB_TEST_MARIADB11_IMAGE    | start servers
#   postgres18  PostgreSQL 18   TENANTDB_TEST_POSTGRES18_IMAGE  /
#
# A stand-in (mariadb11, postgres18) runs its family's tests, so it never
# shares a process with its family (internal/testserver/kinds.go); one run
# per kind also says how long each kind takes. TENANTDB_TEST_ENGINES, when
# set, chooses the kinds. The runs go TENANTDB_TESTACC_DOCKER_JOBS at a
# time (default 3) with -p 1 each (a container takes seconds to start on
# vfs storage: at most a few at once per run); they are printed as
# scripts/testacc.sh prints its runs, with each run's time.
#
# Arguments replace all this with one go test of those arguments
# (TENANTDB_TEST_ENGINES as the caller set it; unset: mariadb and
# postgres), e.g. make testacc-docker DOCKERTESTARGS='-count=1 -run TestX ./internal/provider/'.
#
# Images: the variable above when set (the GitHub workflow sets them:
# official images); otherwise the official image (mariadb:10.11,
# postgres:15, mysql:9, mariadb:11.8, postgres:18) when the daemon has it
# or Docker Hub answers; otherwise (no registry reachable, as on the
# project's machines) the local stand-in scripts/docker-images.sh builds
# once (tenantdb-local/...; MySQL 9.7 and MariaDB 11.8 from the Debian roots
# of scripts/server-root.sh, PostgreSQL 18 from the npm build).
# Network: TENANTDB_TEST_DOCKER_NETWORK when set; otherwise "host" when the
# daemon has no bridge network (dockerd --bridge=none), else "published".
# Without Docker Hub, testcontainers' reaper (Ryuk) cannot be pulled either:
# it is turned off and the harness removes its containers itself (Stop, and
# a watchdog when the test process dies); containers of this run still
# there at the end are removed here.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export CHECKPOINT_DISABLE=1

command -v terraform >/dev/null || { echo "terraform is not on PATH: acceptance tests need it (terraform >= 1.11)" >&2; exit 1; }
command -v docker >/dev/null || { echo "testacc-docker: the docker CLI is not on PATH" >&2; exit 1; }
docker version >/dev/null 2>&1 || { echo "testacc-docker: no Docker daemon answers (DOCKER_HOST=${DOCKER_HOST:-unset})" >&2; exit 1; }

all_kinds=(mariadb postgres mysql mariadb11 postgres18)
declare -A IMAGE_VAR=([mariadb]=TENANTDB_TEST_MYSQL_IMAGE [postgres]=TENANTDB_TEST_POSTGRES_IMAGE
	[mysql]=TENANTDB_TEST_MYSQL97_IMAGE [mariadb11]=TENANTDB_TEST_MARIADB11_IMAGE [postgres18]=TENANTDB_TEST_POSTGRES18_IMAGE)
declare -A OFFICIAL=([mariadb]=mariadb:10.11 [postgres]=postgres:15 [mysql]=mysql:9 [mariadb11]=mariadb:11.8 [postgres18]=postgres:18)
declare -A LOCAL=([mariadb]=${TENANTDB_LOCAL_MARIADB_IMAGE:-tenantdb-local/mariadb:10.11}
	[postgres]=${TENANTDB_LOCAL_POSTGRES_IMAGE:-tenantdb-local/postgres:15}
	[mysql]=${TENANTDB_LOCAL_MYSQL97_IMAGE:-tenantdb-local/mysql:9.7}
	[mariadb11]=${TENANTDB_LOCAL_MARIADB11_IMAGE:-tenantdb-local/mariadb:11.8}
	[postgres18]=${TENANTDB_LOCAL_POSTGRES18_IMAGE:-tenantdb-local/postgres:18})
declare -A FAMILY=([mariadb]=mariadb [postgres]=postgres [mysql]=mysql [mariadb11]=mariadb [postgres18]=postgres)

# The kinds to run: with arguments, those TENANTDB_TEST_ENGINES selects for
# the one go test (its default, mariadb and postgres, when unset).
if [ $# -gt 0 ]; then
	named=${TENANTDB_TEST_ENGINES:-mariadb,postgres}
else
	named=${TENANTDB_TEST_ENGINES:-$(
		IFS=,
		echo "${all_kinds[*]}"
	)}
fi
named=$(tr 'A-Z' 'a-z' <<<"$named" | tr -d ' ' | tr ',' '\n')
[ "$named" != all ] || named=$'mariadb\npostgres\nmysql'
kinds=()
for k in "${all_kinds[@]}"; do
	if grep -qxF "$k" <<<"$named"; then kinds+=("$k"); fi
done
unknown=$(grep -vxE "$(
	IFS='|'
	echo "${all_kinds[*]}"
)" <<<"$named" || true)
[ -z "$unknown" ] || { echo "testacc-docker: TENANTDB_TEST_ENGINES names unknown kinds: $unknown" >&2; exit 1; }

registry_reachable() {
	command -v curl >/dev/null && curl -s -o /dev/null -m 5 https://registry-1.docker.io/v2/
}
registry=unknown
has_registry() {
	if [ "$registry" = unknown ]; then
		if registry_reachable; then registry=yes; else registry=no; fi
	fi
	[ "$registry" = yes ]
}

# Each kind's image: set, official, or a local stand-in (built once).
build=()
for k in "${kinds[@]}"; do
	var=${IMAGE_VAR[$k]}
	[ -z "${!var:-}" ] || continue
	if docker image inspect "${OFFICIAL[$k]}" >/dev/null 2>&1 || has_registry; then
		printf -v "$var" %s "${OFFICIAL[$k]}"
	else
		printf -v "$var" %s "${LOCAL[$k]}"
		build+=("$k")
	fi
done
if [ ${#build[@]} -gt 0 ]; then
	echo "testacc-docker: no image registry answers: local stand-ins for ${build[*]} (scripts/docker-images.sh)"
	./scripts/docker-images.sh "${build[@]}"
fi
if [ -z "${TENANTDB_TEST_DOCKER_NETWORK:-}" ]; then
	if docker network inspect bridge >/dev/null 2>&1; then TENANTDB_TEST_DOCKER_NETWORK=published; else TENANTDB_TEST_DOCKER_NETWORK=host; fi
fi
if [ ${#build[@]} -gt 0 ] || ! has_registry; then
	export TESTCONTAINERS_RYUK_DISABLED=true
fi
run=$(date +%s)-$$
export TENANTDB_TEST_BACKEND=docker TENANTDB_TEST_DOCKER_NETWORK TENANTDB_TEST_DOCKER_RUN=$run
for k in "${all_kinds[@]}"; do
	var=${IMAGE_VAR[$k]}
	if [ -n "${!var:-}" ]; then export "${var?}"; fi
done
cleanup() {
	local left
	left=$(docker ps -aq --filter "label=org.tenantdb.testserver.run=$run" 2>/dev/null || true)
	if [ -n "$left" ]; then
		echo "testacc-docker: removing containers this run left behind: $(echo $left)"
		docker rm -f -v $left >/dev/null 2>&1 || true
	fi
	[ -z "${logs:-}" ] || rm -rf "$logs"
}
trap cleanup EXIT
echo "testacc-docker: network $TENANTDB_TEST_DOCKER_NETWORK; $(for k in "${kinds[@]}"; do v=${IMAGE_VAR[$k]}; printf '%s %s; ' "$k" "${!v}"; done)"

if [ $# -gt 0 ]; then
	TF_ACC=1 "$GO" test "$@"
	exit
fi

# shellcheck source=scripts/testacc-summary.sh
. ./scripts/testacc-summary.sh
server_pkgs="./internal/testserver/ ./internal/dbclient/... ./internal/provider/ ./internal/demo/"
logs=$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-testacc-docker.XXXXXX")
export TENANTDB_TEST_VERSIONS_FILE=$logs/versions
# Build the test binaries once before the runs start.
$GO test -count=1 -run '^$' ./... >/dev/null

jobs=${TENANTDB_TESTACC_DOCKER_JOBS:-3}
start=$(date +%s)
declare -A PID=() KIND_OF=() STATUS=() STARTED=() TOOK=()
wait_one() {
	local pid done_kind status=0
	wait -n -p pid "${PID[@]}" || status=$?
	done_kind=${KIND_OF[$pid]}
	STATUS[$done_kind]=$status
	TOOK[$done_kind]=$(($(date +%s) - STARTED[$done_kind]))
	unset "PID[$done_kind]"
	echo "testacc-docker: $done_kind done after ${TOOK[$done_kind]} s (exit $status)"
}
first=1
for k in "${kinds[@]}"; do
	while [ ${#PID[@]} -ge "$jobs" ]; do wait_one; done
	pkgs=$server_pkgs
	if [ -n "$first" ]; then pkgs=./...; fi # the packages without servers once
	first=
	STARTED[$k]=$(date +%s)
	# shellcheck disable=SC2086 # pkgs is a list of packages
	TF_ACC=1 TENANTDB_TEST_ENGINES=$k nice -n "${TENANTDB_TESTACC_NICE:-0}" "$GO" test -v -p 1 -count=1 -timeout 90m $pkgs >"$logs/$k.log" 2>&1 &
	PID[$k]=$!
	KIND_OF[$!]=$k
	echo "testacc-docker: $k started (${IMAGE_VAR[$k]}=$(v=${IMAGE_VAR[$k]} && echo "${!v}"))"
done
while [ ${#PID[@]} -gt 0 ]; do wait_one; done
echo "testacc-docker: all runs done after $(($(date +%s) - start)) s"

failed=
for k in "${kinds[@]}"; do
	echo "== $k (${TOOK[$k]} s) =="
	summarize "$logs/$k.log" "${FAMILY[$k]}=$k" | sed "s/^/[$k] /"
	top_pass=$(grep -cE '^--- PASS: ' "$logs/$k.log" || true)
	top_skip=$(grep -cE '^--- SKIP: ' "$logs/$k.log" || true)
	echo "[$k] testacc-docker: top-level tests: $top_pass passed, $top_skip skipped"
	[ "${STATUS[$k]}" = 0 ] || failed+=" $k (exit ${STATUS[$k]})"
	if [ -n "${TENANTDB_TESTACC_DOCKER_LOGS:-}" ]; then
		mkdir -p "$TENANTDB_TESTACC_DOCKER_LOGS" && cp "$logs/$k.log" "$TENANTDB_TESTACC_DOCKER_LOGS/"
	fi
done
echo "testacc-docker: the servers that ran:"
sort -u "$TENANTDB_TEST_VERSIONS_FILE" 2>/dev/null | sed 's/^/  /' || true
if [ -n "$failed" ]; then
	# What failed, named in the last lines (all a CI page may show).
	for k in "${kinds[@]}"; do
		[ "${STATUS[$k]}" = 0 ] || failure_digest "$logs/$k.log" | sed "s/^/testacc-docker: $k: /"
	done
	echo "testacc-docker: FAILED:$failed" >&2
	exit 1
fi
