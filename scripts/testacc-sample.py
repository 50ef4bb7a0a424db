#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""Samples the CPU of every running Go test binary's process tree.

Used by scripts/testacc-profile.sh (TESTING.md, "Where the time goes"):
once a second, for each process named *.test, the sum of user+system time
(live and reaped) over the process and all its descendants (terraform, the
throwaway servers, sshd, ...), keyed by the binary's run (TENANTDB_TESTACC_JOB, else TENANTDB_TEST_ENGINES).
Prints "unix_time engines binary pid cpu_s own_s reaped_s rest_s" lines
until killed: own is the binary's (the provider served in-process and the
test code), reaped what it started and waited for (terraform, tools), rest
the live remainder of its tree (the throwaway servers, sshd). Only test
binaries running in the current directory's tree are sampled.
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
        own = (int(fields[11]) + int(fields[12])) / TICK
        reaped = (int(fields[13]) + int(fields[14])) / TICK
        procs[int(name)] = (comm, ppid, own + reaped, own, reaped)
    return procs


def engines(pid):
    """The binary's run: TENANTDB_TESTACC_JOB (scripts/testacc.sh names
    every run), else its TENANTDB_TEST_ENGINES."""
    found = {}
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for kv in f.read().split(b"\0"):
                k, _, v = kv.partition(b"=")
                found[k] = v.decode()
    except OSError:
        pass
    return found.get(b"TENANTDB_TESTACC_JOB") or found.get(b"TENANTDB_TEST_ENGINES") or "-"


def under(pid, root):
    try:
        return os.readlink(f"/proc/{pid}/cwd").startswith(root)
    except OSError:
        return False


def main():
    root = os.getcwd()
    interval = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    out = sys.stdout
    while True:
        now = time.time()
        procs = snapshot()
        children = {}
        for pid, (_, ppid, *_) in procs.items():
            children.setdefault(ppid, []).append(pid)
        for pid, (comm, *_) in procs.items():
            # go test runs a binary in its package's directory: only this
            # checkout's tests count, not another checkout's on the machine.
            if not comm.endswith(".test") or not under(pid, root):
                continue
            total, stack = 0.0, [pid]
            while stack:
                p = stack.pop()
                total += procs[p][2]
                stack.extend(children.get(p, ()))
            # The binary itself (the provider served in-process and the
            # test code), what it ran and reaped (terraform, tools), and
            # the rest of its tree (the throwaway servers, sshd, ...).
            own, reaped = procs[pid][3], procs[pid][4]
            rest = total - own - reaped
            out.write(f"{now:.1f} {engines(pid)} {comm} {pid} {total:.2f} {own:.2f} {reaped:.2f} {rest:.2f}\n")
        out.flush()
        time.sleep(interval)


if __name__ == "__main__":
    main()
