"""From two reports of the same stacks (before and after a change) to the diff section.

The producer side of `planner.core.document.diff_section`: stacks matched by name, their costs'
changes (a stack absent on one side costs 0 there; an unknown price makes a change unknown,
and the priced items' change is given beside it), the line items that changed, and the
findings added and resolved. Works on the documents alone (`StackReport.cost`, the estimate
with its line items), so `planner diff` builds it from the reports it already made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from planner.core.document.cost_section import CostReport, LineItem
from planner.core.document.diff_section import Change, DiffSection, DiffTotal, LineItemChange, StackDiff, Status
from planner.core.document.report import Report
from planner.core.document.stacks import ReportedFinding, StackReport

HOURS_PER_MONTH = (
    730  # planner.core.cost.HOURS_PER_MONTH (not imported: the document does not depend on the cost model)
)


def diff_section(
    base: Report, head: Report, base_label: str, head_label: str, price_book: str, pair: bool = False
) -> DiffSection:
    """The change from `base` to `head`; with `pair` (two stack files named on the command line), the one
    stack on each side is compared with the other whatever their names (`a -> b`)."""
    stacks = tuple(compare_stacks(base.stacks, head.stacks, pair))
    return DiffSection(base_label, head_label, price_book, base, stacks, summarize(stacks))


def compare_stacks(base: Sequence[StackReport], head: Sequence[StackReport], pair: bool = False) -> list[StackDiff]:
    """Each stack's difference, by name (sorted)."""
    by_base = {p.name: p for p in base}
    by_head = {p.name: p for p in head}
    if pair and len(base) == 1 and len(head) == 1 and base[0].name != head[0].name:
        name = f"{base[0].name} -> {head[0].name}"
        by_base, by_head = {name: base[0]}, {name: head[0]}
    out = []
    for name in sorted(set(by_base) | set(by_head)):
        b, h = by_base.get(name), by_head.get(name)
        bc = b.cost if b else None
        hc = h.cost if h else None
        added, resolved = _findings_delta(b, h)
        status: Status
        if b is None:
            status = "added"
        elif h is None:
            status = "removed"
        else:
            status = "changed" if (bc != hc or added or resolved) else "unchanged"
        out.append(
            StackDiff(
                stack=name,
                status=status,
                base_stack=b.name if b else None,
                head_stack=h.name if h else None,
                base_file=b.file if b else None,
                head_file=h.file if h else None,
                total=_change(
                    _figure(bc, "total_usd"),
                    _figure(hc, "total_usd"),
                    b is not None,
                    h is not None,
                    (_figure(bc, "known_total_usd"), _figure(hc, "known_total_usd")),
                ),
                monthly=_change(
                    _figure(bc, "monthly_usd"),
                    _figure(hc, "monthly_usd"),
                    b is not None,
                    h is not None,
                    (_known_monthly(bc), _known_monthly(hc)),
                ),
                line_items=tuple(line_item_changes(bc, hc)),
                findings_added=tuple(added),
                findings_resolved=tuple(resolved),
            )
        )
    return out


def _figure(cost: CostReport | None, key: Literal["total_usd", "known_total_usd", "monthly_usd"]) -> float | None:
    """A figure of an estimate; None without an estimate, or when the figure is unknown."""
    if cost is None:
        return None
    return (
        cost.total_usd if key == "total_usd" else cost.known_total_usd if key == "known_total_usd" else cost.monthly_usd
    )


def _key(f: ReportedFinding) -> tuple[str, str, str]:
    return (f.rule, f.severity, f.message)


def _findings_delta(
    base: StackReport | None, head: StackReport | None
) -> tuple[list[ReportedFinding], list[ReportedFinding]]:
    """Unsuppressed findings in head and not in base (added), and the reverse (resolved)."""
    b = [f for f in (base.findings if base else ()) if not f.suppressed]
    h = [f for f in (head.findings if head else ()) if not f.suppressed]
    bc, hc = Counter(_key(f) for f in b), Counter(_key(f) for f in h)
    added, resolved = [], []
    for f in h:
        if bc[_key(f)] > 0:
            bc[_key(f)] -= 1
        else:
            added.append(f)
    for f in b:
        if hc[_key(f)] > 0:
            hc[_key(f)] -= 1
        else:
            resolved.append(f)
    return added, resolved


