#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# make testacc-docker: the acceptance suite (TF_ACC=1 go test ./...) with
# every test server in a container (internal/testserver's docker backend,
# testcontainers-go). Arguments replace the go test arguments.
#
# Images: TENANTDB_TEST_MYSQL_IMAGE and TENANTDB_TEST_POSTGRES_IMAGE when
# set (the GitHub workflow sets them: official images); otherwise the
# official mariadb:10.11 and postgres:15 when the daemon has them or Docker
# Hub answers; otherwise (no registry reachable, as on the project's
# machines) local stand-ins built once by scripts/docker-images.sh.
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

registry_reachable() {
  command -v curl >/dev/null && curl -s -o /dev/null -m 5 https://registry-1.docker.io/v2/
}
local_images=
if [ -z "${TENANTDB_TEST_MYSQL_IMAGE:-}" ] || [ -z "${TENANTDB_TEST_POSTGRES_IMAGE:-}" ]; then
  if { docker image inspect mariadb:10.11 >/dev/null 2>&1 && docker image inspect postgres:15 >/dev/null 2>&1; } || registry_reachable; then
    : "${TENANTDB_TEST_MYSQL_IMAGE:=mariadb:10.11}" "${TENANTDB_TEST_POSTGRES_IMAGE:=postgres:15}"
  else
    local_images=1
    echo "testacc-docker: no image registry answers: using local stand-ins for mariadb:10.11 and postgres:15 (scripts/docker-images.sh)"
    ./scripts/docker-images.sh
    : "${TENANTDB_TEST_MYSQL_IMAGE:=${TENANTDB_LOCAL_MARIADB_IMAGE:-tenantdb-local/mariadb:10.11}}"
    : "${TENANTDB_TEST_POSTGRES_IMAGE:=${TENANTDB_LOCAL_POSTGRES_IMAGE:-tenantdb-local/postgres:15}}"
  fi
fi
if [ -z "${TENANTDB_TEST_DOCKER_NETWORK:-}" ]; then
  if docker network inspect bridge >/dev/null 2>&1; then TENANTDB_TEST_DOCKER_NETWORK=published; else TENANTDB_TEST_DOCKER_NETWORK=host; fi
fi
if [ -n "$local_images" ] || ! registry_reachable; then
  export TESTCONTAINERS_RYUK_DISABLED=true
fi
run=$(date +%s)-$$
export TENANTDB_TEST_BACKEND=docker TENANTDB_TEST_MYSQL_IMAGE TENANTDB_TEST_POSTGRES_IMAGE TENANTDB_TEST_DOCKER_NETWORK
export TENANTDB_TEST_DOCKER_RUN=$run
cleanup() {
  local left
  left=$(docker ps -aq --filter "label=org.tenantdb.testserver.run=$run" 2>/dev/null || true)
  if [ -n "$left" ]; then
    echo "testacc-docker: removing containers this run left behind: $(echo $left)"
    docker rm -f -v $left >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
echo "testacc-docker: $TENANTDB_TEST_MYSQL_IMAGE + $TENANTDB_TEST_POSTGRES_IMAGE, network $TENANTDB_TEST_DOCKER_NETWORK"
if [ $# -eq 0 ]; then
  # -p 1: one test binary (and so at most a few containers) at a time.
  set -- -count=1 -timeout 90m -p 1 ./...
fi
TF_ACC=1 "$GO" test "$@"
