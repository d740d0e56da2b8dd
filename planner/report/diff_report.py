"""`planner diff` as people read it (a table fitted to the terminal) and as a pull-request
comment (Markdown): both functions of the diff document (`planner diff --format json`)."""

from __future__ import annotations

from typing import Any

def _signed(x: float | None) -> str:
    if x is None:
        return "unknown"
    return f"{'+' if x >= 0 else '-'}${abs(x):,.2f}"


def delta_style(change: dict[str, Any]) -> str | None:
    """Colour of a change: red when the cost goes up, green when it goes down."""
    x = change["change_usd"] if change["change_usd"] is not None else change.get("change_known_usd")
    return None if not x else ("bad" if x > 0 else "good")


def _delta(change: dict[str, Any]) -> str:
    """The change, with its percentage; when unknown, the change of the priced items."""
    if change["change_usd"] is None and change.get("change_known_usd") is not None:
        return f"unknown (priced items {_signed(change['change_known_usd'])})"
    return _signed(change["change_usd"]) + _pct(change["change_percent"])


def monthly_change(total: dict[str, Any]) -> str:
    """` (+$69,729.60 a month)`, or the priced items' change when the monthly cost is incomplete; "" when neither."""
    if total.get("monthly_change_usd") is not None:
        return f" ({_signed(total['monthly_change_usd'])} a month)"
    if total.get("monthly_change_known_usd") is not None:
        return f" (priced items {_signed(total['monthly_change_known_usd'])} a month)"
    return ""


def _pct(x: float | None) -> str:
    return "" if x is None else f" ({'+' if x >= 0 else ''}{x:,.1f}%)"


def _cost_cell(value: float | None, exists: bool, cost: dict[str, Any] | None) -> str:
    from planner.report.cost_report import total, usd

    if not exists:
        return "-"
    return total(cost) if cost else usd(value)


def _rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for s in result["stacks"]:
        t = s["total"]
        rows.append((s["stack"], s["status"], _cost_cell(t["before_usd"], s["base_file"] is not None, s["base_cost"]),
                     _cost_cell(t["after_usd"], s["head_file"] is not None, s["head_cost"]),
                     _delta(t),
                     f"+{len(s['findings_added'])} / -{len(s['findings_resolved'])}"))
    tot = result["total"]
    from planner.report.cost_report import usd

    rows.append(("total", "", usd(tot["before_usd"]), usd(tot["after_usd"]), _delta(tot),
                 f"+{tot['findings_added']} / -{tot['findings_resolved']}"))
    return rows


HEADERS = ("stack", "status", "before", "after", "change", "findings added / resolved")
TABLE_HEADERS = HEADERS[:5] + ("findings (+/-)",)


def _finding_line(f: dict[str, Any]) -> str:
    where = f"{f['file']}:{f['line']}" if f.get("line") else f["file"]
    return f"{f['severity']} {f['rule']}: {f['message']} [{where}]"


def render_table(result: dict[str, Any]) -> str:
    from planner.report.cost_report import headline
    from planner.report.text import Line, Span, grid, human

    rows: list[tuple[Any, ...]] = []
    for row, s in zip(_rows(result), [*result["stacks"], {"total": result["total"]}]):
        rows.append((*row[:4], Span(row[4], delta_style(s["total"])), row[5]))
    out: list[Line] = [f"Cost diff: {result['base']} -> {result['head']} (price book {result['price_book']}; "
                       "totals for the billed hours)"]
    out += grid(TABLE_HEADERS, rows, right=(2, 3, 4))
    for s in result["stacks"]:
        if s["status"] == "unchanged":
            continue
        out += ["", [Span(s["stack"], "heading"), Span(f" ({s['status']})")]]
        if s["base_cost"]:
            out.append(f"  before: {headline(s['base_cost'])}")
        if s["head_cost"]:
            out.append(f"  after:  {headline(s['head_cost'])}")
        marks = {"added": "+", "removed": "-", "changed": "~"}
        for (_, name, status, what, monthly, run), item in zip(item_rows(s), s.get("line_items", [])):
            style = delta_style({"change_usd": item["monthly_change_usd"] if item["monthly_change_usd"] is not None
                                 else item["total_change_usd"]})
            out.append([Span(f"  {marks[status]} ", style), Span(f"{name}: {what}; monthly {monthly}; run {run}")])
        out += [[Span("  + ", "bad"), Span(_finding_line(f))] for f in s["findings_added"]]
        out += [[Span("  - ", "good"), Span(f"{_finding_line(f)} (resolved)")] for f in s["findings_resolved"]]
    tot = result["total"]
    n = len(result["stacks"])
    monthly = monthly_change(tot)
    out += ["", [Span(f"{n} stack{'s' if n != 1 else ''}: change ", "total"), Span(_delta(tot) + monthly, delta_style(tot)),
                 Span(f"; findings +{tot['findings_added']} / -{tot['findings_resolved']}", "total")]]
    return human(out)


def item_what(item: dict[str, Any] | None) -> str:
    """A line item as the cost table names it (`EC2 instances p5en.48xlarge x 8`), "-" when absent."""
    from planner.report.cost_report import _what

    return "-" if item is None else _what(item)


def _both(before: float | None, after: float | None, status: str) -> str:
    from planner.report.cost_report import usd

    b = "-" if status == "added" else usd(before)
    a = "-" if status == "removed" else usd(after)
    return f"{b} -> {a}"


