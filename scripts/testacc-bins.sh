# SPDX-License-Identifier: MPL-2.0
# Sourced by scripts/testacc.sh: every package's test binary linked once,
# and run the way `go test` runs it.
#
# `go test` links a package's test binary again in every run that tests the
# package, even when nothing changed (the build cache keeps compiled
# packages, not linked binaries): the provider package's, about 5 CPU s,
# fourteen times a queue. The queue links each once and runs them itself.

declare -A TEST_BIN=() TEST_DIR=()

# build_test_bins DIR: links every package's test binary into DIR.
build_test_bins() {
	local dir=$1 path pkgdir
	mkdir -p "$dir"
	$GO test -c -o "$dir/" ./...
	while read -r path pkgdir; do
		[ -n "$path" ] || continue
		TEST_BIN[$path]=$dir/${path##*/}.test
		TEST_DIR[$path]=$pkgdir
		[ -x "${TEST_BIN[$path]}" ] || { echo "testacc: go test -c left no test binary for $path" >&2; return 1; }
	done < <($GO list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./...)
}

# test_bin_args RUN: go test's arguments to the binary (-count=1, the
# timeout, -run, panics on a stray os.Exit(0)).
test_bin_args() {
	ARGS=(-test.paniconexit0 -test.count=1 -test.timeout="${TENANTDB_TESTACC_TIMEOUT:-45m}")
	[ -z "$1" ] || ARGS+=(-test.run="$1")
}

# run_test_bin FORMAT RUN PKG: one package's tests from its source
# directory, printed as `go test FORMAT` (-v or -json) prints them.
run_test_bin() {
	local format=$1 run=$2 pkg=$3 t0 took status=0 ARGS
	local bin=${TEST_BIN[$pkg]:-} dir=${TEST_DIR[$pkg]:-}
	if [ -z "$bin" ]; then
		[ "$format" = -json ] || printf '?   \t%s\t[no test files]\n' "$pkg"
		return 0
	fi
	test_bin_args "$run"
	if [ "$format" = -json ]; then
		(cd "$dir" && exec $GO tool test2json -t -p "$pkg" "$bin" -test.v=test2json "${ARGS[@]}") || status=$?
		return $status
	fi
	t0=$EPOCHREALTIME
	(cd "$dir" && exec "$bin" -test.v=true "${ARGS[@]}") || status=$?
	took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	if [ $status = 0 ]; then
		printf 'ok  \t%s\t%ss\n' "$pkg" "$took"
	else
		printf 'FAIL\t%s\t%ss\n' "$pkg" "$took"
	fi
	return $status
}

# run_test_bins FORMAT RUN PKG...: the packages two at a time, as go test
# runs them on two cores, each package's output whole and in order; fails
# when one failed.
run_test_bins() {
	local format=$1 run=$2 out i=0 j status=0
	shift 2
	out=$(mktemp -d "${TMPDIR:-/tmp}/tenantdb-testbins.XXXXXX")
	for pkg in "$@"; do
		while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
		{
			rc=0
			run_test_bin "$format" "$run" "$pkg" || rc=$?
			echo $rc >"$out/$i.rc"
		} >"$out/$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	for ((j = 0; j < i; j++)); do
		cat "$out/$j"
		[ "$(cat "$out/$j.rc" 2>/dev/null)" = 0 ] || status=1
	done
	rm -rf "$out"
	return $status
}
