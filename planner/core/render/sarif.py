"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

One run, tool `planner`, with every registered rule as `tool.driver.rules` metadata (so a
viewer can explain a rule that did not fire in this run) and one result per finding,
located at the stack file and line of the value at fault, with its key path (for a cluster
read back from a program's resources, the resource's URN instead) as logical location. Suppressed findings stay, with a
`suppressions` entry: `inSource` when the stack file suppresses the rule (with its
reason: its `suppress:` list, or a program resource's tag or comment), `external` when the command
line, the policy pack's config or the baseline did; a run judged against a baseline (`--baseline`)
gives each result its `baselineState` (`unchanged`: recorded there, `new`). GitHub hides suppressed results. Unusable
input (a broken stack file) is a result too, of the rule `invalid-input`, on its line; a
problem of the command line itself (a bad `--suppress`), which is in no file, is a tool
execution notification of the run instead (GitHub code scanning refuses a result without a
location).
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any

from planner import __version__
from planner.core.document import (
    BaselineFixed,
    InputProblem,
    RenderContext,
    Report,
    ReportedFinding,
    RuleInfo,
    UnusedSuppressionReport,
)
from planner.core.document.stacks import EXTERNAL
from planner.core.render.json_report import dumps
from planner.core.text.safe import md_prose

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str:
    """The artifact URI: the relative path as given (forward slashes), or a file:// URI for
    absolute paths; percent-encoded (RFC 3986), so `#`, `%`, `?` and spaces in a file name
    stay part of the path instead of starting a fragment or a query."""
    from urllib.parse import quote

    if os.path.isabs(file):
        return "file://" + quote(PurePath(file).as_posix(), safe="/")
    return quote(PurePath(file).as_posix(), safe="/")


INVALID_INPUT = "invalid-input"  # the rule of an input problem's result (no check: planner could not read the input)
_INVALID_INPUT = {
    "id": INVALID_INPUT,
    "name": "InvalidInput",
    "shortDescription": {"text": "Input planner cannot use: nothing was planned."},
    "fullDescription": {
        "text": "A stack file (or another input) that planner cannot read or that is not valid; "
        "nothing was planned or priced."
    },
    "help": {
        "text": "Correct the key the result names, as its message says; `planner schema` prints the stack schema.",
        "markdown": "**Fix:** correct the key the result names, as its message says; `planner schema` prints "
        "the stack schema.",
    },
    "defaultConfiguration": {"level": "error"},
    "properties": {"tags": ["planner", "input"]},
}


def _rule_descriptor(r: RuleInfo) -> dict[str, Any]:
    # every rule's source is a public https page (planner.core.rules.rule refuses any other)
    out: dict[str, Any] = {
        "id": r.id,
        "name": "".join(part.capitalize() for part in r.id.split("-")),
        "shortDescription": {"text": r.description},
        "fullDescription": {"text": r.description},
        # the markdown is rendered by GitHub: the report's text made inert (a saved report is
        # anyone's file); the source is an https URL of plain characters (document.codec)
        "help": {"text": r.remediation, "markdown": f"**Fix:** {md_prose(r.remediation)}\n\nSource: {r.source}"},
        "defaultConfiguration": {"level": LEVELS[r.severity]},
        "properties": {"tags": ["planner", r.category]},
        "helpUri": r.source,
    }
    return out


def _logical(f: ReportedFinding) -> list[dict[str, Any]]:
    """The key path (`member`) of a stack file's value; for a value read back from a program, the
    resource's URN (`resource`) alone: the program has no `planner:cluster` key path."""
    if f.resource:
        return [{"fullyQualifiedName": f.resource, "kind": "resource"}]
    return [{"fullyQualifiedName": f.path, "kind": "member"}] if f.path else []


def _result(f: ReportedFinding, index: dict[str, int], baseline: bool = False) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(f.file)}}
    if f.line:
        location["region"] = {"startLine": f.line}
    out: dict[str, Any] = {
        "ruleId": f.rule,
        "level": LEVELS[f.severity],
        "message": {"text": f.message + (f". Fix: {f.fix.text}" if f.fix and not f.suppressed else "")},
        "locations": [{"physicalLocation": location}],
    }
    if f.rule in index:
        out["ruleIndex"] = index[f.rule]
    logical = _logical(f)
    if logical:
        out["locations"][0]["logicalLocations"] = logical
    if f.suppression is not None:
        # SARIF knows two kinds: a finding the baseline records is accepted outside the source
        kind = EXTERNAL if f.baselined else f.suppression.kind
        out["suppressions"] = [{"kind": kind, "justification": f.suppression.reason}]
    if baseline:  # the run was judged against a baseline (`--baseline`): SARIF's own comparison
        out["baselineState"] = "unchanged" if f.baselined else "new"
    return out


