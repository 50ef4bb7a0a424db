#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Builds, once, the Debian root the test harness runs MySQL from
# (internal/testserver/local_mysql.go): Debian unstable (sid) with
# mysql-server-core and mysql-client (MySQL 9.7), whose binaries need a newer
# libc than this machine's. The server runs with chroot into it.
#
#   ${TENANTDB_MYSQL_ROOT:-$HOME/.cache/tenantdb/mysql-root}
#
# An existing root is reused (nothing is downloaded). A new one is built in a
# temp dir beside it and renamed into place only when mysqld runs, so an
# interrupted build leaves no half-made root behind. About 800 MB, about two
# minutes. Needs root (debootstrap, chroot); installs debootstrap with
# apt-get when it is missing. DEBIAN_MIRROR (default
# http://deb.debian.org/debian) chooses the mirror.
set -euo pipefail

root=${TENANTDB_MYSQL_ROOT:-$HOME/.cache/tenantdb/mysql-root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ -x "$root/usr/sbin/mysqld" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "mysql-root.sh: building the MySQL root at $root needs root (debootstrap, chroot)" >&2
	exit 1
fi
if ! command -v debootstrap >/dev/null && [ ! -x /usr/sbin/debootstrap ]; then
	echo "installing debootstrap"
	apt-get install -y debootstrap >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y debootstrap >/dev/null; }
fi

parent=$(dirname "$root")
mkdir -p "$parent"
tmp=$(mktemp -d "$root.build.XXXXXX")
log=$tmp.log
trap 'rm -rf "$tmp"' EXIT
echo "building the MySQL root in $root (Debian sid, mysql-server-core; a few minutes once; log: $log)"
PATH=$PATH:/usr/sbin:/sbin
debootstrap --variant=minbase sid "$tmp" "$mirror" >"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "mysql-root.sh: debootstrap failed (log: $log)" >&2; exit 1; }
# sid's Release files may be past Valid-Until on a mirror snapshot.
chroot "$tmp" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
	'apt-get -o Acquire::Check-Valid-Until=false update && apt-get install -y --no-install-recommends mysql-server-core mysql-client && apt-get clean' \
	>>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "mysql-root.sh: installing MySQL in the root failed (log: $log)" >&2; exit 1; }
version=$(chroot "$tmp" /usr/sbin/mysqld --version) ||
	{ echo "mysql-root.sh: mysqld does not run in the new root" >&2; exit 1; }
# The test servers' temp dirs live in the root's /tmp.
chmod 1777 "$tmp/tmp"
# Atomic: a parallel build that finished first wins, this one is discarded.
if ! mv -T "$tmp" "$root" 2>/dev/null; then
	[ -x "$root/usr/sbin/mysqld" ] || { echo "mysql-root.sh: cannot move the root into $root" >&2; exit 1; }
fi
trap - EXIT
rm -f "$log"
echo "MySQL root ready: $version"
