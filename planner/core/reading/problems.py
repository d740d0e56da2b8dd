"""Input problems: one line each, naming file, line, key and what was expected.

Every adapter (CLI, components, policy pack) reports bad input through these types, so a
user sees the same message wherever the stack is read, and the CLI maps them to exit 2.
"""

from __future__ import annotations

from msgspec import Struct


class Problem(Struct, frozen=True):
    """One unusable input: the file, line and key at fault and what was expected (one CLI line)."""

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class InputError(Exception):
    """Unusable input: the run stops before anything is written or deployed."""

    def __init__(self, problems: list[Problem]):
        # file then line order, as an editor shows them; stable, so same-line order is kept
        self.problems = sorted(problems, key=lambda p: (p.file, p.line or 0))
        super().__init__("\n".join(str(p) for p in self.problems))


def error_line(text: str) -> None:
    """One line on standard error, whatever `text` holds (`one_line`): a value with a line
    break must not start a line of its own, which GitHub would read as a workflow command.
    Here, not in the CLI, so adapters (live prices) can warn without importing an entry point."""
    import sys

    from planner.core.text.safe import one_line

    try:
        print(f"planner: {one_line(text)}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # no stderr left to tell: the exit code says it
        pass
