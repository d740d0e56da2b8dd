"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

One run, tool `planner`, with every registered rule as `tool.driver.rules` metadata (so a
viewer can explain a rule that did not fire in this run) and one result per finding,
located at the stack file and line of the value at fault, with its key path (for a cluster
read back from a program's resources, the resource's URN instead) as logical location. Suppressed findings stay, with a
`suppressions` entry: `inSource` when the stack file suppresses the rule (with its
reason), `external` when the command line did. GitHub hides suppressed results.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any, Iterable

from planner import __version__
from planner.findings import Finding
from planner.locate import Location, of
from planner.pipeline import StackPlan
from planner.report.digest import suppression
from planner.report.json_report import dumps

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


def _rule_descriptor(r: Any) -> dict[str, Any]:  # noqa: ANN401 - planner.rules.Rule
    # every rule's source is a public https page (planner.rules.rule refuses any other)
    out: dict[str, Any] = {
        "id": r.id,
        "name": "".join(part.capitalize() for part in r.id.split("-")),
        "shortDescription": {"text": r.description},
        "fullDescription": {"text": r.description},
        "help": {"text": r.remediation, "markdown": f"**Fix:** {r.remediation}\n\nSource: {r.source}"},
        "defaultConfiguration": {"level": LEVELS[r.severity]},
        "properties": {"tags": ["planner", r.category]},
        "helpUri": r.source,
    }
    return out


def _logical(where: Location) -> list[dict[str, Any]]:
    """The key path (`member`) of a stack file's value; for a value read back from a program, the
    resource's URN (`resource`) alone: the program has no `planner:cluster` key path."""
    if where.logical:
        return [{"fullyQualifiedName": where.logical, "kind": "resource"}]
    return [{"fullyQualifiedName": where.path, "kind": "member"}] if where.path else []


def _result(plan: StackPlan, f: Finding, index: dict[str, int]) -> dict[str, Any]:
    where = of(f)
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(where.file)}}
    if where.line:
        location["region"] = {"startLine": where.line}
    out: dict[str, Any] = {
        "ruleId": f.rule,
        "level": LEVELS[f.severity],
        "message": {"text": f.message + (f". Fix: {f.fix}" if f.fix and not f.suppressed else "")},
        "locations": [{"physicalLocation": location}],
    }
    if f.rule in index:
        out["ruleIndex"] = index[f.rule]
    logical = _logical(where)
    if logical:
        out["locations"][0]["logicalLocations"] = logical
    sup = suppression(plan, f)
    if sup is not None:
        out["suppressions"] = [{"kind": sup[0], "justification": sup[1]}]
    return out


def to_sarif(plans: Iterable[StackPlan]) -> dict[str, Any]:
    from planner import rules

    plans = list(plans)
    named = {f.rule for p in plans for f in p.findings}
    ids = rules.known()  # the rules, then the preflight checks its findings name (planner preflight)
    descriptors = [_rule_descriptor(r) for r in rules.registry().values()]
    descriptors += [_rule_descriptor(ids[i]) for i in sorted(named - set(rules.registry())) if i in ids]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = [_result(p, f, index) for p in plans for f in p.findings]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "planner",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": descriptors,
        }},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    notes = [_unused(u) for p in plans for u in p.unused_suppressions]
    if notes:  # not results (no rule fired): notes about the run, as SARIF has them
        run["invocations"] = [{"executionSuccessful": True, "toolConfigurationNotifications": notes}]
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _unused(u: Any) -> dict[str, Any]:  # noqa: ANN401 - planner.pipeline.UnusedSuppression
    """A configuration notification (level note) for a suppression that suppressed nothing."""
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(u.file)}}
    if u.line:
        location["region"] = {"startLine": u.line}
    out: dict[str, Any] = {"level": "note", "message": {"text": u.message},
                           "locations": [{"physicalLocation": location}],
                           "associatedRule": {"id": u.rule}}
    if u.key:
        out["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": u.key, "kind": "member"}]
    return out


def render(plans: Iterable[StackPlan]) -> str:
    return dumps(to_sarif(plans))
