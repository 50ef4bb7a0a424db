#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Layering rules that keep SQL in one place (also in .golangci.yml for users
# of golangci-lint; this script needs nothing but go):
#  - internal/ddl and internal/dbclient import no terraform-plugin-* module;
#  - internal/ddl imports no database driver;
#  - internal/pluginserver (how the plugin process serves) imports neither
#    the provider nor the client: cmd/benchfloor links it and must stay a
#    do-nothing provider;
#  - internal/dbclient's rooms point one way, tenant -> proof -> session ->
#    connect -> ddl, nothing back up; only connect and session import a
#    database driver (proof and tenant run SQL through the session layer);
#    nothing outside internal/dbclient imports a room, only its facade
#    (the provider never reaches a session's unchecked Exec);
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
if go list -deps ./internal/pluginserver | grep -Eq 'terraform-provider-tenantdb/internal/(provider|dbclient(/[a-z]+)?|ddl)$'; then
  echo "layering: internal/pluginserver must not import the provider, dbclient or ddl"; fail=1
fi
mod=github.com/tenantdb/terraform-provider-tenantdb/internal
deny_imports() { # package, then the packages it must not import (non-test code)
  local pkg=$1; shift
  local imports; imports=$(go list -f '{{join .Imports "\n"}}' "./internal/$pkg")
  for bad in "$@"; do
    if grep -qx -- "$bad" <<<"$imports"; then echo "layering: internal/$pkg must not import $bad"; fail=1; fi
  done
}
deny_imports dbclient/connect $mod/dbclient $mod/dbclient/tenant $mod/dbclient/proof $mod/dbclient/session
deny_imports dbclient/session $mod/dbclient $mod/dbclient/tenant $mod/dbclient/proof
deny_imports dbclient/proof $mod/dbclient $mod/dbclient/tenant
deny_imports dbclient/tenant $mod/dbclient
for room in proof tenant; do
  if go list -f '{{join .Imports "\n"}}' "./internal/dbclient/$room" | grep -Eq 'go-sql-driver|jackc/pgx'; then
    echo "layering: internal/dbclient/$room must not import a database driver: it runs SQL through the session layer"; fail=1
  fi
done
for pkg in $(go list ./... | grep -v "/internal/dbclient"); do
  if go list -f '{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}' "$pkg" | grep -q "^$mod/dbclient/"; then
    echo "layering: $pkg imports a room of internal/dbclient: use the facade internal/dbclient"; fail=1
  fi
done
mains=$(go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./internal/...)
if [ -n "$mains" ]; then
  echo "layering: main packages belong under cmd/, not internal/:"; echo "$mains"; fail=1
fi
exit $fail
