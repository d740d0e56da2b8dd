"""The top of the document: what one run of planner says, in one typed value.

Sections: `stacks` (plan, preflight, the components, the pack: `planner.core.document.stacks`),
`diff`, `compare` and `capacity`, each a frozen record; input problems and the rule metadata
the findings refer to. One codec (`planner.core.document.codec`) writes and reads them all, so
`load_report(dump(report)) == report`; `dump(report)` is what `--format json` writes
(docs/output.md), and `load_report` reads a saved report, checking every value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, ClassVar, Literal, get_args

from msgspec import Struct

from planner.core.document import codec
from planner.core.document.codec import key
from planner.core.document.stacks import COMMAND_LINE_FILES, StackReport
from planner.core.model.findings import SEVERITIES, Severity, at_least

if TYPE_CHECKING:  # sections a `plan` never has: their modules load when a report holds one
    from planner.core.document.block_offerings_section import CapacityExtension, CapacitySearch
    from planner.core.document.compare_section import CompareSection
    from planner.core.document.diff_section import DiffSection

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


class InputProblem(Struct, frozen=True):
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


class RuleInfo(Struct, frozen=True):
    """A check's metadata copied into the document (renderers never ask the registry)."""

    id: str
    severity: Literal["error", "warning", "info"]
    description: str
    source: Annotated[str, key(url=True)]  # SARIF's helpUri: an https URL of plain characters
    remediation: str
    category: str


class RenderContext(Struct, frozen=True):
    """How to render, not what: the width human output is fitted to (None: natural widths, as
    `--wide`), colour (ANSI styles in human output), and the exit threshold the table's last line
    states (`--fail-on`)."""

    width: int | None = 100  # what planner fits to when piped (planner.core.text.terminal.DEFAULT_WIDTH)
    colour: bool = False
    fail_on: Literal["error", "warning"] = "error"


class Report(Struct, frozen=True):
    """One run of planner. Sections a command does not produce are empty/None."""

    command: Command
    stacks: tuple[StackReport, ...] = ()  # in input order
    problems: tuple[InputProblem, ...] = ()
    # every spec rule (SARIF lists them all), sorted by id, then the other checks the findings
    # name (preflight), sorted by id: the order SARIF's `tool.driver.rules` has
    rules: tuple[RuleInfo, ...] = ()
    # a section only when the command produced it
    diff: Annotated[DiffSection | None, key(omit="none")] = None  # base report, per-stack changes
    compare: Annotated[CompareSection | None, key(omit="none")] = None
    capacity: Annotated[CapacitySearch | CapacityExtension | None, key(omit="none")] = None
    # the baseline file the findings were judged against (`--baseline`, `--create-baseline`), when one was
    baseline: Annotated[str | None, key(omit="none")] = None
    version: int = VERSION

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "version",
        "command",
        "baseline",
        "stacks",
        "problems",
        "rules",
        "diff",
        "compare",
        "capacity",
    )

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


def load_report(d: object) -> Report:
    """A saved report; NotAReport (one line, with the key path at fault) for JSON that is not a planner
    report of this version, or a value that is not what its type says (`planner.core.document.codec`)."""
    from planner.core.text.safe import excerpt

    if not isinstance(d, dict) or "version" not in d:
        raise NotAReport(
            "not a planner report (expected a JSON object with `version`, `command` and `stacks`, "
            "as `planner plan --format json` writes)"
        )
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
        return codec.load(Report, d)
    except codec.Invalid as exc:
        said = (
            f"not a planner report of version {VERSION}: {exc.message}" if "missing key" in exc.message else exc.message
        )
        raise NotAReport(said, exc.key) from None
    except RecursionError:
        raise NotAReport("JSON nested too deeply; expected a planner JSON report") from None


@codec.resolves_names
def _sections() -> None:
    """The sections' types, named in `Report`'s hints, for the codec to resolve."""
    from planner.core.document.block_offerings_section import CapacityExtension, CapacitySearch
    from planner.core.document.compare_section import CompareSection
    from planner.core.document.diff_section import DiffSection

    codec.register(Report, DiffSection, CompareSection, CapacitySearch, CapacityExtension, SideReport=Report)
