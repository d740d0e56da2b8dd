"""Findings for people: most important first, repeats collapsed, moot ones left out."""

from __future__ import annotations

import re

from msgspec import Struct

from planner.core.document import Report, ReportedFinding, Severity, StackReport

_GROUP = re.compile(r"node group '((?:[^'\\]|\\.)*)'")


class Shown(Struct, frozen=True):
    """One finding as people see it: maybe standing for several node groups' identical findings."""

    finding: ReportedFinding
    message: str
    where: str
    fix: str | None
    suppressed_reason: str | None
    count: int = 1


def moot(stack: StackReport) -> set[ReportedFinding]:
    """`price-unknown` findings about a node group or file system that an error already rules out:
    a price for a part that cannot be deployed as declared is not the thing to fix."""
    ruled_out = {p for f in stack.findings if f.severity == "error" and not f.suppressed and f.line for p in f.parts}
    return {f for f in stack.findings if f.rule == "price-unknown" and f.line and ruled_out.intersection(f.parts)}


_ORDER = {"error": 0, "warning": 1, "info": 2}


def for_people(stack: StackReport, report: Report) -> list[Shown]:
    """The stack's findings in the order to act on them: unsuppressed before suppressed, then
    severity, then file and line. Findings of one rule that differ only in the node group they
    name collapse into one naming all the groups; moot `price-unknown` findings are left out.
    A finding without a fix of its own gets its rule's remediation (from `report.rules`)."""
    skip = moot(stack)
    ordered = sorted(
        (f for f in stack.findings if f not in skip),
        key=lambda f: (f.suppressed, _ORDER[f.severity], f.file, f.line or 0, f.rule, f.message),
    )
    groups: dict[tuple[bool, Severity, str, str, str], list[ReportedFinding]] = {}
    names: dict[tuple[bool, Severity, str, str, str], list[str]] = {}
    for f in ordered:
        m = _GROUP.search(f.message)
        template = f.message if m is None else f.message[: m.start()] + "\0" + f.message[m.end() :]
        key = (f.suppressed, f.severity, f.rule, f.file, template)
        groups.setdefault(key, []).append(f)
        names.setdefault(key, []).append("" if m is None else m.group(1))
    out = []
    for key, found in groups.items():
        first = found[0]
        message = first.message
        listed = ""
        if len(found) > 1:
            quoted = [f"'{n}'" for n in names[key]]
            listed = ", ".join(quoted[:-1]) + " and " + quoted[-1]
            message = key[4].replace("\0", f"node groups {listed}", 1)
        lines = [str(f.line) for f in found if f.line]
        where_text = first.file + (f":{', '.join(lines)}" if lines else "")
        if first.resource and len(found) == 1:
            where_text = first.where
        r = report.rule(first.rule)
        # each group's own fix (said for its group), once each; else the rule's remediation
        fixes = "; ".join(dict.fromkeys(f.fix.text for f in found if f.fix is not None))
        fix = fixes or (None if r is None else r.remediation)
        reason = None if first.suppression is None else first.suppression.reason
        out.append(Shown(first, message, where_text, fix, reason, len(found)))
    return out
