#!/usr/bin/env bash
# SPDX-License-Identifier: MPL-2.0
#
# scripts/check-compat.sh VERSIONS_FILE: README's compatibility table says
# what `make test` ran. VERSIONS_FILE holds one "kind version" line per
# server the tests started (internal/testserver writes it when
# TENANTDB_TEST_VERSIONS_FILE names it; scripts/testacc.sh does, for a full
# run). Each server version there needs a row of README's "Compatibility"
# table whose first cell starts with its name and version as the server
# reported it ("MariaDB 11.8.9", "PostgreSQL 18.4") and that says it passed
# `make test`; and each row saying `make test` must name a version that ran.
# Fails printing the line to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${1:?usage: $0 VERSIONS_FILE}
readme=${README:-README.md}

# ran: "Name x.y.z" for every server that ran, one a line, sorted, unique.
ran=$(awk '
	{
		kind = $1; $1 = ""
		if (!match($0, /[0-9]+\.[0-9]+(\.[0-9]+)?/)) next
		v = substr($0, RSTART, RLENGTH)
		name = kind ~ /^mariadb/ ? "MariaDB" : kind ~ /^mysql/ ? "MySQL" : kind ~ /^postgres/ ? "PostgreSQL" : ""
		if (name != "") print name " " v
	}' "$versions" | sort -u)
[ -n "$ran" ] || { echo "check-compat: $versions names no server: nothing to check" >&2; exit 1; }

# rows: "LINE<TAB>Name x.y.z" for every row of the Compatibility section
# that says `make test`.
rows=$(awk '
	/^## / { in_table = ($0 == "## Compatibility") ; next }
	in_table && /^\| (MariaDB|MySQL|PostgreSQL) [0-9]/ && index($0, "`make test`") {
		if (match($0, /^\| (MariaDB|MySQL|PostgreSQL) [0-9]+\.[0-9]+(\.[0-9]+)?/))
			print NR "\t" substr($0, 3, RLENGTH - 2)
	}' "$readme")

status=0
while IFS= read -r server; do
	if ! printf '%s\n' "$rows" | cut -f2 | grep -qxF "$server"; then
		status=1
		same=$(printf '%s\n' "$rows" | awk -F'\t' -v n="${server%% *}" -v f="$readme" \
			'index($2, n " ") == 1 { printf "%s%s:%s (%s)", sep, f, $1, $2; sep = ", " }')
		echo "$readme: the compatibility table has no row saying \`make test\` passed on $server, which the last make test ran." >&2
		if [ -n "$same" ]; then
			echo "  rows for ${server%% *} saying \`make test\` (fix the version in one): $same" >&2
		fi
		echo "  the row to write: | $server (…) | passed (\`make test\`) | … |" >&2
	fi
done <<<"$ran"
while IFS=$'\t' read -r line server; do
	[ -n "$line" ] || continue
	if ! grep -qxF "$server" <<<"$ran"; then
		status=1
		echo "$readme:$line: says \`make test\` ran $server, which the last make test did not (it ran: $(tr '\n' ',' <<<"$ran" | sed 's/,$//; s/,/, /g')): fix the version or the row" >&2
	fi
done <<<"$rows"
if [ "$status" = 0 ]; then
	echo "check-compat: README's compatibility table names what make test ran: $(tr '\n' ',' <<<"$ran" | sed 's/,$//; s/,/, /g')"
fi
exit "$status"
