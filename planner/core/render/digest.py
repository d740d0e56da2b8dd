"""What every report says the same way: counts per severity, findings in the order people act
on them, and how text is made safe for a Markdown table cell. Works on the document alone."""

from __future__ import annotations

from collections.abc import Iterable

from planner.core.document import SEVERITIES, Report, ReportedFinding


def counts(findings: Iterable[ReportedFinding]) -> dict[str, int]:
    """Unsuppressed findings per severity, plus `suppressed` (all severities) and `baselined` (findings
    the baseline records, `--baseline`: suppressed too, but counted apart)."""
    out: dict[str, int] = {s: 0 for s in SEVERITIES}
    out["suppressed"] = 0
    out["baselined"] = 0
    for f in findings:
        out["baselined" if f.baselined else "suppressed" if f.suppressed else f.severity] += 1
    return out


def count_text(c: dict[str, int], short: bool = False) -> str:
    """`1 error, 2 warnings, 0 info, 1 suppressed` (and `, 3 baselined` when there are any); `short`:
    only the non-zero ones (`1 error, 1 suppressed`)."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 or word == 'info' else 's'}"

    apart = ("suppressed", "baselined")  # said as they are: `1 suppressed`, `2 baselined`
    if short:
        words = (("error", "error"), ("warning", "warning"), ("info", "info"), *((k, k) for k in apart))
        return ", ".join(plural(c[k], w) if k not in apart else f"{c[k]} {k}" for k, w in words if c[k]) or "none"
    return (
        ", ".join([plural(c["error"], "error"), plural(c["warning"], "warning"), plural(c["info"], "info")])
        + f", {c['suppressed']} suppressed"
        + (f", {c['baselined']} baselined" if c.get("baselined") else "")
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
    """Text for one Markdown table cell: inert (`planner.core.text.safe.md_inert`), on one line, no pipes."""
    from planner.core.text.safe import md_inert

    return md_inert(text)


def read_cache_words(mode: str | None, size_gib: int | None) -> str:
    """An Intelligent-Tiering file system's SSD read cache in words ("" when the document gives no mode)."""
    if mode is None:
        return ""
    if mode == "NO_CACHE":
        return "no SSD read cache"
    if mode == "USER_PROVISIONED":
        return f"SSD read cache of {size_gib:,} GiB" if size_gib is not None else "SSD read cache of a size not given"
    return "SSD read cache sized with the throughput capacity"
