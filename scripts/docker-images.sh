#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# Builds local stand-ins for the official images the docker backend of
# internal/testserver runs, for machines that reach no image registry (make
# testacc-docker; TESTING.md, "The Docker backend"), one per server kind:
#
#   mariadb     tenantdb-local/mariadb:10.11  Debian 12's mariadb-server (debootstrap)
#   postgres    tenantdb-local/postgres:15    Debian 12's postgresql-15 (debootstrap)
#   mysql       tenantdb-local/mysql:9.7      the MySQL 9.7 root of scripts/server-root.sh mysql
#   mariadb11   tenantdb-local/mariadb:11.8   the MariaDB 11.8 root of scripts/server-root.sh mariadb11
#   postgres18  tenantdb-local/postgres:18    the postgres:15 stand-in's Debian 12 root with the
#                                             PostgreSQL 18 npm build of scripts/pg-bin.sh 18
#                                             instead of Debian's 15 server
#
# The kinds the local backend runs from a Debian root (mysql, mariadb11) get
# the same root, copied (the roots stay as they are), so the container runs
# the very server the local run tests; PostgreSQL 18 the same npm build.
# Each image is imported with `docker import`, with an entrypoint that
# behaves like the official images' for everything the docker backend
# relies on:
#
#   - the same environment variables (MARIADB_ROOT_PASSWORD or
#     MYSQL_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD,
#     MARIADB_DATABASE/USER/PASSWORD; MYSQL_ROOT_PASSWORD, MYSQL_ROOT_HOST,
#     MYSQL_DATABASE/USER/PASSWORD; POSTGRES_USER, POSTGRES_PASSWORD,
#     POSTGRES_DB, POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD, PGDATA),
#   - the same data directories (/var/lib/mysql, /var/lib/postgresql/data)
#     and users (mysql, postgres), docker-entrypoint.sh on PATH,
#   - command-line flags given to the server (a first argument starting with
#     "-" means "the server with these flags"; MariaDB's are also given to
#     mariadb-install-db and MySQL's to mysqld --initialize-insecure, as the
#     official entrypoints do),
#   - an initialisation by a temporary server that listens on no TCP port,
#     then the same readiness lines ("MariaDB init process done. Ready for
#     start up.", "MySQL init process done. Ready for start up.",
#     "PostgreSQL init process complete; ready for start up.").
#
# Elsewhere (GitHub) the official images are used; these are not published.
#
# Usage: scripts/docker-images.sh [KIND...]   (default: mariadb postgres)
# Environment: TENANTDB_LOCAL_MARIADB_IMAGE (default tenantdb-local/mariadb:10.11),
# TENANTDB_LOCAL_POSTGRES_IMAGE (default tenantdb-local/postgres:15),
# TENANTDB_LOCAL_MYSQL97_IMAGE (default tenantdb-local/mysql:9.7),
# TENANTDB_LOCAL_MARIADB11_IMAGE (default tenantdb-local/mariadb:11.8),
# TENANTDB_LOCAL_POSTGRES18_IMAGE (default tenantdb-local/postgres:18),
# TENANTDB_MYSQL_ROOT / TENANTDB_MARIADB11_ROOT (the roots, as
# scripts/server-root.sh; built when missing), TENANTDB_PG_CACHE (as
# scripts/pg-bin.sh), DEBIAN_MIRROR (default http://deb.debian.org/debian),
# TENANTDB_IMAGE_CACHE (downloaded .debs; default /var/cache/tenantdb/debs),
# REBUILD=1 to rebuild an image that exists. Needs root, docker (DOCKER_HOST
# is honoured) and debootstrap (installed with apt-get when missing). About
# 3 minutes per debootstrap image on 2 cores, about one for an image made
# from a root that exists; an existing image is kept.
set -euo pipefail

