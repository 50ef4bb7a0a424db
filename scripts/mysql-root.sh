#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
# The Debian root MySQL 9.7 runs from in the tests (make mysql-root): see
# scripts/server-root.sh, which builds it (and MariaDB 11.8's).
exec "$(dirname "$0")/server-root.sh" mysql "$@"
