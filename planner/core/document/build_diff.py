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

from planner.core.document.cost_section import CostReport, InstanceDetail, LineItem
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
                    b,
                    h,
                    (_figure(bc, "known_total_usd"), _figure(hc, "known_total_usd")),
                ),
                monthly=_change(
                    _figure(bc, "monthly_usd"),
                    _figure(hc, "monthly_usd"),
                    b,
                    h,
                    (_known_monthly(bc), _known_monthly(hc)),
                    monthly=True,
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
    base: StackReport | None,
    head: StackReport | None,
    known: tuple[float | None, float | None] = (None, None),
    monthly: bool = False,
) -> Change:
    """Before, after and the change; a stack absent on one side costs 0 there (`base`/`head` None).

    Unknown when a side is: then what each side lacks, and the bound the priced items give when
    the other side is complete (an incomplete side costs at least its priced items)."""
    b = before if base is not None else 0.0
    a = after if head is not None else 0.0
    delta = None if a is None or b is None else round(a - b, 2)
    pct = None if delta is None or not b else round(100.0 * delta / b, 2)
    if delta is not None:
        return Change(before if base is not None else None, after if head is not None else None, delta, pct)
    lacks = {
        side: _lacks(stack.cost, monthly) if stack is not None and figure is None else []
        for side, stack, figure in (("before", base, b), ("after", head, a))
    }
    if lacks["before"] and lacks["before"] == lacks["after"]:
        why = tuple(f"{lack} on both sides" for lack in lacks["before"])
    else:
        why = tuple(f"{side}: {lack}" for side, said in lacks.items() for lack in said)
    kb, ka = known
    at_least = round(ka - b, 2) if a is None and b is not None and ka is not None else None
    at_most = round(a - kb, 2) if b is None and a is not None and kb is not None else None
    # like for like: both sides lack the same things (and have hours) and have a priced part
    alike = lacks["before"] == lacks["after"] and not any(NO_HOURS in x for x in lacks["before"])
    priced = None
    if alike and base is not None and head is not None and ka is not None and kb is not None:
        priced = round(ka - kb, 2)
    return Change(
        before if base is not None else None,
        after if head is not None else None,
        None,
        None,
        why,
        at_least,
        at_most,
        priced,
    )


NO_HOURS = "no hours (schedule.hours or a workload)"


def _lacks(cost: CostReport | None, monthly: bool) -> list[str]:
    """What keeps an estimate's total (or monthly cost) unknown, as people name it."""
    if cost is None:
        return ["not priced"]
    unpriced = [
        f"{i.name} ({i.detail.instance_type})" if isinstance(i.detail, InstanceDetail) else i.name
        for i in cost.line_items
        if i.unit_price_usd is None
    ]
    out = [f"no price for {', '.join(dict.fromkeys(unpriced))}"] if unpriced else []
    out += [f"left out: {what}" for what in cost.left_out]
    if not monthly and cost.run_hours is None and cost.hours is None:
        out.append(NO_HOURS)
    return out or ["incomplete"]


def _known_monthly(cost: CostReport | None) -> float | None:
    """The monthly (730 h) cost of the priced line items: a lower bound when the estimate leaves something out.
    Not rounded: a change is rounded once, after the subtraction, so that items the same on both sides (a system
    group beside the one that changed) cannot move it by a cent."""
    rate = None if cost is None else cost.priced_hourly_usd
    return None if rate is None else rate * HOURS_PER_MONTH


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
    monthly = _sum(s.monthly.change_usd for s in stacks)
    return DiffTotal(
        before,
        after,
        delta,
        None if delta is None or not before else round(100.0 * delta / before, 2),
        monthly,
        sum(len(s.findings_added) for s in stacks),
        sum(len(s.findings_resolved) for s in stacks),
        tuple(f"{s.stack}: {why}" for s in stacks for why in s.total.unknown_because) if delta is None else (),
        None if delta is not None else _bound(s.total for s in stacks),
        None if delta is not None else _bound((s.total for s in stacks), upper=True),
        None if monthly is not None else _bound(s.monthly for s in stacks),
        None if monthly is not None else _bound((s.monthly for s in stacks), upper=True),
        None if delta is not None else _priced(s.total for s in stacks),
        None if monthly is not None else _priced(s.monthly for s in stacks),
    )


def _priced(changes: Iterable[Change]) -> float | None:
    """The sum of the stacks' changes, each known or compared like for like; None when one is neither."""
    total = 0.0
    for c in changes:
        x = c.change_usd if c.change_usd is not None else c.priced_change_usd
        if x is None:
            return None
        total += x
    return round(total, 2)


def _bound(changes: Iterable[Change], upper: bool = False) -> float | None:
    """The sum of the stacks' changes, each known or bounded the same way; None when one is not."""
    total = 0.0
    for c in changes:
        x = c.change_usd if c.change_usd is not None else (c.at_most_usd if upper else c.at_least_usd)
        if x is None:
            return None
        total += x
    return round(total, 2)
