"""`python -m planner.runtime.watchdog CHILD MARKER`: stops a program's run when planner dies.

While `planner plan --program` runs a program on Linux, `planner.runtime.sandbox.run`
starts this process beside it, in a session of its own, with the read end of a pipe whose
write end only planner holds. The kernel closes that end when planner's process ends,
however it ends: a SIGKILL, an out-of-memory kill, a runner's hard stop, which planner
cannot handle. At end of file this process kills what the run started
(`sandbox.kill_everything`: the program's group and whatever left it), which the program's
own death signal (`sandbox.die_with_parent`) does not reach: it is not inherited by the
program's children. When planner ends the run itself, it kills this process first, so
nothing is scanned for a run that is over.

Interrupts meant for planner (Ctrl-C at a terminal, a SIGTERM or SIGHUP to planner's
group) are ignored here: planner stops the run then, and this process must outlive it.
"""

from __future__ import annotations

import os
import signal
import sys


def main(argv: list[str]) -> int:
    child, marker = int(argv[0]), argv[1]
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    from planner.runtime.sandbox import kill_everything, non_dumpable

    non_dumpable()  # a program outside the jail cannot read or attach to it

    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    kill_everything(child, marker)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
