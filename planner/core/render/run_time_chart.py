"""Run time against cost as a Mermaid quadrant chart, which GitHub renders in a comment.

The chart's two centre lines are the deadline (x) and the budget (y): each axis runs from zero to
twice it, so a candidate left of the vertical line finishes in time and one below the horizontal
line stays within budget. Without a deadline or a budget that axis runs to a little beyond the
largest value and its line is only the middle, which the caption says. Mermaid's grammar takes
coordinates written `1` or `0.ddd` and quoted text without double quotes (quadrant.jison), so
both are written that way.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from planner.core.text.numbers import num, usd

MAX_POINTS = 20  # a chart with more labels than this is unreadable; the table has every row
HEADROOM = 1.1  # an axis without a line: the largest value at 1 / HEADROOM of it


class Point(Struct, frozen=True):
    label: str
    hours: float
    usd: float


def _quoted(text: str) -> str:
    return '"' + "".join(c for c in text if c not in '"\n\r`') + '"'


def _coordinate(value: float, top: float) -> str:
    x = min(max(value / top, 0.0), 1.0)
    return "1" if x >= 1.0 else f"{x:.3f}"


def chart(title: str, points: Sequence[Point], deadline: float | None, budget: float | None) -> list[str]:
    """The chart's lines (a ```mermaid block) and its caption; [] without points."""
    shown = sorted(points, key=lambda p: (p.usd, p.hours, p.label))[:MAX_POINTS]
    if not shown:
        return []
    x_top = 2 * deadline if deadline else max(p.hours for p in shown) * HEADROOM
    y_top = 2 * budget if budget else max(p.usd for p in shown) * HEADROOM
    out = [
        "```mermaid",
        "quadrantChart",
        f"    title {_quoted(title)}",
        f"    x-axis {_quoted('0 h')} --> {_quoted(num(x_top, 0) + ' h')}",
        f"    y-axis {_quoted('$0')} --> {_quoted(usd(y_top))}",
    ]
    if deadline and budget:
        out += [
            f"    quadrant-1 {_quoted('late and over budget')}",
            f"    quadrant-2 {_quoted('in time, over budget')}",
            f"    quadrant-3 {_quoted('in time and within budget')}",
            f"    quadrant-4 {_quoted('late, within budget')}",
        ]
    for p in shown:
        off = p.hours > x_top or p.usd > y_top
        label = p.label + (" (off the chart)" if off else "")
        out.append(f"    {_quoted(label)}: [{_coordinate(p.hours, x_top)}, {_coordinate(p.usd, y_top)}]")
    out.append("```")
    lines = []
    lines.append(
        f"the vertical line is the deadline, {num(deadline)} h"
        if deadline
        else "the vertical line is the middle of the run times"
    )
    lines.append(
        f"the horizontal line the budget, {usd(budget)}" if budget else "the horizontal line the middle of the costs"
    )
    caption = f"Run time (x) against total cost (y): {'; '.join(lines)}."
    if len(points) > len(shown):
        caption += f" The {MAX_POINTS} cheapest of {len(points)} are drawn; the table has every one."
    return [*out, "", caption]
