#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""Where the acceptance suite's time goes, per top-level test.

    testacc-profile.py report SAMPLES RUN=JSONLOG:KINDS [RUN=JSONLOG:KINDS ...]
    testacc-profile.py text JSONLOG      (the -v text inside a -json log)

SAMPLES is scripts/testacc-sample.py's output for the same runs; each
JSONLOG is one `go test -json` run's output, KINDS the name the sampler
gives its binaries (TENANTDB_TESTACC_JOB, else TENANTDB_TEST_ENGINES). For
every top-level test it
prints the wall time (go test's own Elapsed) and the CPU its test binary's
process tree spent meanwhile (the binary, terraform, the throwaway servers:
everything it started), then the totals per run and package. Tests of one
package run one after the other, so the tree's CPU between a test's start
and end is that test's (a server the test shares is charged to the test
that keeps it busy). TESTING.md, "Where the time goes", is written from it.
"""
import bisect
import json
import sys
from collections import defaultdict


def load_samples(path):
    # (engines, binary) -> pid -> [(t, cpu)]: one package's binary is one
    # pid; other go test runs on the machine (a developer's -run) may have
    # the same binary and engines, and are told apart by when they started.
    series = defaultdict(lambda: defaultdict(list))
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5:
                continue
            t, eng, comm, pid, cpu = parts[:5]
            series[(eng, comm)][pid].append((float(t), float(cpu)))
    return series


def binary_series(by_pid, started):
    """The samples of the binary that started when its package did."""
    best, gap = None, 60.0
    for samples in by_pid.values():
        d = abs(samples[0][0] - started)
        if d < gap:
            best, gap = samples, d
    return best


def cpu_at(series, t):
    """The tree's CPU at time t, interpolated between samples."""
    times = [x for x, _ in series]
    i = bisect.bisect_left(times, t)
    if i == 0:
        return series[0][1]
    if i >= len(series):
        return series[-1][1]
    (t0, c0), (t1, c1) = series[i - 1], series[i]
    if c1 < c0:  # a process left the tree unreaped: no interpolation
        return c0
    return c0 + (c1 - c0) * (t - t0) / (t1 - t0)


def parse_time(s):
    from datetime import datetime

    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def report(samples_path, runs):
    samples = load_samples(samples_path)
    rows, totals = [], defaultdict(lambda: [0.0, 0.0, 0])
    for spec in runs:
        run, path, engines = spec
        starts, pkg_start = {}, {}
        with open(path) as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if ev.get("Package") and ev.get("Time"):
                    pkg_start.setdefault(ev["Package"], parse_time(ev["Time"]))
                test = ev.get("Test")
                if not test or "/" in test:
                    continue
                key = (ev.get("Package", ""), test)
                act = ev.get("Action")
                if act == "run":
                    starts[key] = parse_time(ev["Time"])
                elif act in ("pass", "fail", "skip") and key in starts:
                    pkg = key[0].rsplit("/", 1)[-1]
                    series = binary_series(samples.get((engines, pkg + ".test"), {}), pkg_start[key[0]])
                    end = parse_time(ev["Time"])
                    wall = float(ev.get("Elapsed", end - starts[key]))
                    # A parallel test waits paused: only its last Elapsed
                    # seconds are its own (the others ran meanwhile).
                    begin = max(starts[key], end - wall)
                    cpu = 0.0
                    if series:
                        cpu = max(0.0, cpu_at(series, end) - cpu_at(series, begin))
                    rows.append((wall, cpu, run, pkg, test, act))
                    t = totals[(run, pkg)]
                    t[0] += wall
                    t[1] += cpu
                    t[2] += 1
    rows.sort(reverse=True)
    print("wall_s\tcpu_s\trun\tpackage\ttest\tresult")
    for wall, cpu, run, pkg, test, act in rows:
        print(f"{wall:.1f}\t{cpu:.1f}\t{run}\t{pkg}\t{test}\t{act}")
    print()
    print("run\tpackage\ttests\twall_s\tcpu_s")
    for (run, pkg), (wall, cpu, n) in sorted(totals.items()):
        print(f"{run}\t{pkg}\t{n}\t{wall:.0f}\t{cpu:.0f}")


def text(path):
    # go test -json prints a package's "ok"/"FAIL" line as output; the
    # prebuilt binaries run through test2json (testacc-bins.sh) end with the
    # package's pass or fail event only, so that line is written from it.
    summarized = set()
    with open(path) as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                sys.stdout.write(line)
                continue
            out, pkg = ev.get("Output", ""), ev.get("Package", "")
            if ev.get("Action") == "output":
                sys.stdout.write(out)
                if not ev.get("Test") and out.startswith(("ok  \t", "FAIL\t")):
                    summarized.add(pkg)
            elif ev.get("Action") in ("pass", "fail") and not ev.get("Test") and pkg not in summarized:
                word = "ok  " if ev["Action"] == "pass" else "FAIL"
                sys.stdout.write("%s\t%s\t%.3fs\n" % (word, pkg, ev.get("Elapsed", 0)))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "text":
        text(sys.argv[2])
        return
    if len(sys.argv) < 4 or sys.argv[1] != "report":
        sys.exit(__doc__)
    runs = []
    for arg in sys.argv[3:]:
        run, rest = arg.split("=", 1)
        path, engines = rest.split(":", 1)
        runs.append((run, path, engines))
    report(sys.argv[2], runs)


if __name__ == "__main__":
    main()
