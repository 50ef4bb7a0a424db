#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""Compare what two acceptance runs sent their servers.

Each run is a directory of raw statement logs that the test servers left
when they stopped (TENANTDB_TEST_STATEMENT_DUMP, internal/testserver). The
statements are normalised (numbers, random suffixes, literals that carry a
secret or a timestamp, whitespace) and counted per engine family and login
kind; the script prints every statement whose count differs between the two
runs, and exits 1 when one does.

Runs of the same code differ a little on their own: tests run in parallel,
retries, lock waits and the kill/timeout points' interrupted applies depend
on timing. `--noise` lists the patterns of statements that are timing-bound
so that they are reported apart ("timing-bound") and not as changes.

    scripts/statement-log-diff.py BEFORE_DIR AFTER_DIR
    scripts/statement-log-diff.py --by-object BEFORE_DIR AFTER_DIR
    scripts/statement-log-diff.py --counts DIR     # the normalised multiset

--by-object sums the differences by the object a statement names (the
test's name prefix, e.g. "racea" for acme_N_N-style names), and lists the
statements that only one run sent: a refactor that changed what the
provider sends shows up there, as a statement the other run never sent,
while timing moves counts between statements both runs sent.
"""
import collections
import csv
import glob
import json
import os
import re
import sys

csv.field_size_limit(1 << 30)

HARNESS = ("SELECT 'tenantdb-fence-", "SELECT user_host, command_type, argument FROM mysql.general_log LIMIT ",
           "SELECT f, pg_read_binary_file(f, ", "SELECT 'tenantdb-logprobe-")

SUBS = [
    (re.compile(r"SCRAM-SHA-256\$[^' ]*"), "SCRAM"),
    (re.compile(r"(?i)(IDENTIFIED (?:BY|WITH \w+ (?:BY|AS))\s*)'(?:[^']|'')*'"), r"\1'*'"),
    (re.compile(r"(?i)(PASSWORD\s*(?:\(\s*)?)'(?:[^']|'')*'"), r"\1'*'"),
    (re.compile(r"\*[0-9A-F]{40}"), "*HASH"),
    # scratch names, keepers, mark procedures: random by design
    (re.compile(r"(tenantdb_(?:claim|mark|keep)_)(?!ledger(?![a-z0-9_]))[a-z0-9_]+"), r"\1X"),
    # claim ids, hex marks, random suffixes: inside identifiers too (an
    # underscore separates them here)
    (re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{6,}(?![A-Za-z0-9])"), "H"),
    (re.compile(r"(?<![A-Za-z0-9])(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,10}(?![A-Za-z0-9])"), "R"),
    (re.compile(r"\d+(\.\d+)?"), "N"),
    (re.compile(r"\s+"), " "),
]


SET_LIST = re.compile(r"(?is)^SET ((?:[^,']|'[^']*')+(?:, (?:[^,']|'[^']*')+)+)$")


def norm(text):
    for pat, rep in SUBS:
        text = pat.sub(rep, text)
    text = text.strip()
    # The MySQL driver sends its session variables in map order.
    m = SET_LIST.match(text)
    if m:
        text = "SET " + ", ".join(sorted(p.strip() for p in re.findall(r"(?:[^,']|'[^']*')+", m.group(1))))
    return text


def mysql_rows(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f):
            if len(row) < 6:
                continue
            user = row[1].split("[", 1)[0] or row[1].split("]", 1)[0].lstrip("[")
            kind, text = row[4], row[5].replace("\\n", "\n")
            if kind in ("Connect", "Quit"):
                continue
            yield user, kind, "", text


def pg_rows(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            msg = e.get("message", "")
            if e.get("error_severity") != "LOG":
                continue
            m = re.match(r"(statement|execute [^:]*): (.*)", msg, re.S)
            if not m:
                continue
            yield e.get("user", ""), m.group(1).split(" ")[0], e.get("dbname", ""), m.group(2)


def counts(directory):
    c = collections.Counter()
    for path in sorted(glob.glob(os.path.join(directory, "*"))):
        family = "mysql" if path.endswith(".CSV") else "postgres"
        rows = mysql_rows(path) if family == "mysql" else pg_rows(path)
        for user, kind, db, text in rows:
            if text.startswith(HARNESS):
                continue
            c[(family, norm(user), kind, norm(db), norm(text))] += 1
    return c


OBJECT = re.compile(r"[`'\"]?([a-z][a-z]*)_N(?:_N)+")


def object_of(text):
    m = OBJECT.search(text)
    return m.group(1) if m else "-"


def by_object(before, after):
    sums = collections.defaultdict(lambda: [0, 0, 0])
    only = []
    for k in set(before) | set(after):
        b, a = before[k], after[k]
        if a == b:
            continue
        o = sums[k[0] + ":" + object_of(k[4])]
        o[0] += b
        o[1] += a
        o[2] += 1
        if a == 0 or b == 0:
            only.append((("before only" if a == 0 else "after only"), k))
    print("# differing statements by family and object: before\tafter\tkeys")
    for name, (b, a, n) in sorted(sums.items(), key=lambda x: -abs(x[1][1] - x[1][0])):
        print(f"{name}\t{b}\t{a}\t{n}")
    print("# statements only one run sent")
    for which, k in sorted(only):
        print(which, "\t".join(k), sep="\t")


def main(argv):
    if len(argv) == 4 and argv[1] == "--by-object":
        by_object(counts(argv[2]), counts(argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == "--counts":
        for k, n in sorted(counts(argv[2]).items()):
            print(n, "\t".join(k), sep="\t")
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = counts(argv[1]), counts(argv[2])
    changed = 0
    for k in sorted(set(before) | set(after)):
        if before[k] != after[k]:
            changed += 1
            print(f"{before[k]}\t{after[k]}\t" + "\t".join(k))
    total_b, total_a = sum(before.values()), sum(after.values())
    print(f"# statements: before {total_b}, after {total_a}; distinct {len(before)} / {len(after)}; differing {changed}",
          file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
