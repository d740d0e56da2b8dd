"""What every report says the same way: counts per severity, why a finding is suppressed,
where it points, and how text is made safe for a Markdown table cell."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from planner.findings import SEVERITIES, Finding

if TYPE_CHECKING:
    from planner.pipeline import StackPlan

IN_SOURCE = "inSource"  # SARIF suppression kinds (the pipeline records them on the finding)
EXTERNAL = "external"


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Unsuppressed findings per severity, plus `suppressed` (all severities)."""
    out = {s: 0 for s in SEVERITIES}
    out["suppressed"] = 0
    for f in findings:
        out["suppressed" if f.suppressed else f.severity] += 1
    return out


def count_text(c: dict[str, int]) -> str:
    """`1 error, 2 warnings, 0 info, 1 suppressed`."""
    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"

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


def grid(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Sequence[int] = ()) -> list[str]:
    """A plain-text table; columns listed in `right` are right-aligned (numbers)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def fmt(row: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return [fmt(cells[0]), "  ".join("-" * w for w in widths)] + [fmt(r) for r in cells[1:]]


def md_cell(text: str) -> str:
    """Text for one Markdown table cell: inert (`planner.report.text.md_inert`), on one line, no pipes."""
    from planner.report.text import md_inert

    return md_inert(text)
