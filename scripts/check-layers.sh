#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Layering rules that keep SQL in one place (also in .golangci.yml for users
# of golangci-lint; this script needs nothing but go):
#  - internal/ddl and internal/dbclient import no terraform-plugin-* module;
#  - internal/ddl imports no database driver;
#  - internal/pluginserver (how the plugin process serves) imports neither
#    the provider nor the client: cmd/benchfloor links it and must stay a
#    do-nothing provider;
#  - no main package under internal/ (programs live under cmd/).
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
if go list -deps ./internal/pluginserver | grep -Eq 'terraform-provider-tenantdb/internal/(provider|dbclient|ddl)$'; then
  echo "layering: internal/pluginserver must not import the provider, dbclient or ddl"; fail=1
fi
mains=$(go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./internal/...)
if [ -n "$mains" ]; then
  echo "layering: main packages belong under cmd/, not internal/:"; echo "$mains"; fail=1
fi
exit $fail