def _change(
    before: float | None,
    after: float | None,
    base_exists: bool,
    head_exists: bool,
    known: tuple[float | None, float | None] = (None, None),
) -> Change:
    """Before, after and the change; a stack absent on one side costs 0 there."""
    b = before if base_exists else 0.0
    a = after if head_exists else 0.0
    delta = None if a is None or b is None else round(a - b, 2)
    pct = None if delta is None or not b else round(100.0 * delta / b, 2)
    known_change = None
    if delta is None:
        kb = (known[0] or 0.0) if base_exists else 0.0
        ka = (known[1] or 0.0) if head_exists else 0.0
        known_change = round(ka - kb, 2)
    return Change(before if base_exists else None, after if head_exists else None, delta, pct, known_change)


def _known_monthly(cost: CostReport | None) -> float | None:
    """The monthly (730 h) cost of the priced line items: a lower bound when the estimate leaves something out."""
    rate = None if cost is None else cost.known_hourly_usd
    return None if rate is None else round(rate * HOURS_PER_MONTH, 2)


def _item_key(item: LineItem) -> tuple[str, str]:
    return (item.name, item.resource)


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 2)


def line_item_changes(base: CostReport | None, head: CostReport | None) -> list[LineItemChange]:
    """The line items that changed between two estimates, matched by name and resource:
    added, removed or changed, with both sides and the monthly (730 h) and the run's difference.
    An item absent on one side costs 0 there; an unknown figure makes its difference unknown."""
    before = {_item_key(i): i for i in (base.line_items if base else ())}
    after = {_item_key(i): i for i in (head.line_items if head else ())}
    out = []
    for key in [*before, *(k for k in after if k not in before)]:
        b, a = before.get(key), after.get(key)
        if b == a:
            continue
        status: Literal["added", "removed", "changed"] = "added" if b is None else "removed" if a is None else "changed"
        monthly = [
            None if i is None or i.hourly_usd is None else round(i.hourly_usd * HOURS_PER_MONTH, 2) for i in (b, a)
        ]
        totals = [i.total_usd if i is not None else None for i in (b, a)]
        monthly = [0.0 if i is None else m for i, m in zip((b, a), monthly)]
        totals = [0.0 if i is None else t for i, t in zip((b, a), totals)]
        out.append(
            LineItemChange(
                key[0],
                key[1],
                status,
                b,
                a,
                monthly[0],
                monthly[1],
                _delta(*monthly),
                totals[0],
                totals[1],
                _delta(*totals),
            )
        )
    return out


def _sum(values: Iterable[float | None]) -> float | None:
    vs = list(values)
    return None if any(v is None for v in vs) else round(sum(v for v in vs if v is not None), 2)


def summarize(stacks: Sequence[StackDiff]) -> DiffTotal:
    """Every stack together; a stack absent on one side counts 0 there."""
    before = _sum(0.0 if s.base_file is None else s.total.before_usd for s in stacks)
    after = _sum(0.0 if s.head_file is None else s.total.after_usd for s in stacks)
    delta = None if before is None or after is None else round(after - before, 2)
    known = None if delta is not None else round(sum(_known_or_change(s.total) for s in stacks), 2)
    monthly = _sum(s.monthly.change_usd for s in stacks)
    monthly_known = None if monthly is not None else round(sum(_known_or_change(s.monthly) for s in stacks), 2)
    return DiffTotal(
        before,
        after,
        delta,
        None if delta is None or not before else round(100.0 * delta / before, 2),
        known,
        monthly,
        monthly_known,
        sum(len(s.findings_added) for s in stacks),
        sum(len(s.findings_resolved) for s in stacks),
    )


def _known_or_change(c: Change) -> float:
    """The change, or when it is unknown the priced items' change."""
    if c.change_usd is None:
        return c.change_known_usd or 0.0
    return c.change_usd
