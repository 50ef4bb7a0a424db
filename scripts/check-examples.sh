#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Examples and documented HCL are part of the product: check them offline.
#  1. `terraform fmt -check -recursive examples`: every example is formatted.
#  2. Every fenced ```terraform / ```hcl block in templates/ (the guides and the
#     provider page) is formatted too.
#  3. Every documented resource (docs/resources/<name>.md, generated from the
#     schema; `make docs-check` keeps it current) has
#     examples/resources/tenantdb_<name>/resource.tf, import.sh and
#     import-by-string-id.tf.
# `terraform validate` of every example needs the provider binary and runs in
# TestExamplesValidate (internal/provider/examples_test.go, under make testacc).
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1

command -v terraform >/dev/null || { echo "check-examples: terraform is not on PATH (terraform >= 1.11 is needed to check examples)" >&2; exit 1; }
fail=0

if ! terraform fmt -check -recursive -diff examples; then
  echo "check-examples: files above are not formatted: run terraform fmt -recursive examples" >&2
  fail=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
blocks=0
while IFS= read -r -d '' tmpl; do
  # Split the template's ```terraform/```hcl blocks into numbered files.
  # A fence may be indented (inside a list item); its indentation is
  # removed from the block's lines before formatting.
  awk -v dir="$tmp" -v base="$(echo "$tmpl" | tr '/' '_')" '
    !inblock && /^[ ]*```(terraform|hcl)[[:space:]]*$/ {
      n++; f = sprintf("%s/%s.%03d.tf", dir, base, n); inblock = 1
      match($0, /^[ ]*/); indent = RLENGTH; printf "" > f; next
    }
    inblock && /^[ ]*```[[:space:]]*$/ { inblock = 0; close(f); next }
    inblock { print substr($0, 1, indent) ~ /^[ ]*$/ ? substr($0, indent + 1) : $0 > f }
  ' "$tmpl"
done < <(find templates -name '*.tmpl' -print0)
for f in "$tmp"/*.tf; do
  [ -e "$f" ] || continue
  blocks=$((blocks + 1))
  if ! terraform fmt -check - <"$f" >/dev/null; then
    name=$(basename "$f" .tf)
    echo "check-examples: a code block in ${name%.*} (block ${name##*.}) is not formatted; terraform fmt shows:" >&2
    terraform fmt -diff - <"$f" >&2 || true
    fail=1
  fi
done
# Guard against checking nothing: the provider page and guides hold HCL.
if [ "$blocks" -lt 5 ]; then
  echo "check-examples: found only $blocks HCL blocks in templates/; the block extraction is broken" >&2
  fail=1
fi

resources=0
for doc in docs/resources/*.md; do
  [ -e "$doc" ] || continue
  resources=$((resources + 1))
  dir="examples/resources/tenantdb_$(basename "$doc" .md)"
  for f in resource.tf import.sh import-by-string-id.tf; do
    if [ ! -s "$dir/$f" ]; then
      echo "check-examples: $dir/$f is missing: every resource needs an example, an import command and an import block" >&2
      fail=1
    fi
  done
done
if [ "$resources" -eq 0 ]; then
  echo "check-examples: no docs/resources/*.md found: run make docs" >&2
  fail=1
fi

[ "$fail" -eq 0 ] && echo "check-examples: examples formatted, $blocks documented HCL blocks formatted, $resources resources have examples"
exit "$fail"