def item_rows(stack: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per changed line item: name, status, both sides, the monthly and the run's change."""
    rows: list[tuple[str, ...]] = []
    for i in stack.get("line_items", []):
        what = (item_what(i["before"]) if i["status"] == "removed" else item_what(i["after"]) if i["status"] == "added"
                else f"{item_what(i['before'])} -> {item_what(i['after'])}" if item_what(i["before"]) != item_what(i["after"])
                else item_what(i["after"]))
        rows.append((stack["stack"], i["name"], i["status"], what,
                     f"{_both(i['monthly_before_usd'], i['monthly_after_usd'], i['status'])} ({_signed(i['monthly_change_usd'])})",
                     f"{_both(i['total_before_usd'], i['total_after_usd'], i['status'])} ({_signed(i['total_change_usd'])})"))
    return rows


ITEM_HEADERS = ("stack", "line item", "status", "resource", "monthly (730 h)", "over the run")


def render_markdown(result: dict[str, Any], plans: list[Any] | None = None, limit: int | None = None) -> str:
    """The diff as the pull-request comment, under GitHub's size limit (`planner.report.bounded`):
    the cost change at the top with both sides of each changed line item, then the stacks with a
    change or an error in full (`plans`: the head side's plans, from `planner diff`), the others
    one table row each; every value from the stacks, paths or price book is inert."""
    from planner.report.bounded import MAX_CHARS, Block, assemble
    from planner.report.cost_report import headline, markdown
    from planner.report.markdown import MARKER, full_block, has_errors
    from planner.report.text import html_inert, md_code, md_inert

    tot = result["total"]
    by_name = {p.stack.name: p for p in plans or ()}
    failing = {n for n, p in by_name.items() if has_errors(p)}
    stacks = result["stacks"]
    wanted = [s for s in stacks if s["status"] != "unchanged" or s["stack"] in failing]
    rest = [s for s in stacks if s not in wanted]
    verdict = ":x:" if failing else (":warning:" if tot["findings_added"] else ":white_check_mark:")
    monthly = monthly_change(tot)
    head = [MARKER, f"## {verdict} planner: cost change {_delta(tot)}{monthly}, {len(wanted)} of {len(stacks)} "
                    f"stack{'s' if len(stacks) != 1 else ''} changed or failing", "",
            f"Monthly cost is hourly x 730 h; totals are for the billed hours. {md_code(result['base'])} -> "
            f"{md_code(result['head'])}, price book {md_code(result['price_book'])}.", "",
            f"**Total change: {_delta(tot)}**{monthly}, "
            f"{tot['findings_added']} finding(s) added, {tot['findings_resolved']} resolved.", "",
            "| " + " | ".join(h.capitalize() for h in HEADERS) + " |", "|---|---|---:|---:|---:|---|"]
    rows = dict(zip([s["stack"] for s in stacks], _rows(result)))
    total_row = _rows(result)[-1]
    blocks = [Block(["| " + " | ".join(md_inert(c) for c in total_row) + " |"], 2.5)]
    blocks += [Block(["| " + " | ".join(md_inert(c) for c in rows[s["stack"]]) + " |"], 1 + n / (len(stacks) + 1),
                     kind="table row") for n, s in enumerate(wanted)]
    items = [r for s in wanted for r in item_rows(s)]
    if items:
        blocks.append(Block(["", "**Changed line items** (before -> after):", "",
                             "| " + " | ".join(h.capitalize() for h in ITEM_HEADERS) + " |", "|---|---|---|---|---:|---:|"], 3))
        blocks += [Block(["| " + " | ".join(md_inert(c) for c in r) + " |"], 3 + (n + 1) / (len(items) + 1), kind="line item row")
                   for n, r in enumerate(items)]
    for n, s in enumerate(wanted):
        t, p = s["total"], by_name.get(s["stack"])
        changes = [f"- :new: {md_inert(_finding_line(f))}" for f in s["findings_added"]]
        changes += [f"- :white_check_mark: resolved: {md_inert(_finding_line(f))}" for f in s["findings_resolved"]]
        sides = ([f"- Before: {md_inert(headline(s['base_cost']))}"] if s["base_cost"] else []) + (
            [f"- After: {md_inert(headline(s['head_cost']))}"] if s["head_cost"] else [])
        summary = [f"**{s['status'].capitalize()}:** {md_inert(_delta(t))}", ""] + sides + changes + ([""] if sides or changes else [])
        if p is not None:  # the head side in full: summary, findings, cost, topology
            blocks.append(full_block(p, 10 + n, summary))
            continue
        lines = ["", f"<details><summary><b>{html_inert(s['stack'])}</b> ({s['status']}): {_delta(t)}</summary>", "",
                 *sides, *changes]
        if s["head_cost"]:
            lines += ["", *markdown(s["head_cost"]).rstrip("\n").split("\n")]
        lines += ["", "</details>"]
        blocks.append(Block(lines, 10 + n, md_code(s["stack"]), fallback=Block([], 10 + n)))
    blocks += [Block(["| " + " | ".join(md_inert(c) for c in rows[s["stack"]]) + " |"], 2 + n / (len(stacks) + 1),
                     kind="unchanged stack row") for n, s in enumerate(rest)]
    return assemble(head, blocks, MAX_CHARS if limit is None else limit)
