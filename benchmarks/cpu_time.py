"""The CPU time of a command and of every process it starts, Chromium's renderers included.

``/usr/bin/time`` (and the shell's ``time``) add a child's CPU only once the child is waited
for, with the CPU of the children it waited for itself. Chromium's renderers and GPU process are
started through its zygote and are not waited for when the browser closes: they are re-parented
to init, and their CPU (most of a browser test's) is counted by nobody. This runs the command as
a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): orphans of the command's process tree are
re-parented here and waited for, so their CPU counts too.

    python benchmarks/cpu_time.py [-o FILE] -- COMMAND [ARG ...]

prints (or writes to FILE) ``<user> user <sys> sys <wall> wall rc <exit code>`` in seconds, and
exits with the command's exit code.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def run(argv: list[str]) -> tuple[float, float, float, int]:
    """(user, system, wall seconds, exit code) of ``argv`` and all its descendants."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    code = 0
    while True:
        try:
            done, status = os.wait()
        except ChildProcessError:
            # An orphan is re-parented here only once its own parent is gone: look again.
            time.sleep(0.5)
            try:
                done, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if done == 0:
                continue
        if done == pid:
            code = os.waitstatus_to_exitcode(status)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime, used.ru_stime, time.monotonic() - start, code


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", help="write the line here instead of printing it")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    opts = parser.parse_args(args)
    command = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    if not command:
        parser.error("no command given")
    user, system, wall, code = run(command)
    line = f"{user:.2f} user {system:.2f} sys {wall:.2f} wall rc {code}"
    if opts.output:
        with open(opts.output, "w", encoding="utf-8") as f:
            f.write(line + "\n")
    else:
        print(line, file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
