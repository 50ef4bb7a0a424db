#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Runs the acceptance suite with the newest Terraform release the Go module
# proxy serves (`make testacc-terraform-latest`), next to the terraform on
# PATH that `make testacc` uses.
#
# Terraform is built from source through the Go module proxy into a cache
# outside the repository, once per version:
#   ${TENANTDB_TF_CACHE:-$HOME/.cache/tenantdb/terraform}/terraform-<version>/terraform
# The module zip lacks the nested Go modules of most remote-state backends
# (azurerm, consul, cos, gcs, kubernetes, oci, oss, pg, s3) and of
# internal/legacy, so the build drops those from go.mod and from the backend
# registry (internal/backend/init/init.go of the copy). The binary keeps the
# local, remote, http, inmem and cloud backends: enough for the tests, which
# use local state. A cold build takes about 7 minutes and ~2 GB of memory.
#
# Usage: scripts/terraform-latest.sh [go test arguments]
#   default arguments: ./... -count=1 -timeout 60m
#   scripts/terraform-latest.sh -count=1 -run TestCLI ./internal/provider/
#   scripts/terraform-latest.sh --path    (build or check the cache, print the binary's path)
#   TF_LATEST_VERSION=1.15.0 scripts/terraform-latest.sh   (another version, cached beside it)
set -euo pipefail

TF_LATEST_VERSION="${TF_LATEST_VERSION:-1.16.4}" # newest release on the module proxy
GO="${GO:-go}"
cache="${TENANTDB_TF_CACHE:-$HOME/.cache/tenantdb/terraform}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-terraform.XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# An empty CLI config file that exists: a TF_CLI_CONFIG_FILE naming a
# missing file makes terraform print a warning on stdout, which breaks
# terraform-plugin-testing's version parsing, and a user's ~/.terraformrc
# (dev_overrides, mirrors) stays out of the run.
cliconfig="$work/terraformrc"
: >"$cliconfig"

# tf_version BIN: the first line of `BIN version` ("Terraform v1.16.4").
tf_version() {
  local v
  v="$(TF_CLI_CONFIG_FILE="$cliconfig" CHECKPOINT_DISABLE=1 "$1" version 2>/dev/null)" || return 1
  printf '%s\n' "${v%%$'\n'*}"
}

# tf_ok BIN: BIN runs and reports exactly TF_LATEST_VERSION.
tf_ok() {
  [ -x "$1" ] && [ "$(tf_version "$1")" = "Terraform v$TF_LATEST_VERSION" ]
}

# drop_missing_modules SRC: removes from SRC's go.mod the requires and
# replaces of nested modules (replace ... => ./dir) whose directory the zip
# does not hold, and from the backend registry the backends whose package
# directory is missing.
drop_missing_modules() {
  local src="$1" line mod dir entry alias name init="$1/internal/backend/init/init.go"
  while IFS= read -r line; do
    mod="${line%% *}"
    dir="${line#* }"
    if [ ! -f "$src/$dir/go.mod" ]; then
      (cd "$src" && GOWORK=off GOFLAGS= "$GO" mod edit -droprequire="$mod" -dropreplace="$mod")
    fi
  done < <(sed -n 's|^replace \(github\.com/hashicorp/terraform/[^ ]*\) => \./\([^ ]*\)$|\1 \2|p' "$src/go.mod")

  [ -f "$init" ] || { echo "terraform-latest: $init is missing: the backend registry moved" >&2; exit 1; }
  for entry in $(sed -n 's|^[[:space:]]*\([A-Za-z0-9_]*\) "github\.com/hashicorp/terraform/internal/backend/remote-state/\([a-z0-9]*\)"$|\1:\2|p' "$init"); do
    alias="${entry%%:*}"
    name="${entry#*:}"
    if ! compgen -G "$src/internal/backend/remote-state/$name/*.go" >/dev/null; then
      sed -i -e "\|^[[:space:]]*$alias \"github\.com/hashicorp/terraform/internal/backend/remote-state/$name\"\$|d" \
        -e "/[^A-Za-z0-9_]$alias\.New(/d" "$init"
      echo "terraform-latest: dropped the $name backend (not in the module zip)" >&2
    fi
  done
}

build_terraform() {
  local dest="$1" dir src start
  mkdir -p "$(dirname "$dest")"
  echo "terraform-latest: building Terraform v$TF_LATEST_VERSION into $dest (cold: several minutes)" >&2
  start=$SECONDS
  # Download outside any module (no go.mod, no go.work) so nothing in the
  # repository changes.
  mkdir -p "$work/dl"
  dir="$(cd "$work/dl" && GOWORK=off GOFLAGS= "$GO" mod download -json "github.com/hashicorp/terraform@v$TF_LATEST_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  if [ -z "$dir" ] || [ ! -f "$dir/go.mod" ]; then
    echo "terraform-latest: go mod download github.com/hashicorp/terraform@v$TF_LATEST_VERSION gave no module directory" >&2
    exit 1
  fi
  # The module cache is read-only and the build edits go.mod, init.go and go.sum.
  src="$work/terraform"
  cp -R "$dir" "$src"
  chmod -R u+w "$src"
  drop_missing_modules "$src"
  # version.dev=no: a release build, `terraform version` without "-dev".
  (cd "$src" && GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    "$GO" build -trimpath -ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no" \
    -o "$dest.tmp" .)
  mv -f "$dest.tmp" "$dest"
  echo "terraform-latest: built in $((SECONDS - start))s" >&2
}

terraform="$cache/terraform-$TF_LATEST_VERSION/terraform"
if ! tf_ok "$terraform"; then
  mkdir -p "$cache"
  # One build at a time per cache; a second run waits and reuses it.
  exec 9>"$cache/.lock"
  flock 9
  tf_ok "$terraform" || build_terraform "$terraform"
  flock -u 9
fi
if ! tf_ok "$terraform"; then
  echo "terraform-latest: $terraform does not report Terraform v$TF_LATEST_VERSION:" >&2
  TF_CLI_CONFIG_FILE="$cliconfig" "$terraform" version >&2 || true
  exit 1
fi

if [ "${1:-}" = "--path" ]; then
  echo "$terraform"
  exit 0
fi

echo "terraform-latest: $(tf_version "$terraform") at $terraform" >&2

if [ $# -eq 0 ]; then
  set -- ./... -count=1 -timeout 60m
fi

# TF_ACC_TERRAFORM_PATH is read by terraform-plugin-testing and by the
# CLI tests (internal/provider), which run the same binary directly. Tests
# that run the CLI by name (TestExamplesValidate, internal/demo) find this
# binary as `terraform` on PATH, so no test in this run silently uses the
# terraform installed on the machine.
mkdir -p "$work/bin"
ln -s "$terraform" "$work/bin/terraform"
export PATH="$work/bin:$PATH"
cd "$repo"
export TF_ACC=1
export TF_ACC_TERRAFORM_PATH="$terraform"
export TF_ACC_PROVIDER_HOST=registry.terraform.io
export TF_CLI_CONFIG_FILE="$cliconfig"
export CHECKPOINT_DISABLE=1
# Not `exec`: the EXIT trap removes the temporary CLI config afterwards.
status=0
"$GO" test "$@" || status=$?
exit $status
