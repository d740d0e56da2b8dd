"""What every report says the same way: counts per severity, findings in the order people act
on them, and how text is made safe for a Markdown table cell. Works on the document alone."""

from __future__ import annotations

from collections.abc import Iterable

from planner.core.document import SEVERITIES, Report, ReportedFinding, Severity, StackReport


def counts(findings: Iterable[ReportedFinding]) -> dict[str, int]:
    """Unsuppressed findings per severity, plus `suppressed` (all severities)."""
    out: dict[str, int] = {s: 0 for s in SEVERITIES}
    out["suppressed"] = 0
    for f in findings:
        out["suppressed" if f.suppressed else f.severity] += 1
    return out


def count_text(c: dict[str, int], short: bool = False) -> str:
    """`1 error, 2 warnings, 0 info, 1 suppressed`; `short`: only the non-zero ones (`1 error, 1 suppressed`)."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"

    if short:
        words = (("error", "error"), ("warning", "warning"), ("info", "info"), ("suppressed", "suppressed"))
        return (
            ", ".join(plural(c[k], w) if k != "suppressed" else f"{c[k]} suppressed" for k, w in words if c[k])
            or "none"
        )
    return (
        ", ".join([plural(c["error"], "error"), plural(c["warning"], "warning"), plural(c["info"], "info")])
        + f", {c['suppressed']} suppressed"
    )


UNDONE = {
    "compare": "nothing compared",
    "capacity": "nothing searched",
}  # else: nothing planned (plan, preflight, diff)


def problems_text(report: Report) -> str:
    """`1 input problem, nothing planned`: what a report of unusable input says instead of counts,
    in the words of its command (`compare`: nothing compared; `capacity`: nothing searched)."""
    n = len(report.problems)
    return f"{n} input problem{'' if n == 1 else 's'}, {UNDONE.get(report.command, 'nothing planned')}"


def md_cell(text: str) -> str:
    """Text for one Markdown table cell: inert (`planner.core.text.md_inert`), on one line, no pipes."""
    from planner.core.text import md_inert

    return md_inert(text)


# --- Findings for people: most important first, repeats collapsed, moot ones left out -----

import re as _re
from dataclasses import dataclass as _dataclass

_GROUP = _re.compile(r"node group '((?:[^'\\]|\\.)*)'")


@_dataclass(frozen=True)
class Shown:
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
        fix = first.fix or (None if r is None else r.remediation)
        if len(found) > 1 and first.fix:  # the fix names the first group: name them all
            fix = first.fix.replace(f"node group '{names[key][0]}'", "node groups " + listed, 1)
        reason = None if first.suppression is None else first.suppression.reason
        out.append(Shown(first, message, where_text, fix, reason, len(found)))
    return out
