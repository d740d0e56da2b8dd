"""`planner diff` as people read it (a table fitted to the terminal) and as a pull-request
comment (Markdown): pure functions of the diff report (`planner.core.document.diff_section`: the head
side's stacks and the diff section), so a saved `--format json` report re-renders alike.
"""

from __future__ import annotations

from typing import Any

from planner.core.document import RenderContext, Report
from planner.core.document.cost_section import CostReport, LineItem
from planner.core.document.diff_section import Change, DiffSection, DiffTotal, LineItemChange, StackDiff
from planner.core.document.stacks import ReportedFinding, StackReport
from planner.core.text.terminal import Line


def _signed(x: float | None) -> str:
    if x is None:
        return "unknown"
    return f"{'+' if x >= 0 else '-'}${abs(x):,.2f}"


def delta_style(change: Change) -> str | None:
    """Colour of a change: red when the cost goes up, green when it goes down; none when the
    direction is not known (an unknown change is coloured only by a bound that gives its direction)."""
    return _style(_direction(change))


def _direction(change: Change) -> float | None:
    """The change, or when it is unknown a bound that says which way it goes (None: neither)."""
    if change.change_usd is not None:
        return change.change_usd
    if change.at_least_usd is not None and change.at_least_usd > 0:
        return change.at_least_usd
    if change.at_most_usd is not None and change.at_most_usd < 0:
        return change.at_most_usd
    return None


def _style(x: float | None) -> str | None:
    return None if not x else ("bad" if x > 0 else "good")


def _bound(change: Change) -> str:
    """`up at least $X` / `down at least $X` when a bound gives the change's direction; else ""."""
    from planner.core.text.numbers import usd

    if change.at_least_usd is not None and change.at_least_usd > 0:
        return f"up at least {usd(change.at_least_usd)}"
    if change.at_most_usd is not None and change.at_most_usd < 0:
        return f"down at least {usd(-change.at_most_usd)}"
    return ""


def _delta(change: Change) -> str:
    """The change, with its percentage; when unknown, what it lacks and, when a bound gives it, its direction."""
    if change.change_usd is None:
        priced = [] if change.priced_change_usd is None else [f"priced items {_signed(change.priced_change_usd)}"]
        said = [*change.unknown_because, *filter(None, [_bound(change)]), *priced]
        return "unknown" + (f" ({'; '.join(said)})" if said else "")
    return _signed(change.change_usd) + _pct(change.change_percent)


def monthly_change(total: DiffTotal) -> str:
    """` (+$69,729.60 a month)`, or the direction a bound gives when the monthly cost is incomplete; "" when neither."""
    if total.monthly_change_usd is not None:
        return f" ({_signed(total.monthly_change_usd)} a month)"
    bound = _bound(total.monthly)
    if bound:
        return f" ({bound} a month)"
    if total.monthly_priced_change_usd is not None:
        return f" (priced items {_signed(total.monthly_priced_change_usd)} a month)"
    return ""


def _pct(x: float | None) -> str:
    return "" if x is None else f" ({'+' if x >= 0 else ''}{x:,.1f}%)"


def _cost_cell(value: float | None, exists: bool, cost: CostReport | None) -> str:
    from planner.core.render.cost_report import total, usd

    if not exists:
        return "-"
    return total(cost) if cost else usd(value)


def _costs(report: Report, s: StackDiff) -> tuple[CostReport | None, CostReport | None]:
    """The estimates of the stack's two sides, from the base report and the report's stacks."""
    from planner.core.document.diff_section import head_stack

    diff = section(report)
    b, h = diff.base_stack(s), head_stack(report, s)
    return (None if b is None else b.cost), (None if h is None else h.cost)


def _rows(report: Report) -> list[tuple[str, ...]]:
    diff = section(report)
    rows: list[tuple[str, ...]] = []
    for s in diff.stacks:
        t = s.total
        base_cost, head_cost = _costs(report, s)
        rows.append(
            (
                s.stack,
                s.status,
                _cost_cell(t.before_usd, s.base_file is not None, base_cost),
                _cost_cell(t.after_usd, s.head_file is not None, head_cost),
                _delta(t),
                f"+{len(s.findings_added)} / -{len(s.findings_resolved)}",
            )
        )
    tot = diff.total
    from planner.core.render.cost_report import usd

    rows.append(
        (
            "total",
            "",
            usd(tot.before_usd),
            usd(tot.after_usd),
            _delta(tot.change),
            f"+{tot.findings_added} / -{tot.findings_resolved}",
        )
    )
    return rows


HEADERS = ("stack", "status", "before", "after", "change", "findings added / resolved")
TABLE_HEADERS = HEADERS[:5] + ("findings (+/-)",)


def _finding_line(f: ReportedFinding) -> str:
    where = f"{f.file}:{f.line}" if f.line else f.file
    said = " (baselined: does not fail the run)" if f.baselined else ""  # `--baseline` records it
    return f"{f.severity} {f.rule}: {f.message} [{where}]{said}"