def _problem(p: InputProblem, index: dict[str, int]) -> dict[str, Any]:
    """An input problem as an error result on its line (the key path as its logical location)."""
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(p.file)}}
    if p.line:
        location["region"] = {"startLine": p.line}
    out: dict[str, Any] = {
        "ruleId": INVALID_INPUT,
        "ruleIndex": index[INVALID_INPUT],
        "level": "error",
        "message": {"text": _problem_text(p)},
        "locations": [{"physicalLocation": location}],
    }
    if p.key:
        out["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": p.key, "kind": "member"}]
    return out


def _problem_text(p: InputProblem) -> str:
    return f"{p.key}: {p.message}" if p.key else p.message


def _command_line_problem(p: InputProblem, index: dict[str, int]) -> dict[str, Any]:
    """A problem of the command line itself (`--suppress`, `--include`) as a tool execution
    notification of the run: it is about no file, and GitHub code scanning rejects the whole
    upload when a result has no location ("locationFromSarifResult: expected at least one
    location"), so it is not a result."""
    return {
        "level": "error",
        "message": {"text": _problem_text(p)},
        "associatedRule": {"id": INVALID_INPUT, "index": index[INVALID_INPUT]},
    }


def to_sarif(report: Report) -> dict[str, Any]:
    """The report as one SARIF run.

    Input problems: a problem on a file's line is an `invalid-input` result there, and the
    run's invocation says `executionSuccessful: true` with exit code 2 (planner ran, and what it
    found is that file's problem): GitHub code scanning does not process the results of an
    upload whose invocation says `false` (it answers "unsuccessful execution" and keeps the
    alerts as they were: github/codeql-action#1316, #1393, #1732), so a broken stack file would
    never show on the pull request. A problem of an option is in no file and cannot be a result
    (see `_command_line_problem`); then the run says `false`: an upload that fails visibly,
    not a run that looks clean.
    """
    plans = report.stacks
    # the spec rules, then the preflight checks its findings name (planner preflight): `report.rules`
    descriptors = [_rule_descriptor(r) for r in report.rules]
    if report.problems:
        descriptors.append(_INVALID_INPUT)
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = [_result(f, index, report.baseline is not None) for p in plans for f in p.findings]
    results += [_problem(p, index) for p in report.problems if p.has_file]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "planner",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": descriptors,
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    notes = [_unused(u) for p in plans for u in p.unused_suppressions]
    notes += [_fixed(p.file, b) for p in plans for b in p.baseline_fixed]
    if notes:  # not results (no rule fired): notes about the run, as SARIF has them
        run["invocations"] = [{"executionSuccessful": True, "toolConfigurationNotifications": notes}]
    if report.problems:  # the run stopped on its input
        arguments = [_command_line_problem(p, index) for p in report.problems if not p.has_file]
        invocation: dict[str, Any] = {
            "executionSuccessful": not arguments,
            "exitCode": 2,
            "exitCodeDescription": "unusable input: nothing was planned",
        }
        if arguments:
            invocation["toolExecutionNotifications"] = arguments
        run["invocations"] = [invocation]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _unused(u: UnusedSuppressionReport) -> dict[str, Any]:
    """A configuration notification (level note) for a suppression that suppressed nothing."""
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(u.file)}}
    if u.line:
        location["region"] = {"startLine": u.line}
    out: dict[str, Any] = {
        "level": "note",
        "message": {"text": u.message},
        "locations": [{"physicalLocation": location}],
        "associatedRule": {"id": u.rule},
    }
    if u.path:
        out["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": u.path, "kind": "member"}]
    return out


def _fixed(file: str, b: BaselineFixed) -> dict[str, Any]:
    """A configuration notification (level note) for a baseline entry no longer found: not a result,
    which GitHub code scanning would show as an alert (SARIF's `absent` results are for a tool that
    keeps the results themselves)."""
    out: dict[str, Any] = {
        "level": "note",
        "message": {"text": b.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(file)}}}],
        "associatedRule": {"id": b.rule},
    }
    logical = [{"fullyQualifiedName": b.resource, "kind": "resource"}] if b.resource else []
    logical += [{"fullyQualifiedName": b.path, "kind": "member"}] if b.path else []
    if logical:
        out["locations"][0]["logicalLocations"] = logical
    return out


def render(report: Report, context: RenderContext = RenderContext()) -> str:
    return dumps(to_sarif(report))
