"""Input problems: one line each, naming file, line, key and what was expected.

Every adapter (CLI, components, policy pack) reports bad input through these types, so a
user sees the same message wherever the stack is read, and the CLI maps them to exit 2.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
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