def section(report: Report) -> DiffSection:
    """The report's diff section (a `diff` report always has one)."""
    if not isinstance(report.diff, DiffSection):
        raise ValueError(f"a {report.command} report has no diff section")
    return report.diff


def render_table(report: Report, context: RenderContext = RenderContext()) -> str:
    from planner.core.text.terminal import term_for, using

    with using(term_for(context.width, context.colour)):
        return _table(report)


def _table(report: Report) -> str:
    from planner.core.render.cost_report import headline
    from planner.core.text.terminal import Span, grid, human

    diff = section(report)
    rows: list[tuple[Any, ...]] = []
    for row, change in zip(_rows(report), [*(s.total for s in diff.stacks), diff.total.change]):
        rows.append((*row[:4], Span(row[4], delta_style(change)), row[5]))
    out: list[Line] = [
        f"Cost diff: {diff.base_label} -> {diff.head_label} (price book {diff.price_book}; totals for the billed hours)"
    ]
    out += grid(TABLE_HEADERS, rows, right=(2, 3, 4))
    for s in diff.stacks:
        if s.status == "unchanged":
            continue
        base_cost, head_cost = _costs(report, s)
        out += ["", [Span(s.stack, "heading"), Span(f" ({s.status})")]]
        if base_cost:
            out.append(f"  before: {headline(base_cost)}")
        if head_cost:
            out.append(f"  after:  {headline(head_cost)}")
        marks = {"added": "+", "removed": "-", "changed": "~"}
        for (_, name, status, what, monthly, run), item in zip(item_rows(s), s.line_items):
            style = _style(item.monthly_change_usd if item.monthly_change_usd is not None else item.total_change_usd)
            out.append([Span(f"  {marks[status]} ", style), Span(f"{name}: {what}; monthly {monthly}; run {run}")])
        out += [[Span("  + ", "bad"), Span(_finding_line(f))] for f in s.findings_added]
        out += [[Span("  - ", "good"), Span(f"{_finding_line(f)} (resolved)")] for f in s.findings_resolved]
    tot = diff.total
    n = len(diff.stacks)
    monthly = monthly_change(tot)
    out += [
        "",
        [
            Span(f"{n} stack{'s' if n != 1 else ''}: change ", "total"),
            Span(_delta(tot.change) + monthly, delta_style(tot.change)),
            Span(f"; findings +{tot.findings_added} / -{tot.findings_resolved}", "total"),
        ],
    ]
    return human(out)


def item_what(item: LineItem | None) -> str:
    """A line item as the cost table names it (`EC2 instances p5en.48xlarge x 8`), "-" when absent."""
    from planner.core.render.cost_report import _what

    return "-" if item is None else _what(item)


def _both(before: float | None, after: float | None, status: str, change: float | None) -> str:
    """Both sides and the change; an unknown change is not said twice ("unknown -> unknown (unknown)")."""
    from planner.core.render.cost_report import usd

    b = "-" if status == "added" else usd(before)
    a = "-" if status == "removed" else usd(after)
    return f"{b} -> {a}" + ("" if change is None else f" ({_signed(change)})")


def item_rows(stack: StackDiff) -> list[tuple[str, ...]]:
    """One row per changed line item: name, status, both sides, the monthly and the run's change."""
    rows: list[tuple[str, ...]] = []
    for i in stack.line_items:
        rows.append(
            (
                stack.stack,
                i.name,
                i.status,
                _item_what(i),
                _both(i.monthly_before_usd, i.monthly_after_usd, i.status, i.monthly_change_usd),
                _both(i.total_before_usd, i.total_after_usd, i.status, i.total_change_usd),
            )
        )
    return rows


def _item_what(i: LineItemChange) -> str:
    """What the item is on the side it exists on; both when a change renamed it."""
    if i.status == "removed":
        return item_what(i.before)
    if i.status == "added":
        return item_what(i.after)
    before, after = item_what(i.before), item_what(i.after)
    return f"{before} -> {after}" if before != after else after


ITEM_HEADERS = ("stack", "line item", "status", "resource", "monthly (730 h)", "over the run")


def run_time_change(before: StackReport | None, after: StackReport | None) -> list[str]:
    """When a side's workload names a model: its predicted run before and after, drawn against cost."""
    from planner.core.render.run_time_chart import Point, chart
    from planner.core.render.run_time_report import headline
    from planner.core.text.safe import md_inert

    sides = [(name, p) for name, p in (("before", before), ("after", after)) if p is not None and p.run_time]
    if not sides:
        return []
    out = [f"- Run time {name}: {md_inert(headline(p.run_time))}" for name, p in sides if p.run_time]
    points = []
    for name, p in sides:
        # what the run costs: on the workload's hours when the schedule is shorter, else as booked
        cost = None if p.cost is None else (p.cost.workload_estimate or p.cost).total_usd
        if p.run_time and p.run_time.prediction and cost is not None:
            points.append(Point(name, p.run_time.prediction.run_hours, cost))
    last = sides[-1][1].run_time
    assert last is not None
    drawn = chart("run time against cost", points, last.schedule_hours, last.budget_usd) if len(points) > 1 else []
    return [*out, "", *drawn, *([""] if drawn else [])]


