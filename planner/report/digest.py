"""What every report says the same way: counts per severity, why a finding is suppressed,
where it points, and how text is made safe for a Markdown table cell."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from planner.findings import SEVERITIES, Finding

if TYPE_CHECKING:
    from planner.pipeline import StackPlan

IN_SOURCE = "inSource"  # SARIF suppression kinds (the pipeline records them on the finding)
EXTERNAL = "external"


def counts(findings: Iterable[Finding]) -> dict[str, int]:
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
        return ", ".join(plural(c[k], w) if k != "suppressed" else f"{c[k]} suppressed" for k, w in words if c[k]) or "none"
    return ", ".join([plural(c["error"], "error"), plural(c["warning"], "warning"), plural(c["info"], "info")]) + \
        f", {c['suppressed']} suppressed"


def suppression(plan: "StackPlan", f: Finding) -> tuple[str, str] | None:
    """(kind, justification) of a suppressed finding, as the pipeline recorded it: in the stack
    file (with its reason) or on the command line."""
    if not f.suppressed:
        return None
    return f.suppression or (EXTERNAL, f"suppressed on the command line (--suppress {f.rule})")


def where(f: Finding) -> str:
    from planner.locate import of

    return of(f).where()


def md_cell(text: str) -> str:
    """Text for one Markdown table cell: inert (`planner.report.text.md_inert`), on one line, no pipes."""
    from planner.report.text import md_inert

    return md_inert(text)


# --- Findings for people: most important first, repeats collapsed, moot ones left out -----

import re as _re
from dataclasses import dataclass as _dataclass, fields as _fields

_GROUP = _re.compile(r"node group '((?:[^'\\]|\\.)*)'")


@_dataclass(frozen=True)
class Shown:
    """One finding as people see it: maybe standing for several node groups' identical findings."""

    finding: Finding
    message: str
    where: str
    fix: str | None
    suppressed_reason: str | None
    count: int = 1


def _part_lines(plan: "StackPlan") -> list[set[int]]:
    """For each node group and the Lustre file system: the lines of the stack file it spans (its keys)."""
    c = plan.stack.cluster
    parts = list(c.node_groups) + ([c.lustre] if c.lustre is not None else [])
    out = []
    for part in parts:
        lines = {plan.stack.line(part.path)} | {plan.stack.line(part.path + (f.name,)) for f in _fields(part)}
        out.append({n for n in lines if n})
    return out


def moot(plan: "StackPlan") -> set[Finding]:
    """`price-unknown` findings about a node group or file system that an error already rules out:
    a price for a part that cannot be deployed as declared is not the thing to fix."""
    parts = _part_lines(plan)
    errors = [f for f in plan.findings if f.severity == "error" and not f.suppressed and f.line]
    out = set()
    for f in plan.findings:
        if f.rule != "price-unknown" or not f.line:
            continue
        for lines in parts:
            if f.line in lines and any(e.line in lines for e in errors):
                out.add(f)
    return out


_ORDER = {"error": 0, "warning": 1, "info": 2}


def for_people(plan: "StackPlan") -> list[Shown]:
    """The stack's findings in the order to act on them: unsuppressed before suppressed, then
    severity, then file and line. Findings of one rule that differ only in the node group they
    name collapse into one naming all the groups; moot `price-unknown` findings are left out."""
    from planner import rules

    skip = moot(plan)
    ordered = sorted((f for f in plan.findings if f not in skip),
                     key=lambda f: (f.suppressed, _ORDER[f.severity], f.file, f.line or 0, f.rule, f.message))
    groups: dict[tuple[Any, ...], list[Finding]] = {}
    names: dict[tuple[Any, ...], list[str]] = {}
    for f in ordered:
        m = _GROUP.search(f.message)
        template = f.message if m is None else f.message[:m.start()] + "\0" + f.message[m.end():]
        key = (f.suppressed, f.severity, f.rule, f.file, template)
        groups.setdefault(key, []).append(f)
        names.setdefault(key, []).append("" if m is None else m.group(1))
    out = []
    for key, found in groups.items():
        first = found[0]
        message = first.message
        if len(found) > 1:
            quoted = [f"'{n}'" for n in names[key]]
            listed = ", ".join(quoted[:-1]) + " and " + quoted[-1]
            message = key[4].replace("\0", f"node groups {listed}", 1)
        lines = [str(f.line) for f in found if f.line]
        where_text = first.file + (f":{', '.join(lines)}" if lines else "")
        if first.resource and len(found) == 1:
            where_text = where(first)
        sup = suppression(plan, first)
        r = rules.get(first.rule)
        fix = first.fix or (None if r is None else r.remediation)
        if len(found) > 1 and first.fix:  # the fix names the first group: name them all
            fix = first.fix.replace(f"node group '{names[key][0]}'", "node groups " + listed, 1)
        out.append(Shown(first, message, where_text, fix, None if sup is None else sup[1], len(found)))
    return out
