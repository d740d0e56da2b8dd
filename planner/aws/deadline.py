"""An overall time limit on the AWS calls of one command (`--aws-timeout`, default 60 s).

botocore's connect and read timeouts bound each HTTP attempt, and its retry budget bounds
the attempts, but neither bounds a `credential_process` that hangs (botocore waits for it
without a timeout) nor the sum of many slow calls. A CI job must not wait minutes for an
answer that is not coming: past the deadline, the call in progress is interrupted (a
SIGALRM timer, on the main thread) and every later AWS call of the command fails at once,
as a `preflight-aws-error` finding or a live-price warning, never a hang.

The timer only interrupts code inside `calling()` (an AWS call in progress), and it keeps
firing every `REFIRE` seconds once the time is up, so an interruption that some library
code catches and ignores is repeated until the call gives up. Between calls, `check()`
stops the next one before it starts.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_SECONDS = 60.0  # the CLI default (planner.commands.AWS_TIMEOUT_SECONDS, which must agree)
REFIRE = 0.25
_state: dict[str, float | None] = {"end": None, "seconds": None, "calls": 0}


class DeadlineExceeded(Exception):
    """The command's time for AWS calls is up; the message says how long it was."""


def message(seconds: float) -> str:
    return (
        f"no answer from AWS within {seconds:g} s (the --aws-timeout deadline; a hung credential_process, "
        "proxy or endpoint?)"
    )


def check() -> None:
    """Raise DeadlineExceeded when the current deadline has passed (before starting a call)."""
    end, seconds = _state["end"], _state["seconds"]
    if end is not None and seconds is not None and time.monotonic() >= end:
        raise DeadlineExceeded(message(seconds))


def _alarm(signum: int, frame: object) -> None:
    if _state["calls"]:
        raise DeadlineExceeded(message(_state["seconds"] or 0.0))


@contextmanager
def calling() -> Iterator[None]:
    """Around one AWS call (or credential lookup): refused once the time is up, interrupted when it runs out."""
    check()
    _state["calls"] = (_state["calls"] or 0) + 1
    try:
        yield
    finally:
        _state["calls"] = (_state["calls"] or 1) - 1


@contextmanager
def limit(seconds: float | None) -> Iterator[None]:
    """AWS calls inside this block share `seconds` (None: no overall limit).

    The interrupting timer needs the main thread and SIGALRM; elsewhere (a thread, Windows)
    only `check()` and botocore's own timeouts apply.
    """
    if seconds is None:
        yield
        return
    previous = dict(_state)
    _state["end"], _state["seconds"], _state["calls"] = time.monotonic() + seconds, seconds, 0
    use_timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    old_handler = None
    if use_timer:
        old_handler = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE)
    try:
        yield
    finally:
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)
        _state.update(previous)