MARIADB_IMAGE=${TENANTDB_LOCAL_MARIADB_IMAGE:-tenantdb-local/mariadb:10.11}
POSTGRES_IMAGE=${TENANTDB_LOCAL_POSTGRES_IMAGE:-tenantdb-local/postgres:15}
MYSQL97_IMAGE=${TENANTDB_LOCAL_MYSQL97_IMAGE:-tenantdb-local/mysql:9.7}
MARIADB11_IMAGE=${TENANTDB_LOCAL_MARIADB11_IMAGE:-tenantdb-local/mariadb:11.8}
POSTGRES18_IMAGE=${TENANTDB_LOCAL_POSTGRES18_IMAGE:-tenantdb-local/postgres:18}
here=$(cd "$(dirname "$0")" && pwd)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
CACHE=${TENANTDB_IMAGE_CACHE:-/var/cache/tenantdb/debs}

die() { echo "docker-images: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
command -v docker >/dev/null || die "docker is not on PATH"
docker version >/dev/null 2>&1 || die "no Docker daemon answers (DOCKER_HOST=${DOCKER_HOST:-unset})"
if ! command -v debootstrap >/dev/null; then
  echo "docker-images: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null 2>&1 ||
    { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null; } ||
    die "cannot install debootstrap"
fi
mkdir -p "$CACHE"

# rootfs DIR PACKAGES: a minimal Debian with PACKAGES, without docs, man
# pages, translations or apt lists (the images are copied whole per
# container on vfs storage: keep them small).
rootfs() {
  local dir=$1 pkgs=$2
  debootstrap --variant=minbase --cache-dir="$CACHE" --include="$pkgs" "$SUITE" "$dir" "$MIRROR" >"$dir.log" 2>&1 ||
    { tail -20 "$dir.log" >&2; die "debootstrap failed (log: $dir.log)"; }
}

strip_rootfs() {
  local dir=$1
  rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
    "$dir"/var/cache/apt/* "$dir"/var/lib/apt/lists/* "$dir"/var/log/*.log "$dir"/tmp/*
  find "$dir"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
}

# import DIR IMAGE CHANGES...: docker import with Dockerfile instructions.
import() {
  local dir=$1 image=$2
  shift 2
  local changes=()
  for c in "$@"; do changes+=(--change "$c"); done
  tar -C "$dir" -c . | docker import "${changes[@]}" - "$image" >/dev/null
  echo "docker-images: built $image ($(du -sh "$dir" | cut -f1))"
}

exists() { docker image inspect "$1" >/dev/null 2>&1 && [ "${REBUILD:-}" != 1 ]; }

# copy_root ROOT DIR: a copy of a server root of scripts/server-root.sh,
# without what the tests left in its /tmp (the local backend's servers run
# there) and what rootfs would not have installed.
copy_root() {
  local root=$1 dir=$2
  mkdir -p "$dir"
  tar -C "$root" --exclude=./tmp/* --exclude=./proc/* --exclude=./sys/* --exclude=./dev/pts/* -c . | tar -C "$dir" -x
  # The root was made in a mktemp dir (mode 0700): the image's / must let
  # the server's user through.
  chmod 755 "$dir"
  rm -f "$dir"/usr/sbin/policy-rc.d
}

build_mariadb() {
  if exists "$MARIADB_IMAGE"; then echo "docker-images: $MARIADB_IMAGE exists (REBUILD=1 to rebuild)"; return; fi
  local dir="$work/mariadb"
  echo "docker-images: building $MARIADB_IMAGE from Debian's mariadb-server (debootstrap, a few minutes)"
  rootfs "$dir" mariadb-server
  mariadb_image "$dir" "$MARIADB_IMAGE"
}

# from_root KIND IMAGE ROOT NAME: a copy, in $work/KIND, of the root
# scripts/server-root.sh KIND builds at ROOT (built first when missing);
# false when IMAGE exists.
from_root() {
  local kind=$1 image=$2 root=$3 name=$4
  if exists "$image"; then echo "docker-images: $image exists (REBUILD=1 to rebuild)"; return 1; fi
  "$here"/server-root.sh "$kind"
  echo "docker-images: building $image from the $name root $root"
  copy_root "$root" "$work/$kind"
}

# MariaDB 11.8: the root the local backend runs it from (Debian 13's
# mariadb-server), copied.
build_mariadb11() {
  from_root mariadb11 "$MARIADB11_IMAGE" "${TENANTDB_MARIADB11_ROOT:-$HOME/.cache/tenantdb/mariadb11-root}" "MariaDB 11.8" || return 0
  mariadb_image "$work/mariadb11" "$MARIADB11_IMAGE"
}

# mysql_entrypoint DIR: the entrypoint of the MariaDB and MySQL stand-ins,
# one script for both, as the official images' differ only where the
# servers do (install tool, root password statement, client name).
mysql_entrypoint() {
  cat >"$1"/usr/local/bin/docker-entrypoint.sh <<'EOF'
#!/bin/bash
# tenantdb's stand-in for the official mariadb and mysql images' entrypoint
# (built by scripts/docker-images.sh): the same variables, data directory,
# flags and readiness lines, without the features the tests do not use.
set -eo pipefail
note() { echo "$(date '+%F %T') 0 [Note] [Entrypoint]: $*"; }
fail() { echo "$(date '+%F %T') 0 [ERROR] [Entrypoint]: $*" >&2; exit 1; }
if command -v mariadbd >/dev/null; then
  flavor=MariaDB server=mariadbd client=mariadb
else
  flavor=MySQL server=mysqld client=mysql
fi
if [ "${1:0:1}" = '-' ]; then set -- "$server" "$@"; fi
if [ "$1" != mariadbd ] && [ "$1" != mysqld ]; then exec "$@"; fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p /var/lib/mysql /run/mysqld /var/lib/mysql-files
  chown -R mysql:mysql /var/lib/mysql /run/mysqld /var/lib/mysql-files
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$BASH_SOURCE" "$@"
fi
# MariaDB's image reads MARIADB_* first, then MYSQL_*; MySQL's MYSQL_* only.
pick() {
  local v=
  [ "$flavor" = MySQL ] || v=${!1:-}
  [ -n "$v" ] || v=${!2:-}
  printf '%s' "$v"
}
ROOT_PW=$(pick MARIADB_ROOT_PASSWORD MYSQL_ROOT_PASSWORD)
EMPTY_OK=$(pick MARIADB_ALLOW_EMPTY_ROOT_PASSWORD MYSQL_ALLOW_EMPTY_PASSWORD)
DB=$(pick MARIADB_DATABASE MYSQL_DATABASE)
USR=$(pick MARIADB_USER MYSQL_USER)
USR_PW=$(pick MARIADB_PASSWORD MYSQL_PASSWORD)
ROOT_HOST=$(pick MARIADB_ROOT_HOST MYSQL_ROOT_HOST); ROOT_HOST=${ROOT_HOST:-%}
esc() { local s=${1//\\/\\\\}; printf '%s' "${s//\'/\\\'}"; }
if [ ! -d /var/lib/mysql/mysql ]; then
  [ -n "$ROOT_PW" ] || [ -n "$EMPTY_OK" ] || fail "Database is uninitialized and password option is not specified
	You need to specify one of the ROOT_PASSWORD or ALLOW_EMPTY_ROOT_PASSWORD variables"
  [ "$USR" != root ] || fail "USER=\"root\": USER and PASSWORD are for configuring a regular user and cannot be used for the root user"
  note "Initializing database files"
  sock=/run/mysqld/mysqld.sock
  if [ "$flavor" = MariaDB ]; then
    mariadb-install-db --datadir=/var/lib/mysql --rpm --auth-root-authentication-method=normal \
      --skip-test-db --skip-log-bin --skip-name-resolve --default-time-zone=SYSTEM \
      --loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 "${@:2}"
    temp=(--wsrep_on=OFF --expire-logs-days=0 --loose-innodb_buffer_pool_load_at_startup=0)
    root_pw="DELETE FROM mysql.global_priv WHERE user NOT IN ('mysql.sys','mariadb.sys','root') OR host NOT IN ('localhost');
SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$(esc "$ROOT_PW")');"
    proxy="''@'%'"
  else
    "$@" --initialize-insecure --default-time-zone=SYSTEM
    temp=(--mysqlx=OFF)
    root_pw="ALTER USER 'root'@'localhost' IDENTIFIED BY '$(esc "$ROOT_PW")';"
    proxy="''@''"
  fi
  note "Database files initialized"
  note "Starting temporary server"
  "$@" --skip-networking --default-time-zone=SYSTEM --socket="$sock" "${temp[@]}" &
  pid=$!
  for _ in $(seq 600); do
    "$client" --protocol=socket --socket="$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || fail "Unable to start server."
    sleep 0.1
  done
  note "Temporary server started."
  sql="SET @@SESSION.SQL_LOG_BIN=0;
$root_pw"
  if [ "$ROOT_HOST" != localhost ]; then
    sql+="
CREATE USER 'root'@'$(esc "$ROOT_HOST")' IDENTIFIED BY '$(esc "$ROOT_PW")';
GRANT ALL ON *.* TO 'root'@'$(esc "$ROOT_HOST")' WITH GRANT OPTION;
GRANT PROXY ON $proxy TO 'root'@'$(esc "$ROOT_HOST")' WITH GRANT OPTION;"
  fi
  [ -z "$DB" ] || sql+="
CREATE DATABASE IF NOT EXISTS \`${DB//\`/\`\`}\`;"
  if [ -n "$USR" ]; then
    sql+="
CREATE USER '$(esc "$USR")'@'%' IDENTIFIED BY '$(esc "$USR_PW")';"
    [ -z "$DB" ] || sql+="
GRANT ALL ON \`${DB//\`/\`\`}\`.* TO '$(esc "$USR")'@'%';"
  fi
  "$client" --protocol=socket --socket="$sock" -uroot --binary-mode -e "$sql"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) note "$0: running $f"; . "$f" ;;
      *.sql) note "$0: running $f"; MYSQL_PWD=$ROOT_PW "$client" --protocol=socket --socket="$sock" -uroot ${DB:+"$DB"} <"$f" ;;
      *) ;;
    esac
  done
  note "Stopping temporary server"
  kill "$pid"; wait "$pid" || true
  note "Temporary server stopped"
  echo
  note "$flavor init process done. Ready for start up."
  echo
fi
exec "$@"
EOF
  chmod 755 "$1"/usr/local/bin/docker-entrypoint.sh
}

# mariadb_image DIR IMAGE: a Debian root with mariadb-server becomes IMAGE.
mariadb_image() {
  local dir=$1 image=$2
  # The package's postinst initialised a data dir: the entrypoint makes its own.
  rm -rf "$dir"/var/lib/mysql/* "$dir"/var/log/mysql/*
  # As the official image: listen on every address of the container (the
  # backend chooses with --bind-address), log to stderr, no name lookups.
  sed -i -e 's/^\(bind-address\b.*\)/#\1/' -e 's/^\(log_error\b.*\)/#\1/' "$dir"/etc/mysql/mariadb.conf.d/50-server.cnf
  printf '[mariadb]\nhost-cache-size=0\nskip-name-resolve\n' >"$dir"/etc/mysql/conf.d/docker.cnf
  install -d -o 0 -g 0 "$dir"/docker-entrypoint-initdb.d
  mysql_entrypoint "$dir"
  strip_rootfs "$dir"
  import "$dir" "$image" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
    'EXPOSE 3306' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["mariadbd"]'
  rm -rf "$dir"
}

build_postgres() {
  if exists "$POSTGRES_IMAGE"; then echo "docker-images: $POSTGRES_IMAGE exists (REBUILD=1 to rebuild)"; return; fi
  local dir="$work/postgres"
  echo "docker-images: building $POSTGRES_IMAGE from Debian's postgresql-15 (debootstrap, a few minutes)"
  rootfs "$dir" postgresql-15,locales
  # The package made a cluster "main": the entrypoint makes its own in PGDATA.
  rm -rf "$dir"/var/lib/postgresql/15 "$dir"/etc/postgresql/15 "$dir"/var/log/postgresql/*
  # As the official image: en_US.UTF-8 exists and is the default locale,
  # and a new cluster listens on every address unless told otherwise.
  chroot "$dir" localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8
  sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$dir"/usr/share/postgresql/15/postgresql.conf.sample
  install -d -o 0 -g 0 "$dir"/docker-entrypoint-initdb.d
  install -d "$dir"/var/run/postgresql
  chroot "$dir" chown postgres:postgres /var/run/postgresql
  chmod 3777 "$dir"/var/run/postgresql
  cat >"$dir"/usr/local/bin/docker-entrypoint.sh <<'EOF'
#!/bin/bash
# tenantdb's stand-in for the official postgres image's entrypoint (built by
# scripts/docker-images.sh): the same variables, data directory, flags and
# readiness lines, without the features the tests do not use.
set -Eeo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
export PGDATA=${PGDATA:-/var/lib/postgresql/data}
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chmod 00700 "$PGDATA"; chmod 03775 /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  POSTGRES_USER=${POSTGRES_USER:-postgres}
  POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser.' >&2
    exit 1
  fi
  eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"${POSTGRES_INITDB_ARGS:-}"
  printf '\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
  export PGPASSWORD=${POSTGRES_PASSWORD:-}
  args=("${@:2}" -c listen_addresses= -p "${PGPORT:-5432}")
  NOTIFY_SOCKET= PGUSER=$POSTGRES_USER pg_ctl -D "$PGDATA" -o "$(printf '%q ' "${args[@]}")" -w start
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc -p "${PGPORT:-5432}")
  if [ "$POSTGRES_DB" != postgres ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db" ;'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "$0: running $f"; . "$f" ;;
      *.sql) echo "$0: running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
      *) ;;
    esac
  done
  PGUSER=$POSTGRES_USER pg_ctl -D "$PGDATA" -m fast -w stop
  unset PGPASSWORD
  echo
  echo 'PostgreSQL init process complete; ready for start up.'
  echo
fi
exec "$@"
EOF
  chmod 755 "$dir"/usr/local/bin/docker-entrypoint.sh
  rm -rf "$dir"/usr/share/i18n
  strip_rootfs "$dir"
  import "$dir" "$POSTGRES_IMAGE" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/postgresql/15/bin PG_MAJOR=15 PGDATA=/var/lib/postgresql/data LANG=en_US.utf8' \
    'EXPOSE 5432' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
  # docker import takes no STOPSIGNAL: add it on top (no RUN, no network).
  printf 'FROM %s\nSTOPSIGNAL SIGINT\n' "$POSTGRES_IMAGE" | docker build -q -t "$POSTGRES_IMAGE" - >/dev/null 2>&1 || die "docker build of $POSTGRES_IMAGE failed"
  rm -rf "$dir"
}

# MySQL 9.7: the root the local backend runs it from (Debian sid's
# mysql-server-core and mysql-client), copied, with the mysql user and the
# official image's configuration.
build_mysql97() {
  from_root mysql "$MYSQL97_IMAGE" "${TENANTDB_MYSQL_ROOT:-$HOME/.cache/tenantdb/mysql-root}" "MySQL 9.7" || return 0
  local dir="$work/mysql"
  chroot "$dir" sh -c 'getent group mysql >/dev/null || groupadd -r mysql; getent passwd mysql >/dev/null || useradd -r -g mysql -d /var/lib/mysql -s /bin/false mysql'
  rm -rf "$dir"/var/lib/mysql "$dir"/etc/mysql
  install -d "$dir"/etc/mysql/conf.d "$dir"/var/lib/mysql "$dir"/var/lib/mysql-files "$dir"/var/run/mysqld
  install -d -o 0 -g 0 "$dir"/docker-entrypoint-initdb.d
  # The official image's my.cnf.
  cat >"$dir"/etc/mysql/my.cnf <<'EOF'
[mysqld]
host-cache-size=0
skip-name-resolve
datadir=/var/lib/mysql
socket=/var/run/mysqld/mysqld.sock
secure-file-priv=/var/lib/mysql-files
user=mysql
pid-file=/var/run/mysqld/mysqld.pid
[client]
socket=/var/run/mysqld/mysqld.sock
!includedir /etc/mysql/conf.d/
EOF
  mysql_entrypoint "$dir"
  strip_rootfs "$dir"
  import "$dir" "$MYSQL97_IMAGE" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
    'EXPOSE 3306 33060' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["mysqld"]'
  rm -rf "$dir"
}

# PostgreSQL 18: the postgres:15 stand-in's root (Debian 12, its locales
# and entrypoint) with the npm build the local backend runs (scripts/pg-bin.sh
# 18) in /usr/lib/postgresql/18 and Debian's 15 server taken out (its psql
# stays: the entrypoint's client).
build_postgres18() {
  if exists "$POSTGRES18_IMAGE"; then echo "docker-images: $POSTGRES18_IMAGE exists (REBUILD=1 to rebuild)"; return; fi
  local bindir
  bindir=$("$here"/pg-bin.sh 18) || die "no PostgreSQL 18 build (scripts/pg-bin.sh 18)"
  local native=${bindir%/bin}
  build_postgres
  local dir="$work/postgres18"
  echo "docker-images: building $POSTGRES18_IMAGE from $POSTGRES_IMAGE's root and $native"
  mkdir -p "$dir"
  local ctr
  ctr=$(docker create "$POSTGRES_IMAGE")
  docker export "$ctr" | tar -C "$dir" -x
  docker rm -f "$ctr" >/dev/null
  rm -rf "$dir"/.dockerenv "$dir"/usr/share/postgresql/15 "$dir"/usr/lib/postgresql/15/lib
  find "$dir"/usr/lib/postgresql/15/bin -mindepth 1 ! -name psql -delete
  mkdir -p "$dir"/usr/lib/postgresql/18
  cp -a "$native"/. "$dir"/usr/lib/postgresql/18/
  local sample
  sample=$(find "$dir"/usr/lib/postgresql/18/share -name postgresql.conf.sample | head -1)
  [ -n "$sample" ] || die "no postgresql.conf.sample in $native"
  sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" "$sample"
  import "$dir" "$POSTGRES18_IMAGE" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/postgresql/18/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/postgresql/15/bin PG_MAJOR=18 PGDATA=/var/lib/postgresql/data LANG=en_US.utf8' \
    'EXPOSE 5432' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
  printf 'FROM %s\nSTOPSIGNAL SIGINT\n' "$POSTGRES18_IMAGE" | docker build -q -t "$POSTGRES18_IMAGE" - >/dev/null 2>&1 || die "docker build of $POSTGRES18_IMAGE failed"
  rm -rf "$dir"
}

work=$(mktemp -d /var/tmp/tenantdb-images.XXXXXX)
trap 'rm -rf "$work"' EXIT
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mariadb postgres)
for t in "${targets[@]}"; do
  case "$t" in
    mariadb) build_mariadb ;;
    postgres) build_postgres ;;
    mysql) build_mysql97 ;;
    mariadb11) build_mariadb11 ;;
    postgres18) build_postgres18 ;;
    *) die "unknown image $t (want mariadb, postgres, mysql, mariadb11 or postgres18)" ;;
  esac
done