def render_markdown(report: Report, context: RenderContext = RenderContext(), limit: int | None = None) -> str:
    """The diff as the pull-request comment, under GitHub's size limit (`planner.core.render.bounded`):
    the cost change at the top with both sides of each changed line item, then the stacks with a
    change or an error in full (the head side's stacks, `report.stacks`), the others one table
    row each; every value from the stacks, paths or price book is inert."""
    from planner.core.render.bounded import MAX_CHARS, Block, assemble
    from planner.core.render.cost_report import headline, markdown
    from planner.core.render.markdown import MARKER, full_block, has_errors
    from planner.core.text.safe import html_inert, md_code, md_inert

    diff = section(report)
    tot = diff.total
    by_name = {p.name: p for p in report.stacks}
    failing = {n for n, p in by_name.items() if has_errors(p)}
    stacks = diff.stacks
    wanted = [s for s in stacks if s.status != "unchanged" or s.stack in failing]
    rest = [s for s in stacks if s not in wanted]
    verdict = ":x:" if failing else (":warning:" if tot.findings_added else ":white_check_mark:")
    monthly = monthly_change(tot)
    head = [
        MARKER,
        f"## {verdict} planner: cost change {_delta(tot.change)}{monthly}, {len(wanted)} of {len(stacks)} "
        f"stack{'s' if len(stacks) != 1 else ''} changed or failing",
        "",
        f"Monthly cost is hourly x 730 h; totals are for the billed hours. {md_code(diff.base_label)} -> "
        f"{md_code(diff.head_label)}, price book {md_code(diff.price_book)}.",
        "",
        f"**Total change: {_delta(tot.change)}**{monthly}, "
        f"{tot.findings_added} finding(s) added, {tot.findings_resolved} resolved.",
        "",
        "| " + " | ".join(h.capitalize() for h in HEADERS) + " |",
        "|---|---|---:|---:|---:|---|",
    ]
    all_rows = _rows(report)
    rows = dict(zip([s.stack for s in stacks], all_rows))
    total_row = all_rows[-1]
    blocks = [Block(["| " + " | ".join(md_inert(c) for c in total_row) + " |"], 2.5)]
    blocks += [
        Block(
            ["| " + " | ".join(md_inert(c) for c in rows[s.stack]) + " |"], 1 + n / (len(stacks) + 1), kind="table row"
        )
        for n, s in enumerate(wanted)
    ]
    items = [r for s in wanted for r in item_rows(s)]
    if items:
        blocks.append(
            Block(
                [
                    "",
                    "**Changed line items** (before -> after):",
                    "",
                    "| " + " | ".join(h.capitalize() for h in ITEM_HEADERS) + " |",
                    "|---|---|---|---|---:|---:|",
                ],
                3,
            )
        )
        blocks += [
            Block(
                ["| " + " | ".join(md_inert(c) for c in r) + " |"], 3 + (n + 1) / (len(items) + 1), kind="line item row"
            )
            for n, r in enumerate(items)
        ]
    for n, s in enumerate(wanted):
        t, p = s.total, by_name.get(s.stack)
        base_cost, head_cost = _costs(report, s)
        changes = [f"- :new: {md_inert(_finding_line(f))}" for f in s.findings_added]
        changes += [f"- :white_check_mark: resolved: {md_inert(_finding_line(f))}" for f in s.findings_resolved]
        sides = ([f"- Before: {md_inert(headline(base_cost))}"] if base_cost else []) + (
            [f"- After: {md_inert(headline(head_cost))}"] if head_cost else []
        )
        summary = (
            [f"**{s.status.capitalize()}:** {md_inert(_delta(t))}", ""]
            + sides
            + changes
            + ([""] if sides or changes else [])
            + run_time_change(diff.base_stack(s), p)
        )
        if p is not None:  # the head side in full: summary, findings, cost, topology
            blocks.append(full_block(report, p, 10 + n, summary))
            continue
        lines = [
            "",
            f"<details><summary><b>{html_inert(s.stack)}</b> ({s.status}): {_delta(t)}</summary>",
            "",
            *sides,
            *changes,
        ]
        if head_cost:
            lines += ["", *markdown(head_cost).rstrip("\n").split("\n")]
        lines += ["", "</details>"]
        blocks.append(Block(lines, 10 + n, md_code(s.stack), fallback=Block([], 10 + n)))
    blocks += [
        Block(
            ["| " + " | ".join(md_inert(c) for c in rows[s.stack]) + " |"],
            2 + n / (len(stacks) + 1),
            kind="unchanged stack row",
        )
        for n, s in enumerate(rest)
    ]
    return assemble(head, blocks, MAX_CHARS if limit is None else limit)
