"""The top of the document: what one run of planner says, in one typed value.

Sections: `stacks` (plan, preflight, the components, the pack: `planner.core.document.stacks`),
`diff`, `compare` and `capacity`, each a frozen dataclass with `to_json()` and `from_json()`
that round-trip exactly (`from_json(to_json(x)) == x`); input problems and the rule metadata
the findings refer to. `Report.to_json()` is what `--format json` writes (docs/output.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from planner.core.document.stacks import COMMAND_LINE_FILES, StackReport
from planner.core.model.findings import SEVERITIES, Severity, at_least, severity_of

VERSION = 2  # the JSON document's version: 1 was `{"version": 1, "stacks": [...]}` of `plan`

Command = Literal["plan", "preflight", "diff", "compare", "capacity", "components", "pack"]
COMMANDS: tuple[str, ...] = get_args(Command)
__all__ = [
    "COMMANDS",
    "SEVERITIES",
    "VERSION",
    "Severity",
    "InputProblem",
    "NotAReport",
    "RenderContext",
    "Report",
    "RuleInfo",
]


class NotAReport(ValueError):
    """The JSON is not a planner report of this version: what `planner render` says in one line,
    with the key path at fault when there is one (`stacks[0].findings[1].line`)."""

    def __init__(self, message: str, key: str = ""):
        self.key = key
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class InputProblem:
    """One unusable input (file, line, key, what was expected): shown in every format, so a
    broken stack file is a SARIF result and an annotation on its line, not only a stderr line."""

    file: str
    line: int | None
    key: str
    message: str

    @property
    def where(self) -> str:
        """`file:line`, or the file alone."""
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def has_file(self) -> bool:
        """False for a problem of the command line itself (`--suppress`, `--include`, ...): no file
        of the repository to point at, so SARIF and annotations give it no file location."""
        return self.file not in COMMAND_LINE_FILES

    @property
    def text(self) -> str:
        """The problem in one line, as planner says it on standard error (`planner.core.reading.problems.Problem`)."""
        from planner.core.reading.problems import Problem

        return str(Problem(self.file, self.line, self.key, self.message))

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "key": self.key, "message": self.message}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> InputProblem:
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
        return {
            "id": self.id,
            "severity": self.severity,
            "description": self.description,
            "source": self.source,
            "remediation": self.remediation,
            "category": self.category,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RuleInfo:
        return cls(
            d["id"], severity_of(d["severity"]), d["description"], d["source"], d["remediation"], d.get("category", "")
        )


@dataclass(frozen=True)
class RenderContext:
    """How to render, not what: the width human output is fitted to (None: natural widths, as
    `--wide`), colour (ANSI styles in human output), and the exit threshold the table's last line
    states (`--fail-on`)."""

    width: int | None = 100  # what planner fits to when piped (planner.core.text.terminal.DEFAULT_WIDTH)
    colour: bool = False
    fail_on: Literal["error", "warning"] = "error"


@dataclass(frozen=True)
class Report:
    """One run of planner. Sections a command does not produce are empty/None."""

    command: Command
    stacks: tuple[StackReport, ...] = ()  # in input order
    problems: tuple[InputProblem, ...] = ()
    # every spec rule (SARIF lists them all), sorted by id, then the other checks the findings
    # name (preflight), sorted by id: the order SARIF's `tool.driver.rules` has
    rules: tuple[RuleInfo, ...] = ()
    diff: Any = None  # DiffSection (planner.core.document.diff_section): base report and per-resource differences
    compare: Any = None  # CompareSection (planner.core.document.compare_section)
    capacity: Any = None  # CapacitySection (planner.core.document.block_offerings_section)
    version: int = VERSION

    def rule(self, rule_id: str) -> RuleInfo | None:
        """A check's metadata, as copied into the document (None: not a check this report knows)."""
        for r in self.rules:
            if r.id == rule_id:
                return r
        return None

    def exit_code(self, fail_on: Severity = "error") -> int:
        """2 on input problems; 1 when an unsuppressed finding at or above `fail_on` exists; else 0."""
        if self.problems:
            return 2
        for s in self.stacks:
            for f in s.findings:
                if not f.suppressed and at_least(f.severity, fail_on):
                    return 1
        return 0

    def to_json(self) -> dict[str, Any]:
        """The document as `--format json` writes it (docs/output.md); `from_json` reads it back."""
        out: dict[str, Any] = {
            "version": self.version,
            "command": self.command,
            "stacks": [s.to_json() for s in self.stacks],
            "problems": [p.to_json() for p in self.problems],
            "rules": [r.to_json() for r in self.rules],
        }
        for name in ("diff", "compare", "capacity"):  # a section only when the command produced it
            section = getattr(self, name)
            if section is not None:
                out[name] = section.to_json()
        return out

    @classmethod
    def from_json(cls, d: Any) -> Report:
        """A saved report; NotAReport (one line) for JSON that is not a planner report of this version."""
        if not isinstance(d, dict) or "version" not in d:
            raise NotAReport(
                "not a planner report (expected a JSON object with `version`, `command` and `stacks`, "
                "as `planner plan --format json` writes)"
            )
        from planner.core.document.validate import Invalid, check_document
        from planner.core.text.safe import excerpt

        if d["version"] != VERSION or isinstance(d["version"], bool):
            raise NotAReport(
                f"a planner report of version {excerpt(d['version'])}; this planner reads version {VERSION} "
                "(re-run the command that wrote it with this planner)"
            )
        if not isinstance(d.get("command"), str) or d.get("command") not in COMMANDS:
            raise NotAReport(
                f"unknown command {excerpt(d.get('command'))} in the report; expected one of {', '.join(COMMANDS)}"
            )
        try:
            report = cls(
                command=d["command"],
                stacks=tuple(StackReport.from_json(s) for s in d.get("stacks") or ()),
                problems=tuple(InputProblem.from_json(p) for p in d.get("problems") or ()),
                rules=tuple(RuleInfo.from_json(r) for r in d.get("rules") or ()),
                **_sections(d),
            )
        except NotAReport:
            raise
        except KeyError as exc:  # a key the document always has is missing
            raise NotAReport(f"not a planner report of version {VERSION}: missing key {excerpt(exc.args[0])}") from None
        except (TypeError, AttributeError, ValueError) as exc:  # a value of the wrong kind
            raise NotAReport(
                f"not a planner report of version {VERSION}: a value of the wrong kind ({excerpt(str(exc), 120)})"
            ) from None
        except RecursionError:
            raise NotAReport("JSON nested too deeply; expected a planner JSON report") from None
        try:  # every field as its type says: one check of the whole document (planner.core.document.validate)
            check_document(report)
        except Invalid as exc:
            raise NotAReport(exc.message, exc.key) from None
        return report


def _sections(d: dict[str, Any]) -> dict[str, Any]:
    """The sections other than stacks (`diff`, `compare`, `capacity`), each read by its own module,
    imported by an explicit `from ... import` only when the section is present."""
    out: dict[str, Any] = {}
    if d.get("compare") is not None:
        from planner.core.document.compare_section import CompareSection

        out["compare"] = CompareSection.from_json(d["compare"])
    if d.get("capacity") is not None:
        from planner.core.document.block_offerings_section import capacity_from_json

        out["capacity"] = capacity_from_json(d["capacity"])
    if d.get("diff") is not None:
        from planner.core.document.diff_section import DiffSection

        out["diff"] = DiffSection.from_json(d["diff"], Report.from_json)
    return out
