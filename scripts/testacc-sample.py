#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""Samples the CPU of every running Go test binary's process tree.

Used by scripts/testacc-profile.sh (TESTING.md, "Where the time goes"):
once a second, for each process named *.test, the sum of user+system time
(live and reaped) over the process and all its descendants (terraform, the
throwaway servers, sshd, ...), keyed by the binary's TENANTDB_TEST_ENGINES.
Prints "unix_time engines binary pid cpu_seconds" lines until killed.
"""
import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def snapshot():
    procs = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read().decode("latin-1")
        except OSError:
            continue
        # comm may hold spaces: the fields after it start past the last ')'.
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2 :].split()
        ppid = int(fields[1])
        cpu = sum(int(x) for x in fields[11:15]) / TICK
        procs[int(name)] = (comm, ppid, cpu)
    return procs


def engines(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for kv in f.read().split(b"\0"):
                if kv.startswith(b"TENANTDB_TEST_ENGINES="):
                    return kv.split(b"=", 1)[1].decode() or "-"
    except OSError:
        pass
    return "-"


def main():
    interval = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    out = sys.stdout
    while True:
        now = time.time()
        procs = snapshot()
        children = {}
        for pid, (_, ppid, _) in procs.items():
            children.setdefault(ppid, []).append(pid)
        for pid, (comm, _, _) in procs.items():
            if not comm.endswith(".test"):
                continue
            total, stack = 0.0, [pid]
            while stack:
                p = stack.pop()
                total += procs[p][2]
                stack.extend(children.get(p, ()))
            out.write(f"{now:.1f} {engines(pid)} {comm} {pid} {total:.2f}\n")
        out.flush()
        time.sleep(interval)


if __name__ == "__main__":
    main()
