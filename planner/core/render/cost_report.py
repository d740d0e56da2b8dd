"""Cost rendering shared by the table and markdown reports.

Works on the document's cost section (`planner.core.document.cost_section.CostReport`: totals and
typed line items, figures as the cost model rounded them). An unknown figure prints as
"unknown", never as $0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.core.document.cost_section import CostReport, InstanceDetail, LineItem, VolumeDetail

if TYPE_CHECKING:
    from planner.core.text.terminal import Line

RESOURCE_NAMES = {
    "aws:ec2/instance:Instance": "EC2 instances",
    "aws:ec2/capacityBlockReservation:CapacityBlockReservation": "EC2 Capacity Block",
    "aws:fsx/lustreFileSystem:LustreFileSystem": "FSx for Lustre",
    "aws:ebs/volume:Volume": "EBS",
}


def usd(x: float | None) -> str:
    """`$1,234,567.89`, or "unknown" (never $0): the one money format (`planner.core.text.numbers.usd`)."""
    from planner.core.text.numbers import usd as _usd

    return _usd(x)


def unit_price(x: float | None, unit: str) -> str:
    """`$63.16/instance-hour`, `$0.145/GB-month` (`planner.core.text.numbers.usd_rate`)."""
    from planner.core.text.numbers import usd_rate

    return usd_rate(x, unit)


def total(cost: CostReport) -> str:
    """The total, or "unknown (at least $X)" when only some line items are priced: never $0."""
    known = cost.known_total_usd
    if cost.total_usd is None and known is not None:
        return f"at least {usd(known)}"
    return usd(cost.total_usd)


def headline(cost: CostReport) -> str:
    """The estimate in one sentence; an incomplete one as a lower bound, said once, with what has no
    price and what is left out (never "complete" while anything is).

    `$85,118.17 for 168 h ($506.66/h, $369,858.72 a month of 730 h)`, or
    `at least $38.66 for 168 h; no price for trainers; left out: Karpenter node pool 'gpu' (unbounded: no limit)`.
    """
    hours = cost.hours
    run = cost.run_hours
    span = (
        ""
        if hours is None
        else f" for {hours:,.0f} h" + (f" (run {run:,.1f} h)" if run is not None and run != hours else "")
    )
    missing = cost.unpriced
    left = list(cost.left_out)
    if not missing and not left and cost.total_usd is not None:
        return f"{usd(cost.total_usd)}{span} ({usd(cost.hourly_usd)}/h, {usd(cost.monthly_usd)} a month of 730 h)"
    if not missing and not left:  # priced, but no hours to total them over
        return f"{usd(cost.hourly_usd)}/h ({usd(cost.monthly_usd)} a month of 730 h); total unknown: no hours"
    why = ([f"no price for {', '.join(missing)}"] if missing else []) + (
        [f"left out: {'; '.join(left)}"] if left else []
    )
    known = cost.known_total_usd
    rate = cost.known_hourly_usd
    if known is None and rate:  # no hours: the priced part as a rate
        return f"at least {usd(rate)}/h; total unknown: no hours; {'; '.join(why)}"
    if known is None:
        return f"unknown{span}; {'; '.join(why)}"
    return f"at least {usd(known)}{span}; {'; '.join(why)}"


def price_age(cost: CostReport) -> str | None:
    """One line on the age of the prices used, when one is more than 90 days older than the book's date:
    `the oldest price used is of 2024-07-18, 869 days before the price book's date (2026-12-04); ...`."""
    age = cost.price_age
    if age is None:
        return None
    return (
        f"the oldest price used is of {age.oldest_as_of}, {age.days:,} days before the price book's date "
        f"({age.book_as_of}); more than {age.limit_days} days old: {', '.join(age.items)}; AWS prices change "
        "(Capacity Block rates with demand): re-read them with --live-prices"
    )


def sum_totals(costs: list[CostReport]) -> str:
    """Total of several estimates for the summary line: `$277,294.59`, or `at least $X (2 stacks incomplete)`."""
    if not costs:
        return "none"
    known = sum((c.total_usd if c.total_usd is not None else (c.known_total_usd or 0.0)) for c in costs)
    incomplete = sum(1 for c in costs if c.total_usd is None)
    if not incomplete:
        return usd(known)
    if not known:
        return f"unknown ({incomplete} without a total)"
    return f"at least {usd(known)} ({incomplete} without a full total)"


def _what(item: LineItem) -> str:
    kind = RESOURCE_NAMES.get(item.resource, item.resource)
    d = item.detail
    if isinstance(d, InstanceDetail):
        purchase = "" if d.purchase == "capacity-block" else f" ({d.purchase})"
        n = d.ultraservers
        units = f" ({n} UltraServer{'' if n == 1 else 's'})" if n else ""
        if d.idle_instances:
            units += f", billed {d.billed_instances}"
        return f"{kind} {d.instance_type} x {d.instances}{units}{purchase}"
    if isinstance(d, VolumeDetail):
        if d.charge is None:
            return f"{kind} {d.volume_type} {d.gib_per_instance:,} GiB x {d.instances}"
        unit = "MiB/s" if d.charge == "throughput" else "IOPS"
        over = f" over {d.over:,}" if d.over else ""
        return f"{kind} {d.volume_type} {d.billed_per_instance or 0:,} {unit}{over} x {d.instances}"
    if d is None:
        return kind
    tput = d.per_unit_storage_throughput
    if d.storage_capacity_gib is None:  # Intelligent-Tiering: its throughput capacity, or its SSD read cache
        what = (
            f"{d.read_cache_size_gib:,} GiB SSD read cache"
            if d.read_cache_size_gib is not None
            else f"{d.throughput_capacity_mbps or 0:,} MBps"
        )
        return f"{kind} {d.deployment_type} Intelligent-Tiering {what}"
    return f"{kind} {d.deployment_type} {d.storage_capacity_gib:,} GiB" + (f" @ {tput} MB/s/TiB" if tput else "")


def _quantity(item: LineItem) -> str:
    q = item.quantity
    if q is None:
        return "unknown"
    return f"{q:,.0f}" if float(q).is_integer() else f"{q:,.2f}"


def _rows(cost: CostReport) -> tuple[list[tuple[str, ...]], list[str]]:
    """Line-item rows and the footnotes (assumptions, notes) they refer to by number."""
    rows: list[tuple[str, ...]] = []
    foot: list[str] = []
    for item in cost.line_items:
        marks = ""
        for text in (item.assumption, item.note):
            if text:
                if text not in foot:
                    foot.append(text)
                marks += f"[{foot.index(text) + 1}]"
        source = f"{item.source} ({item.as_of})" if item.source else "no price"
        rows.append(
            (
                item.name,
                _what(item),
                f"{_quantity(item)} {item.unit}",
                unit_price(item.unit_price_usd, item.unit),
                usd(item.total_usd),
                marks or "-",
                source,
            )
        )
    return rows, foot


HEADERS = ("name", "resource", "quantity", "unit price", "total", "notes", "price source (as of)")
TABLE_HEADERS = ("name", "resource", "quantity", "unit price", "total", "notes")


def table_lines(cost: CostReport, margin: int = 0) -> list[Line]:
    """The cost block of the table report: headline, one row per line item, then numbered notes.

    Price sources (URLs) are notes too, so the table fits the terminal; `--wide` keeps them
    in the row. `margin`: columns the caller indents the block by.
    """
    from planner.core.text.terminal import Span, grid, term

    rows, foot = _rows(cost)
    wide = term().wide
    limit = term().limit
    table_rows = []
    for row, item in zip(rows, cost.line_items):
        marks, src, price = row[5], item.source, item.unit_price_usd
        if src and not wide:
            text = f"price: {src} (as of {item.as_of or 'no date'})"
            if text not in foot:
                foot.append(text)
            marks = (marks if marks != "-" else "") + f"[{foot.index(text) + 1}]"
        cells = (
            *row[:3],
            "unknown" if price is None else unit_price(price, item.unit).rsplit("/", 1)[0],
            row[4],
            marks,
        )
        table_rows.append(cells + ((row[6],) if wide else ()))
    out: list[Line] = [
        [
            Span("cost: ", "total"),
            Span(headline(cost), "total" if cost.total_usd is not None else "warning"),
            Span(f"; price book {cost.price_book}"),
        ]
    ]
    aged = price_age(cost)
    if aged:
        out.append([Span("  prices: ", "warning"), Span(aged)])
    if cost.workload_estimate:
        out.append(f"cost on the hours the workload needs: {headline(cost.workload_estimate)}")
    if cost.maximum_estimate:
        out.append(f"cost at the maximum it may scale to: {headline(cost.maximum_estimate)}")
    out += [
        "  " + line if isinstance(line, str) else [Span("  "), *line]
        for line in grid(
            TABLE_HEADERS[:6] + (HEADERS[6:] if wide else ()),
            table_rows,
            right=(2, 3, 4),
            width=None if limit is None else limit - margin - 2,
        )
    ]
    out += [f"  [{i}] {text}" for i, text in enumerate(foot, 1)]
    out += [f"  note: {n}" for n in cost.notes]
    return out


def _cell(text: str) -> str:
    from planner.core.text.safe import md_inert

    return md_inert(text)


def markdown(cost: CostReport) -> str:
    """The cost section of a markdown report (a pull-request comment): headline, line items, notes.

    Price book text (name, source, note, assumption) may come from a user's file: it is
    made inert (`md_inert`); sources are shown as code, so no link is rendered from them.
    """
    from planner.core.text.safe import md_code

    rows, foot = _rows(cost)
    out = [f"**Cost:** {_cell(headline(cost))} (price book {md_code(cost.price_book)})", ""]
    aged = price_age(cost)
    if aged:
        out[-1:] = [f"**Prices:** {_cell(aged)}", ""]
    if cost.workload_estimate:
        out[-1:] = [f"**Cost on the hours the workload needs:** {_cell(headline(cost.workload_estimate))}", ""]
    if cost.maximum_estimate:
        out[-1:] = [f"**Cost at the maximum it may scale to:** {_cell(headline(cost.maximum_estimate))}", ""]
    out += ["| " + " | ".join(h.capitalize() for h in HEADERS) + " |", "|---|---|---:|---:|---:|---|---|"]
    for row, item in zip(rows, cost.line_items):
        source = md_code(row[-1]) if item.source else row[-1]  # "no price" is planner's; a source may be a user's
        out.append("| " + " | ".join([*(_cell(c) for c in row[:-1]), source]) + " |")
    if foot or cost.notes:
        out.append("")
    out += [f"{i}. {_cell(text)}" for i, text in enumerate(foot, 1)]
    out += [f"- {_cell(n)}" for n in cost.notes]
    from planner.core.text.safe import join_lines

    return join_lines(out) + "\n"
