#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# Builds local stand-ins for the official mariadb:10.11 and postgres:15
# images, for machines that reach no image registry (make testacc-docker;
# TESTING.md, "The Docker backend"). Each image is a Debian 12 root
# filesystem made by debootstrap from Debian's packages (mariadb-server,
# postgresql-15), imported with `docker import`, with an entrypoint that
# behaves like the official images' for everything internal/testserver's
# docker backend relies on:
#
#   - the same environment variables (MARIADB_ROOT_PASSWORD or
#     MYSQL_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD,
#     MARIADB_DATABASE/USER/PASSWORD; POSTGRES_USER, POSTGRES_PASSWORD,
#     POSTGRES_DB, POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD, PGDATA),
#   - the same data directories (/var/lib/mysql, /var/lib/postgresql/data)
#     and users (mysql, postgres), docker-entrypoint.sh on PATH,
#   - command-line flags given to the server (a first argument starting with
#     "-" means "the server with these flags"; MariaDB's are also given to
#     mariadb-install-db, as the official entrypoint does),
#   - an initialisation by a temporary server that listens on no TCP port,
#     then the same readiness lines ("MariaDB init process done. Ready for
#     start up.", "PostgreSQL init process complete; ready for start up.").
#
# Elsewhere (GitHub) the official images are used; these are not published.
#
# Usage: scripts/docker-images.sh [mariadb] [postgres]   (default: both)
# Environment: TENANTDB_LOCAL_MARIADB_IMAGE (default tenantdb-local/mariadb:10.11),
# TENANTDB_LOCAL_POSTGRES_IMAGE (default tenantdb-local/postgres:15),
# DEBIAN_MIRROR (default http://deb.debian.org/debian), TENANTDB_IMAGE_CACHE
# (downloaded .debs; default /var/cache/tenantdb/debs), REBUILD=1 to rebuild
# an image that exists. Needs root, docker (DOCKER_HOST is honoured) and
# debootstrap (installed with apt-get when missing). About 3 minutes per
# image on 2 cores; an existing image is kept.
set -euo pipefail

MARIADB_IMAGE=${TENANTDB_LOCAL_MARIADB_IMAGE:-tenantdb-local/mariadb:10.11}
POSTGRES_IMAGE=${TENANTDB_LOCAL_POSTGRES_IMAGE:-tenantdb-local/postgres:15}
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

