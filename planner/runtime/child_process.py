"""The child process of `planner plan --program`: runs the user's program, sends back one JSON message.

`python -m planner.runtime.child_process REQUEST` (REQUEST: JSON with the project folder, the
stack, the caller's working directory and the result file). The program's own output is
sent to stderr, so nothing it prints can reach the report; whatever it does to its
process (`sys.exit`, `os._exit`, an exception derived from BaseException) ends this
process, not the command, which then says so in one line. The message is written to the
result file, and only once the program has finished.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    request = json.loads(argv[0])
    from planner.runtime.sandbox import apply_limits, die_with_parent

    die_with_parent(request["parent"])  # first: a planner killed from here on takes this process with it
    os.dup2(2, 1)  # the program's prints (even os.write(1, ...)) go to stderr
    apply_limits(request.get("limits") or {})  # before the program (and pulumi) start: they cannot be raised
    from planner.core.reading.problems import InputError
    from planner.runtime.offline_run import collect

    try:
        message = collect(request["directory"], request["stack"], request["origin"])
    except InputError as exc:
        message = {
            "problems": [{"file": p.file, "line": p.line, "key": p.key, "message": p.message} for p in exc.problems]
        }
    tmp = request["result"] + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(message, fh)
    os.replace(tmp, request["result"])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no exit handlers the program registered run after its message is written


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
