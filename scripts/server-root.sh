#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# Builds, once, a Debian root the test harness runs a server from with
# chroot (internal/testserver/root.go): servers whose Debian packages need a
# newer libc than this machine's.
#
#   scripts/server-root.sh mysql       MySQL 9.7: Debian unstable (sid),
#                                      mysql-server-core and mysql-client, into
#                                      ${TENANTDB_MYSQL_ROOT:-$HOME/.cache/tenantdb/mysql-root}
#   scripts/server-root.sh mariadb11   MariaDB 11.8 LTS: Debian 13 (trixie),
#                                      mariadb-server (its plugins too, as a
#                                      Debian server has them) and
#                                      mariadb-client-core, into
#                                      ${TENANTDB_MARIADB11_ROOT:-$HOME/.cache/tenantdb/mariadb11-root}
#
# An existing root is reused (nothing is downloaded). A new one is built in a
# temp dir beside it and renamed into place only when the server binary
# runs, so an interrupted build leaves no half-made root behind. About 800 MB
# (MySQL) or 600 MB (MariaDB), two to four minutes. Needs root (debootstrap,
# chroot); installs debootstrap with apt-get when it is missing.
# DEBIAN_MIRROR (default http://deb.debian.org/debian) chooses the mirror.
set -euo pipefail

kind=${1:-}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $kind in
mysql)
	name="MySQL 9.7"
	root=${TENANTDB_MYSQL_ROOT:-$HOME/.cache/tenantdb/mysql-root}
	suite=sid
	packages="mysql-server-core mysql-client"
	server=/usr/sbin/mysqld
	;;
mariadb11)
	name="MariaDB 11.8"
	root=${TENANTDB_MARIADB11_ROOT:-$HOME/.cache/tenantdb/mariadb11-root}
	suite=trixie
	packages="mariadb-server mariadb-client-core"
	server=/usr/sbin/mariadbd
	;;
*)
	echo "usage: $0 mysql|mariadb11" >&2
	exit 2
	;;
esac
me="server-root.sh $kind"

if [ -x "$root$server" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "$me: building the $name root at $root needs root (debootstrap, chroot)" >&2
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
echo "building the $name root in $root (Debian $suite, $packages; a few minutes once; log: $log)"
PATH=$PATH:/usr/sbin:/sbin
debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "$me: debootstrap failed (log: $log)" >&2; exit 1; }
# mariadb-install-db looks up localhost; debootstrap writes no /etc/hosts.
cp /etc/hosts "$tmp/etc/hosts"
# No package may start a service in the root (mariadb-server would).
printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
chmod +x "$tmp/usr/sbin/policy-rc.d"
# sid's Release files may be past Valid-Until on a mirror snapshot.
chroot "$tmp" /usr/bin/env DEBIAN_FRONTEND=noninteractive sh -c \
	"apt-get -o Acquire::Check-Valid-Until=false update && apt-get install -y --no-install-recommends $packages && apt-get clean" \
	>>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; echo "$me: installing $packages in the root failed (log: $log)" >&2; exit 1; }
version=$(chroot "$tmp" "$server" --version) ||
	{ echo "$me: $server does not run in the new root" >&2; exit 1; }
# The test servers' temp dirs live in the root's /tmp.
chmod 1777 "$tmp/tmp"
# Atomic: a parallel build that finished first wins, this one is discarded.
if ! mv -T "$tmp" "$root" 2>/dev/null; then
	[ -x "$root$server" ] || { echo "$me: cannot move the root into $root" >&2; exit 1; }
fi
trap - EXIT
rm -f "$log"
echo "$name root ready: $version"