build_mariadb() {
  if exists "$MARIADB_IMAGE"; then echo "docker-images: $MARIADB_IMAGE exists (REBUILD=1 to rebuild)"; return; fi
  local dir="$work/mariadb"
  echo "docker-images: building $MARIADB_IMAGE from Debian's mariadb-server (debootstrap, a few minutes)"
  rootfs "$dir" mariadb-server
  # The package's postinst initialised a data dir: the entrypoint makes its own.
  rm -rf "$dir"/var/lib/mysql/* "$dir"/var/log/mysql/*
  # As the official image: listen on every address of the container (the
  # backend chooses with --bind-address), log to stderr, no name lookups.
  sed -i -e 's/^\(bind-address\b.*\)/#\1/' -e 's/^\(log_error\b.*\)/#\1/' "$dir"/etc/mysql/mariadb.conf.d/50-server.cnf
  printf '[mariadb]\nhost-cache-size=0\nskip-name-resolve\n' >"$dir"/etc/mysql/conf.d/docker.cnf
  install -d -o 0 -g 0 "$dir"/docker-entrypoint-initdb.d
  cat >"$dir"/usr/local/bin/docker-entrypoint.sh <<'EOF'
#!/bin/bash
# tenantdb's stand-in for the official mariadb image's entrypoint (built by
# scripts/docker-images.sh): the same variables, data directory, flags and
# readiness lines, without the features the tests do not use.
set -eo pipefail
note() { echo "$(date '+%F %T') 0 [Note] [Entrypoint]: $*"; }
fail() { echo "$(date '+%F %T') 0 [ERROR] [Entrypoint]: $*" >&2; exit 1; }
if [ "${1:0:1}" = '-' ]; then set -- mariadbd "$@"; fi
if [ "$1" != mariadbd ] && [ "$1" != mysqld ]; then exec "$@"; fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p /var/lib/mysql /run/mysqld
  chown -R mysql:mysql /var/lib/mysql /run/mysqld
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$BASH_SOURCE" "$@"
fi
pick() { local v=${!1:-}; [ -n "$v" ] || v=${!2:-}; printf '%s' "$v"; }
ROOT_PW=$(pick MARIADB_ROOT_PASSWORD MYSQL_ROOT_PASSWORD)
EMPTY_OK=$(pick MARIADB_ALLOW_EMPTY_ROOT_PASSWORD MYSQL_ALLOW_EMPTY_PASSWORD)
DB=$(pick MARIADB_DATABASE MYSQL_DATABASE)
USR=$(pick MARIADB_USER MYSQL_USER)
USR_PW=$(pick MARIADB_PASSWORD MYSQL_PASSWORD)
ROOT_HOST=$(pick MARIADB_ROOT_HOST MYSQL_ROOT_HOST); ROOT_HOST=${ROOT_HOST:-%}
esc() { local s=${1//\\/\\\\}; printf '%s' "${s//\'/\\\'}"; }
if [ ! -d /var/lib/mysql/mysql ]; then
  [ -n "$ROOT_PW" ] || [ -n "$EMPTY_OK" ] || fail "Database is uninitialized and password option is not specified
	You need to specify one of MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD and MARIADB_RANDOM_ROOT_PASSWORD"
  [ "$USR" != root ] || fail "MARIADB_USER=\"root\", MARIADB_USER and MARIADB_PASSWORD are for configuring a regular user and cannot be used for the root user"
  note "Initializing database files"
  mariadb-install-db --datadir=/var/lib/mysql --rpm --auth-root-authentication-method=normal \
    --skip-test-db --skip-log-bin --skip-name-resolve --default-time-zone=SYSTEM \
    --loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 "${@:2}"
  note "Database files initialized"
  note "Starting temporary server"
  sock=/run/mysqld/mysqld.sock
  "$@" --skip-networking --default-time-zone=SYSTEM --socket="$sock" --wsrep_on=OFF --expire-logs-days=0 \
    --loose-innodb_buffer_pool_load_at_startup=0 &
  pid=$!
  for _ in $(seq 300); do
    mariadb --protocol=socket --socket="$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || fail "Unable to start server."
    sleep 0.1
  done
  note "Temporary server started."
  sql="SET @@SESSION.SQL_LOG_BIN=0;
DELETE FROM mysql.global_priv WHERE user NOT IN ('mysql.sys','mariadb.sys','root') OR host NOT IN ('localhost');
SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$(esc "$ROOT_PW")');"
  if [ "$ROOT_HOST" != localhost ]; then
    sql+="
CREATE USER 'root'@'$(esc "$ROOT_HOST")' IDENTIFIED BY '$(esc "$ROOT_PW")';
GRANT ALL ON *.* TO 'root'@'$(esc "$ROOT_HOST")' WITH GRANT OPTION;
GRANT PROXY ON ''@'%' TO 'root'@'$(esc "$ROOT_HOST")' WITH GRANT OPTION;"
  fi
  [ -z "$DB" ] || sql+="
CREATE DATABASE IF NOT EXISTS \`${DB//\`/\`\`}\`;"
  if [ -n "$USR" ]; then
    sql+="
CREATE USER '$(esc "$USR")'@'%' IDENTIFIED BY '$(esc "$USR_PW")';"
    [ -z "$DB" ] || sql+="
GRANT ALL ON \`${DB//\`/\`\`}\`.* TO '$(esc "$USR")'@'%';"
  fi
  mariadb --protocol=socket --socket="$sock" -uroot --binary-mode -e "$sql"
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) note "$0: running $f"; . "$f" ;;
      *.sql) note "$0: running $f"; mariadb --protocol=socket --socket="$sock" -uroot -p"$ROOT_PW" ${DB:+"$DB"} <"$f" ;;
      *) ;;
    esac
  done
  note "Stopping temporary server"
  kill "$pid"; wait "$pid" || true
  note "Temporary server stopped"
  echo
  note "MariaDB init process done. Ready for start up."
  echo
fi
exec "$@"
EOF
  chmod 755 "$dir"/usr/local/bin/docker-entrypoint.sh
  strip_rootfs "$dir"
  import "$dir" "$MARIADB_IMAGE" \
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

work=$(mktemp -d /var/tmp/tenantdb-images.XXXXXX)
trap 'rm -rf "$work"' EXIT
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mariadb postgres)
for t in "${targets[@]}"; do
  case "$t" in
    mariadb) build_mariadb ;;
    postgres) build_postgres ;;
    *) die "unknown image $t (want mariadb or postgres)" ;;
  esac
done
