"""`planner compare` as people read it (a table fitted to the terminal) and as Markdown (a
pull-request comment or a page): pure functions of the document's compare section
(`planner.core.document.compare_section`), so a saved `--format json` report re-renders alike.
"""

from __future__ import annotations

from planner.core.document import RenderContext, Report
from planner.core.document.compare_section import Candidate, CompareSection
from planner.core.text.terminal import Line

HEADERS = (
    "type",
    "purchase",
    "count",
    "run h",
    "billed h",
    "USD/h each",
    "total",
    "USD per dense PF-h",
    "as of",
    "notes",
)
CLOSING = "Dense peaks only (BF16 or FP8 dense at the job's precision); billed hours round Capacity Blocks up to a bookable duration."


def job_line(result: CompareSection) -> str:
    """`Training job: 70 B parameters x 2 T tokens, bf16, MFU 0.4; 16 instances; us-east-2; price book current`."""
    from planner.core.text.numbers import count, num

    inp = result.inputs
    mfu = ", ".join(f"{k}={v}" if k != "*" else str(v) for k, v in inp.mfu)
    size = f"{inp.instances} instances" if inp.instances else f"deadline {num(inp.deadline_hours)} h"
    return (
        f"Training job: {count(inp.parameters, 'parameters')} x {count(inp.tokens, 'tokens')}, {inp.precision}, "
        f"MFU {mfu}; {size}; {inp.region}; price book {result.price_book}"
    )


def _rows(result: CompareSection) -> tuple[list[tuple[str, ...]], list[str]]:
    from planner.core.text.numbers import num, usd, usd_rate

    foot: list[str] = []
    rows: list[tuple[str, ...]] = []
    for c in result.candidates:
        marks = ""
        for n in c.notes:
            if n not in foot:
                foot.append(n)
            marks += f"[{foot.index(n) + 1}]"
        rows.append(
            (
                c.instance_type,
                c.purchase,
                num(c.instances),
                num(c.run_hours),
                num(c.billed_hours),
                usd_rate(c.usd_per_hour, "h")[:-2],
                usd(c.total_usd),
                usd(c.usd_per_dense_pflop_hour),
                f"{c.as_of}",
                marks or "-",
            )
        )
    return rows, foot


def section(report: Report) -> CompareSection:
    """The report's compare section (a `compare` report always has one)."""
    if not isinstance(report.compare, CompareSection):
        raise ValueError(f"a {report.command} report has no compare section")
    return report.compare


def render_table(report: Report, context: RenderContext = RenderContext()) -> str:
    """The candidates in the document's order (cheapest total first), fitted to the terminal."""
    from planner.core.text.terminal import term_for, using

    with using(term_for(context.width, context.colour)):
        return _table(section(report))


def _table(result: CompareSection) -> str:
    from planner.core.text.terminal import grid, human

    rows, foot = _rows(result)
    lines: list[Line] = [job_line(result)]
    # the count column stays even when every candidate has the same count (one candidate left,
    # or --instances N): a table that drops a column depending on its rows cannot be read alike
    lines += grid(HEADERS, rows, right=(2, 3, 4, 5, 6, 7))
    if not rows:
        lines.append("(no instance type has a price for this region in this price book)")
    lines += [f"[{i}] {n}" for i, n in enumerate(foot, 1)]
    lines += [f"note: {n}" for n in result.notes]
    lines.append(CLOSING)
    lines.append(summary_line(result))
    return human(lines)


def summary_line(result: CompareSection) -> Line:
    """The last line: how many candidates, the cheapest with its total, and the exit code."""
    from planner.core.text.numbers import usd
    from planner.core.text.terminal import Span

    cands = result.candidates
    n = len(cands)
    priced = [c for c in cands if c.total_usd is not None]
    if not priced:
        return [Span(f"{n} candidate{'s' if n != 1 else ''}; none with a total; exit 0", "total")]
    best = min(priced, key=lambda c: c.total_usd or 0.0)
    out = [
        Span(f"{n} candidate{'s' if n != 1 else ''}; cheapest ", "total"),
        Span(
            f"{best.instance_type} {best.purchase} at {usd(best.total_usd)} "
            f"({best.instances:,} instance{'s' if best.instances != 1 else ''})",
            "good",
        ),
    ]
    fewest = smallest(cands)
    if fewest is not None and fewest.instances < best.instances:
        out.append(
            Span(f"; fewest instances: {fewest.instances:,} x {fewest.instance_type} {fewest.purchase}", "total")
        )
    return out + [Span("; exit 0", "total")]


def smallest(cands: tuple[Candidate, ...]) -> Candidate | None:
    """The candidate with the fewest instances (the first in the document's order on a tie)."""
    sized = [c for c in cands if c.instances]
    return min(sized, key=lambda c: c.instances) if sized else None


def render_markdown(report: Report, context: RenderContext = RenderContext()) -> str:
    """The comparison as Markdown; price book names and notes may be a user's text, so all of it is inert."""
    from planner.core.text.safe import join_lines, md_inert

    result = section(report)
    rows, foot = _rows(result)
    out = [
        f"**{md_inert(job_line(result))}**",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    out += ["| " + " | ".join(md_inert(c) for c in row) + " |" for row in rows]
    if not rows:
        out.append("")
        out.append("No instance type has a price for this region in this price book.")
    if foot or result.notes:
        out.append("")
    out += [f"{i}. {md_inert(n)}" for i, n in enumerate(foot, 1)]
    out += [f"- {md_inert(n)}" for n in result.notes]
    out += ["", md_inert(CLOSING)]
    return join_lines(out) + "\n"
