#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""The terraform commands of each top-level test (TESTING.md, issue 55).

    scripts/terraform-count-report.py RUN.json COUNT.log [N]

RUN.json is `go test -json` (or test2json) output of a run whose terraform
was scripts/terraform-count.py, COUNT.log its log. Each command goes to the
top-level test running when it started, the one started last when several
are (a top-level t.Parallel test spans the run), so run one package in one
process. Prints the totals by subcommand, then the N (default 40)
tests with the most commands: commands, CPU seconds, and by subcommand.
"""
import collections
import datetime
import json
import sys


def windows(path):
    started, spans = {}, []
    with open(path) as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            test = ev.get("Test")
            if not test or "/" in test:
                continue
            at = datetime.datetime.fromisoformat(ev["Time"].replace("Z", "+00:00")).timestamp()
            if ev.get("Action") == "run":
                started[test] = at
            elif ev.get("Action") in ("pass", "fail", "skip"):
                spans.append((started.get(test, at), at, test))
    return sorted(spans)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    spans = windows(sys.argv[1])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    by_sub = collections.defaultdict(lambda: [0, 0.0])
    count, cpu = collections.Counter(), collections.Counter()
    subs = collections.defaultdict(collections.Counter)
    with open(sys.argv[2]) as f:
        for line in f:
            sub, user, system, start, _ = line.rstrip("\n").split("\t")
            used, start = float(user) + float(system), float(start)
            # The test started last among those running: a top-level test
            # that called t.Parallel spans the run from its start to its end.
            test = max(((a, name) for a, b, name in spans if a <= start <= b), default=(0, "(between tests)"))[1]
            by_sub[sub][0] += 1
            by_sub[sub][1] += used
            count[test] += 1
            cpu[test] += used
            subs[test][sub] += 1
    print("%d commands, %.0f CPU s" % (sum(n for n, _ in by_sub.values()), sum(c for _, c in by_sub.values())))
    for sub, (n, used) in sorted(by_sub.items(), key=lambda kv: -kv[1][1]):
        print("  %-8s %6d  %7.1f CPU s  %.3f each" % (sub, n, used, used / n))
    print("%-62s %5s %7s  by subcommand" % ("test", "cmds", "CPU s"))
    for test, n in count.most_common(top):
        print("%-62s %5d %7.1f  %s" % (test, n, cpu[test], " ".join("%s %d" % kv for kv in subs[test].most_common())))


if __name__ == "__main__":
    main()
