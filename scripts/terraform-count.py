#!/usr/bin/env python3
# SPDX-License-Identifier: MPL-2.0
"""Counts the terraform commands the acceptance tests run (TESTING.md, issue 55).

Point the tests at it as their terraform and it runs the real one, then
appends one line per command to TENANTDB_COUNT_LOG (default
/tmp/terraform-count.log): the subcommand, its user and system CPU seconds
(wait4's rusage: the provider processes it started and reaped included),
and its start and end times. The real terraform is TENANTDB_COUNT_TERRAFORM,
else the first `terraform` on PATH.

    TF_ACC_TERRAFORM_PATH=$PWD/scripts/terraform-count.py \\
      go test -json ./internal/provider/ -run TestAcc... > run.json
    scripts/terraform-count-report.py run.json /tmp/terraform-count.log

Each command also pays a Python start (about 0.03 s of wall time, not in
the counted CPU).
"""
import os
import shutil
import sys
import time


def real_terraform():
    named = os.environ.get("TENANTDB_COUNT_TERRAFORM")
    if named:
        return named
    me = os.path.realpath(__file__)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        path = shutil.which("terraform", path=d)
        if path and os.path.realpath(path) != me:
            return path
    sys.exit("terraform-count: no terraform on PATH (set TENANTDB_COUNT_TERRAFORM)")


def main():
    binary = real_terraform()
    start = time.time()
    pid = os.fork()
    if pid == 0:
        os.execv(binary, ["terraform"] + sys.argv[1:])
    _, status, usage = os.wait4(pid, 0)
    sub = next((a for a in sys.argv[1:] if not a.startswith("-")), "?")
    with open(os.environ.get("TENANTDB_COUNT_LOG", "/tmp/terraform-count.log"), "a") as log:
        log.write("%s\t%.3f\t%.3f\t%.3f\t%.3f\n" % (sub, usage.ru_utime, usage.ru_stime, start, time.time()))
    code = os.waitstatus_to_exitcode(status)
    sys.exit(code if code >= 0 else 1)


if __name__ == "__main__":
    main()
