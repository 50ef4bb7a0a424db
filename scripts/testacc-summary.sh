# SPDX-License-Identifier: MPL-2.0
# Sourced by scripts/testacc.sh and scripts/testacc-docker.sh: what a run
# of `go test -v` prints once it is done.

# summarize LOG FAMILY=KIND...: package results, subtests per kind,
# failures in full.
summarize() {
	local log=$1
	shift
	grep -E '^(ok\s|FAIL|panic:|--- FAIL:)' "$log" || true
	for pair in "$@"; do
		local family=${pair%%=*} kind=${pair#*=} pass fail skip secs
		pass=$(grep -cE "^\s*--- PASS: Test[^/ ]+/$family " "$log" || true)
		fail=$(grep -cE "^\s*--- FAIL: Test[^/ ]+/$family " "$log" || true)
		skip=$(grep -cE "^\s*--- SKIP: Test[^/ ]+/$family " "$log" || true)
		if [ $((pass + fail + skip)) -gt 0 ]; then
			# Their wall time, summed from go test's "(12.34s)": how long
			# the kind took inside its run, for the trend from run to run.
			secs=$(grep -E "^\s*--- (PASS|FAIL|SKIP): Test[^/ ]+/$family " "$log" | sed -nE 's/.*\(([0-9.]+)s\)$/\1/p' | awk '{ s += $1 } END { printf "%d", s }')
			echo "testacc: subtests run on $kind: $pass passed, $fail failed, $skip skipped, $secs s"
		fi
	done
	if grep -qE '^(FAIL|panic:)' "$log"; then
		echo "testacc: the failing tests' output:"
		# Every line of a failing test: go test -v prints a test's output
		# before its "--- FAIL" line, from its "=== RUN".
		awk '/^=== (RUN|CONT|PAUSE|NAME)/ { buf = "" } { buf = buf $0 "\n" } /--- FAIL/ { printf "%s", buf; buf = "" } /^(FAIL|panic:)/ { print }' "$log"
	fi
}

# failure_digest LOG: a few lines naming what failed in a run, for the end
# of the output (a CI page may show only the last lines): each failing
# test with the last line it logged (file.go:N: ..., usually its t.Fatal;
# go test -v names the test whose output follows in its === lines) and
# the MySQL driver's last log lines, if any; when no test failed, the panic
# (a timeout's names the tests still running) or else the log's end (a
# build error).
failure_digest() {
	local log=$1
	if grep -qE -- '--- FAIL:' "$log"; then
		awk '/^=== (RUN|CONT|PAUSE|NAME) / { test = $3 }
			/^ +[A-Za-z0-9_]+\.go:[0-9]+: / { line = $0; sub(/^ +/, "", line); last[test] = line }
			/^ *--- FAIL: / { print $3 (($3 in last) ? ": " last[$3] : "") }' "$log" |
			head -n 12 | cut -c1-240 || true
		# The MySQL driver logs why it called a connection invalid on
		# stderr, outside any test's lines (also for connections tests
		# kill on purpose): its last three.
		grep '^\[mysql\] ' "$log" | tail -n 3 | cut -c1-240 || true
	elif grep -q '^panic:' "$log"; then
		grep -m1 -A6 '^panic:' "$log" | cut -c1-240 || true
	else
		tail -n 6 "$log" | cut -c1-240 || true
	fi
	# Never a failure of its own: testacc.sh runs under errexit and
	# pipefail, and the FAILED line must still follow.
	return 0
}
