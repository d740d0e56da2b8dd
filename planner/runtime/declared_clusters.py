"""Every cluster the planner components declared in this process, in declaration order.

`planner plan --program` runs a Pulumi program under mocks and plans what is recorded
here, so a program written in Python is planned exactly like a stack file. While
`collecting()` is on, components record their stack and carry on instead of raising on
error findings (under mocks nothing is deployed), so one run reports every cluster of
the program.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from planner.core.model.cluster import Stack

_DECLARED: list[Stack] = []
_COLLECTING = False


def record(stack: Stack) -> None:
    _DECLARED.append(stack)


def declared() -> list[Stack]:
    return list(_DECLARED)


def reset() -> None:
    _DECLARED.clear()


def is_collecting() -> bool:
    return _COLLECTING


@contextmanager
def collecting() -> Iterator[list[Stack]]:
    """Record clusters without stopping on error findings; yields the live list."""
    global _COLLECTING
    previous = _COLLECTING
    _COLLECTING = True
    reset()
    try:
        yield _DECLARED
    finally:
        _COLLECTING = previous
