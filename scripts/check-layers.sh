#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Layering rules that keep SQL in one place (also in .golangci.yml for users
# of golangci-lint; this script needs nothing but go):
#  - internal/ddl and internal/dbclient import no terraform-plugin-* module;
#  - internal/ddl imports no database driver.
set -euo pipefail
fail=0
for pkg in ./internal/ddl/... ./internal/dbclient/...; do
  [ -d "${pkg%/...}" ] || continue
  if go list -deps "$pkg" | grep -q 'hashicorp/terraform-plugin'; then
    echo "layering: $pkg must not import terraform-plugin-*"; fail=1
  fi
done
if go list -deps ./internal/ddl/... | grep -Eq 'go-sql-driver|jackc/pgx|database/sql$'; then
  echo "layering: internal/ddl must not import a database driver"; fail=1
fi
exit $fail
