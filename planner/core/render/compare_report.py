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
# with --model: the predicted MFU and layout beside the run hours
PREDICTED_HEADERS = HEADERS[:4] + ("MFU", "layout tp/pp/dp/cp/ep") + HEADERS[4:]
CLOSING = "Dense peaks only (BF16 or FP8 dense at the job's precision); billed hours round Capacity Blocks up to a bookable duration."


def job_line(result: CompareSection) -> str:
    """`Training job: 70 B parameters x 2 T tokens, bf16, MFU 0.4; 16 instances; us-east-2; price book current`."""
    from planner.core.text.numbers import count, num, usd

    inp = result.inputs
    mfu = ", ".join(f"{k}={v}" if k != "*" else str(v) for k, v in inp.mfu)
    size = f"{inp.instances} instances" if inp.instances else f"deadline {num(inp.deadline_hours)} h"
    if inp.budget_usd is not None:
        size += f", budget {usd(inp.budget_usd)}"
    if inp.model is not None:
        band = next((c.run_time.error_band for c in result.candidates if c.run_time is not None), None)
        speed = "run time predicted on each topology" + (f" (+/-{band:.0%})" if band is not None else "")
        return (
            f"Training job: {inp.model} ({count(inp.parameters, 'parameters')}) x {count(inp.tokens, 'tokens')}, "
            f"{inp.precision}, {num(inp.sequence_length)}-token sequences, {num(inp.global_batch_tokens)} tokens a step; "
            f"{speed}"
            + (f", MFU given for {mfu}" if mfu else "")
            + f"; {size}; {inp.region}; price book {result.price_book}"
        )
    return (
        f"Training job: {count(inp.parameters, 'parameters')} x {count(inp.tokens, 'tokens')}, {inp.precision}, "
        f"MFU {mfu}; {size}; {inp.region}; price book {result.price_book}"
    )


def headers(result: CompareSection) -> tuple[str, ...]:
    """The columns: with --model, the predicted MFU and layout too (for every row, measured or not)."""
    return PREDICTED_HEADERS if result.inputs.model is not None else HEADERS


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
        predicted: tuple[str, ...] = ()
        if result.inputs.model is not None:
            lay = c.run_time.layout if c.run_time is not None else None
            shape = "-" if lay is None else f"{lay.tp}/{lay.pp}/{lay.dp}/{lay.cp}/{lay.ep}"
            predicted = (f"{c.mfu:.1%}", shape)
        rows.append(
            (
                c.instance_type,
                c.purchase,
                num(c.instances),
                num(c.run_hours),
                *predicted,
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
    cols = headers(result)
    lines += grid(
        cols,
        rows,
        right=tuple(i for i, h in enumerate(cols) if 2 <= i and h not in ("layout tp/pp/dp/cp/ep", "as of", "notes")),
    )
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
        "| " + " | ".join(headers(result)) + " |",
        "|"
        + "|".join(
            "---" if i < 2 or h in ("layout tp/pp/dp/cp/ep", "as of", "notes") else "---:"
            for i, h in enumerate(headers(result))
        )
        + "|",
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
    if result.inputs.model is not None:
        out += ["", *_chart(result)]
    return join_lines(out) + "\n"


def _chart(result: CompareSection) -> list[str]:
    """The candidates' predicted run time against their total cost, the deadline and budget drawn."""
    from planner.core.render.run_time_chart import Point, chart

    inp = result.inputs
    points = [
        Point(f"{c.instance_type} x {c.instances:,} {c.purchase}", c.run_hours, c.total_usd)
        for c in result.candidates
        if c.total_usd is not None
    ]
    return chart(f"{inp.model}: run time against cost", points, inp.deadline_hours, inp.budget_usd)
