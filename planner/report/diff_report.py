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


def _pct(x: float | None) -> str:
    return "" if x is None else f" ({'+' if x >= 0 else ''}{x:,.1f}%)"


def _cost_cell(value: float | None, exists: bool, cost: dict[str, Any] | None) -> str:
    from planner.report.cost_report import total, usd

    if not exists:
        return "-"
    return total(cost) if cost else usd(value)


def _rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
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

    rows: list[tuple] = []
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
        out += [[Span("  + ", "bad"), Span(_finding_line(f))] for f in s["findings_added"]]
        out += [[Span("  - ", "good"), Span(f"{_finding_line(f)} (resolved)")] for f in s["findings_resolved"]]
    tot = result["total"]
    n = len(result["stacks"])
    out += ["", [Span(f"{n} stack{'s' if n != 1 else ''}: change ", "total"), Span(_delta(tot), delta_style(tot)),
                 Span(f"; findings +{tot['findings_added']} / -{tot['findings_resolved']}", "total")]]
    return human(out)


def render_markdown(result: dict[str, Any]) -> str:
    """The diff as a pull-request comment; every value from the stacks, paths or price book is inert."""
    from planner.report.cost_report import headline, markdown
    from planner.report.text import html_inert, join_lines, md_code, md_inert

    tot = result["total"]
    out = ["## planner: cost and findings diff", "",
           f"Monthly cost is hourly x 730 h; totals are for the billed hours. {md_code(result['base'])} -> "
           f"{md_code(result['head'])}, price book {md_code(result['price_book'])}.", "",
           f"**Total change: {_delta(tot)}**, "
           f"{tot['findings_added']} finding(s) added, {tot['findings_resolved']} resolved.", "",
           "| " + " | ".join(h.capitalize() for h in HEADERS) + " |", "|---|---|---:|---:|---:|---|"]
    out += ["| " + " | ".join(md_inert(c) for c in row) + " |" for row in _rows(result)]
    for s in result["stacks"]:
        if s["status"] == "unchanged":
            continue
        t = s["total"]
        out += ["", f"<details><summary><b>{html_inert(s['stack'])}</b> ({s['status']}): {_delta(t)}</summary>", ""]
        if s["base_cost"]:
            out.append(f"- Before: {headline(s['base_cost'])}")
        if s["head_cost"]:
            out.append(f"- After: {headline(s['head_cost'])}")
        out += [f"- :new: {md_inert(_finding_line(f))}" for f in s["findings_added"]]
        out += [f"- :white_check_mark: resolved: {md_inert(_finding_line(f))}" for f in s["findings_resolved"]]
        if s["head_cost"]:
            out += ["", *markdown(s["head_cost"]).rstrip("\n").split("\n")]
        out += ["", "</details>"]
    return join_lines(out) + "\n"


