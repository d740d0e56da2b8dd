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

    def to_json(self) -> dict[str, Any]:
        """The JSON document (`--format json`): the version and command, then each section the command produced."""
        out: dict[str, Any] = {"version": self.version, "command": self.command}
        out.update(sections_to_json(self))
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Report":
        return cls(d["command"], version=d["version"], **sections_from_json(d))


# --- the compare, capacity and diff sections ---------------------------------------------

def sections_to_json(report: Report) -> dict[str, Any]:
    """The compare, capacity and diff sections a report holds, under their names (absent when None)."""
    out: dict[str, Any] = {}
    for name in ("compare", "capacity", "diff"):
        value = getattr(report, name)
        if value is not None:
            out[name] = value.to_json()
    return out


def sections_from_json(d: dict[str, Any]) -> dict[str, Any]:
    """The compare, capacity and diff sections of a JSON document, as `Report` keyword arguments."""
    from planner.core.document.capacity import capacity_from_json
    from planner.core.document.compare import CompareSection

    out: dict[str, Any] = {}
    if d.get("compare") is not None:
        out["compare"] = CompareSection.from_json(d["compare"])
    if d.get("capacity") is not None:
        out["capacity"] = capacity_from_json(d["capacity"])
    return out
