#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# Builds the peer providers that `make bench PEERS=1` compares with into
# $TENANTDB_BENCH_CACHE/bin (default ~/.cache/tenantdb/bench/bin), each with
# the VERSION file the report shows. None of their code enters this
# repository: they are built from git checkouts of their public
# repositories, at their release tags, in a temp dir.
#
#   scripts/build-peers.sh MYSQL_REPO PG_REPO
#
#   MYSQL_REPO  a git clone of github.com/petoju/terraform-provider-mysql
#   PG_REPO     a git clone of github.com/cyrilgdn/terraform-provider-postgresql
#   MYSQL_TAG   default v3.0.88 (the newest tag this machine can reach;
#               DESIGN.md names 3.0.x)
#   PG_TAG      default v1.26.0
#   MYSQL_REPLACE, PG_REPLACE
#               "module=dir ..." go.mod replacements, for a dependency the
#               module proxy refuses (on the machine these benchmarks ran on:
#               MYSQL_REPLACE="github.com/krotscheck/go-rds-driver=<a clone at v0.11.1>")
#
# Either REPO may be "-" to skip that peer.
set -euo pipefail

[ $# -eq 2 ] || { sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
GO=${GO:-go}
bin="${TENANTDB_BENCH_CACHE:-$HOME/.cache/tenantdb/bench}/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# build NAME REPO TAG REPLACEMENTS: clone REPO at TAG, apply the go.mod
# replacements, build a stripped binary into $bin/NAME.
build() {
  local name=$1 repo=$2 tag=$3 replace=$4 src="$work/$1"
  [ "$repo" = "-" ] && return 0
  git -c advice.detachedHead=false clone -q --branch "$tag" "$repo" "$src"
  local r
  for r in $replace; do
    (cd "$src" && GOWORK=off "$GO" mod edit -replace "$r")
  done
  mkdir -p "$bin/$name"
  echo "build-peers: terraform-provider-$name $tag" >&2
  (cd "$src" && GOWORK=off GOFLAGS=-mod=mod "$GO" build -trimpath -ldflags="-s -w" \
    -o "$bin/$name/terraform-provider-$name" .)
  echo "$tag" >"$bin/$name/VERSION"
}

build mysql "$1" "${MYSQL_TAG:-v3.0.88}" "${MYSQL_REPLACE:-}"
build postgresql "$2" "${PG_TAG:-v1.26.0}" "${PG_REPLACE:-}"
ls -l "$bin"/*/terraform-provider-* >&2 2>/dev/null || true
