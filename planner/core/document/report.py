"""The top of the document: what one run of planner says, in one typed value.

SKELETON written by the lead so that several engineers can fill sections in parallel:
`stacks` (plan/preflight/components/pack), `diff`, `compare` and `capacity` are owned by the
engineers named in /work/brief/common.md; each section is a frozen dataclass with
`to_json()` and `from_json()` that round-trip exactly (from_json(to_json(x)) == x).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # each section lives in its own module of this package
    pass

VERSION = 2  # the JSON document's version: 1 was `{"version": 1, "stacks": [...]}` of `plan`

Command = Literal["plan", "preflight", "diff", "compare", "capacity", "components", "pack"]


@dataclass(frozen=True)
class InputProblem:
    """One unusable input (file, line, key, what was expected): shown in every format, so a
    broken stack file is a SARIF result and an annotation on its line, not only a stderr line."""

    file: str
    line: int | None
    key: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "key": self.key, "message": self.message}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "InputProblem":
        return cls(d["file"], d.get("line"), d.get("key", ""), d["message"])


@dataclass(frozen=True)
class RuleInfo:
    """A check's metadata copied into the document (renderers never ask the registry)."""

    id: str
    severity: Literal["error", "warning", "info"]
    description: str
    source: str
    remediation: str
    category: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "description": self.description,
                "source": self.source, "remediation": self.remediation, "category": self.category}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RuleInfo":
        return cls(d["id"], d["severity"], d["description"], d["source"], d["remediation"], d.get("category", ""))


@dataclass(frozen=True)
class RenderContext:
    """How to render, not what: terminal width (None: not a terminal), colour, the exit threshold."""

    width: int | None = None
    colour: bool = False
    fail_on: Literal["error", "warning"] = "error"


@dataclass(frozen=True)
class Report:
    """One run of planner. Sections a command does not produce are empty/None."""

    command: Command
    stacks: tuple[Any, ...] = ()  # StackReport (planner.core.document.stacks), in input order
    problems: tuple[InputProblem, ...] = ()
    rules: tuple[RuleInfo, ...] = ()  # every registered check (SARIF lists them all), sorted by id
    diff: Any = None  # DiffSection (planner.core.document.diff): base report and per-resource differences
    compare: Any = None  # CompareSection (planner.core.document.compare)
    capacity: Any = None  # CapacitySection (planner.core.document.capacity)
    version: int = VERSION
