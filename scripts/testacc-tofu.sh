#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Runs the acceptance suite with OpenTofu instead of terraform (`make testacc-tofu`).
#
# OpenTofu is built from source through the Go module proxy (its go.mod has
# a replace directive, so `go install ...@version` is refused) into a cache
# outside the repository, once per version:
#   ${TENANTDB_TOFU_CACHE:-$HOME/.cache/tenantdb/tofu}/tofu-<version>/tofu
# A cold build takes several minutes and ~2 GB of memory.
#
# Usage: scripts/testacc-tofu.sh [go test arguments]
#   default arguments: ./... -count=1 -timeout 60m
#   scripts/testacc-tofu.sh -run TestCLI -count=1 ./internal/provider/
#   TOFU=/path/to/tofu scripts/testacc-tofu.sh   (use a tofu you have; no build)
#   scripts/testacc-tofu.sh --build-only          (build or check the cache, print the path)
set -euo pipefail

TOFU_VERSION="${TOFU_VERSION:-1.12.6}" # newest 1.12.x on the module proxy
GO="${GO:-go}"
cache="${TENANTDB_TOFU_CACHE:-$HOME/.cache/tenantdb/tofu}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-tofu.XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# OpenTofu needs a CLI config file that exists: without one it prints a
# warning on stdout, which breaks terraform-plugin-testing's version parsing.
# An empty file also keeps a user's ~/.terraformrc (dev_overrides, mirrors)
# out of the run.
cliconfig="$work/tofurc"
: >"$cliconfig"

# tofu_version BIN: the first line of `BIN version` ("OpenTofu v1.12.6").
tofu_version() {
  local v
  v="$(TF_CLI_CONFIG_FILE="$cliconfig" CHECKPOINT_DISABLE=1 "$1" version 2>/dev/null)" || return 1
  printf '%s\n' "${v%%$'\n'*}"
}

# tofu_ok BIN: BIN runs and reports exactly TOFU_VERSION.
tofu_ok() {
  [ -x "$1" ] && [ "$(tofu_version "$1")" = "OpenTofu v$TOFU_VERSION" ]
}

build_tofu() {
  local dest="$1" dir src start
  mkdir -p "$(dirname "$dest")"
  echo "testacc-tofu: building OpenTofu v$TOFU_VERSION into $dest (cold: several minutes)" >&2
  start=$SECONDS
  # Download outside any module (no go.mod, no go.work) so nothing in the
  # repository changes.
  mkdir -p "$work/dl"
  dir="$(cd "$work/dl" && GOWORK=off GOFLAGS= "$GO" mod download -json "github.com/opentofu/opentofu@v$TOFU_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
    echo "testacc-tofu: go mod download github.com/opentofu/opentofu@v$TOFU_VERSION gave no module directory" >&2
    exit 1
  fi
  # The module cache is read-only and the build may need to update go.sum.
  src="$work/opentofu"
  cp -R "$dir" "$src"
  chmod -R u+w "$src"
  (cd "$src" && GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    "$GO" build -trimpath -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" \
    -o "$dest.tmp" ./cmd/tofu)
  mv -f "$dest.tmp" "$dest"
  echo "testacc-tofu: built in $((SECONDS - start))s" >&2
}

if [ -n "${TOFU:-}" ]; then
  tofu="$TOFU"
else
  tofu="$cache/tofu-$TOFU_VERSION/tofu"
  if ! tofu_ok "$tofu"; then
    mkdir -p "$cache"
    # One build at a time per cache; a second run waits and reuses it.
    exec 9>"$cache/.lock"
    flock 9
    tofu_ok "$tofu" || build_tofu "$tofu"
    flock -u 9
  fi
  if ! tofu_ok "$tofu"; then
    echo "testacc-tofu: $tofu does not report OpenTofu v$TOFU_VERSION:" >&2
    TF_CLI_CONFIG_FILE="$cliconfig" "$tofu" version >&2 || true
    exit 1
  fi
fi

if [ "${1:-}" = "--build-only" ]; then
  echo "$tofu"
  exit 0
fi

version="$(tofu_version "$tofu")" || { echo "testacc-tofu: $tofu version failed" >&2; exit 1; }
echo "testacc-tofu: $version at $tofu" >&2

if [ $# -eq 0 ]; then
  set -- ./... -count=1 -timeout 60m
fi

# TF_ACC_TERRAFORM_PATH / TF_ACC_PROVIDER_HOST are read by
# terraform-plugin-testing and by cliWorkspace (internal/provider), which
# runs the same binary directly. Tests that run the CLI by name
# (TestExamplesValidate, internal/demo) find tofu as `terraform` on PATH,
# so no test in this run silently uses terraform.
mkdir -p "$work/bin"
ln -s "$tofu" "$work/bin/terraform"
export PATH="$work/bin:$PATH"
cd "$repo"
export TF_ACC=1
export TF_ACC_TERRAFORM_PATH="$tofu"
export TF_ACC_PROVIDER_HOST=registry.opentofu.org
export TF_CLI_CONFIG_FILE="$cliconfig"
export CHECKPOINT_DISABLE=1
# Not `exec`: the EXIT trap removes the temporary CLI config afterwards.
status=0
"$GO" test "$@" || status=$?
exit $status
