"""What a declared cluster costs: line items per resource, Infracost-style, from a price book.

Hours come from `schedule.hours`, else from the workload (6 N D at MFU x dense peak).
When the workload needs more hours than `schedule.hours`, a second estimate on the
workload's hours is attached (`workload_estimate`): a schedule too short for the job does
not make the job cheaper, so the budget is checked against the larger of the two.
Capacity Blocks are paid for whole bookable durations, so their billed hours are the run
hours rounded up (`planner.blocks`). An unknown price is never zero: its line item has no
unit price and no total, and the estimate is marked incomplete; a combination AWS does
not sell (`planner.cost.offers`) says so instead of "unknown". With no hours at all, the
hourly and monthly rates are still given and the total is unknown. Line totals are
rounded to the cent and the total is their sum, so the printed figures add up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner import blocks
from planner import catalogue as _catalogue
from planner.catalogue import Catalogue
from planner.cost.book import Price, PriceBook
from planner.cost.items import (
    CAPACITY_BLOCK_RESOURCE,
    EBS_RESOURCE,
    EC2_RESOURCE,
    HOURS_PER_MONTH,
    LUSTRE_RESOURCE,
    Component,
    build,
    unpriced_root_volumes,
)
from planner.cost.training import dense_peak, run_hours
from planner.model import Cluster, Path, Stack

CURRENCY = "USD"
__all__ = ["CAPACITY_BLOCK_RESOURCE", "EBS_RESOURCE", "EC2_RESOURCE", "HOURS_PER_MONTH", "LUSTRE_RESOURCE", "CostEstimate", "LineItem",
           "billed", "estimate", "price_components", "workload_hours"]


def _r(x: float | None, digits: int = 4) -> float | int | None:
    """Round for stable output; whole numbers print as integers."""
    if x is None:
        return None
    x = round(x, digits)
    return int(x) if float(x).is_integer() else x


def _sum(xs: list[float | None]) -> float | None:
    return None if any(x is None for x in xs) else sum(x for x in xs if x is not None)


@dataclass(frozen=True)
class LineItem:
    """One priced component (name, unit, quantity, unit price, total) with its price's source and date."""

    resource: str  # Pulumi type token of what is billed
    name: str
    unit: str
    quantity: float | None
    price: Price | None
    hourly_usd: float | None
    hours: float | None  # billed hours
    run_hours: float | None
    detail: dict[str, Any] = field(default_factory=dict)
    path: Path = ()  # key path in the stack file, for findings
    note: str | None = None

    @property
    def unit_price_usd(self) -> float | None:
        return None if self.price is None else self.price.usd

    @property
    def total_usd(self) -> float | None:
        """Rounded to the cent, as printed: the estimate's total is the sum of these."""
        if self.quantity is None or self.price is None:
            return None
        return round(self.quantity * self.price.usd, 2)

    def to_json(self) -> dict[str, Any]:
        p = self.price
        return {
            "resource": self.resource,
            "name": self.name,
            "unit": self.unit,
            "quantity": _r(self.quantity),
            "unit_price_usd": None if p is None else p.usd,
            "total_usd": _r(self.total_usd, 2),
            "hourly_usd": _r(self.hourly_usd),
            "hours": _r(self.hours, 3),
            "run_hours": _r(self.run_hours, 3),
            "source": None if p is None else p.source,
            "as_of": None if p is None else p.as_of,
            "assumption": None if p is None else p.assumption,
            "price_book": None if p is None else p.book,
            "note": self.note if p is None or not p.note else (f"{self.note}; {p.note}" if self.note else p.note),
            **self.detail,
        }


@dataclass(frozen=True)
class CostEstimate:
    """A stack's line items and totals; totals are None when any price is unknown."""

    price_book: str
    run_hours: float | None
    hours_basis: str  # "schedule.hours", "workload" or "none"
    workload_hours: float | None
    line_items: tuple[LineItem, ...]
    notes: tuple[str, ...] = ()
    currency: str = CURRENCY
    workload_estimate: "CostEstimate | None" = None  # on the workload's hours, when longer than schedule.hours
    left_out: tuple[str, ...] = ()  # what the cluster declares that no line item prices (read-back compute, root volumes)

    @property
    def complete(self) -> bool:
        """Every price the cluster needs is known and nothing declared is left out (hours may
        still be unknown: see total_usd)."""
        return not self.left_out and all(i.price is not None for i in self.line_items)

    @property
    def unpriced(self) -> tuple[str, ...]:
        """What the total lacks, as people name it: line items without a price, then what is left out."""
        items = [f"{i.name} ({i.detail['instance_type']})" if i.detail.get("instance_type") else i.name
                 for i in self.line_items if i.price is None]
        return tuple(dict.fromkeys(items)) + self.left_out

    @property
    def hours(self) -> float | None:
        """Billed hours: the longest billed time of any line item (Capacity Blocks round up)."""
        hs = [i.hours for i in self.line_items]
        if not hs or any(h is None for h in hs):
            return None
        return max(h for h in hs if h is not None)

    @property
    def hourly_usd(self) -> float | None:
        return _sum([i.hourly_usd for i in self.line_items])

    @property
    def monthly_usd(self) -> float | None:
        h = self.hourly_usd
        return None if h is None else h * HOURS_PER_MONTH

    @property
    def total_usd(self) -> float | None:
        total = _sum([i.total_usd for i in self.line_items])
        return None if total is None else round(total, 2)

    @property
    def known_total_usd(self) -> float | None:
        """Sum of the line items whose total is known: a lower bound when the total is unknown."""
        known = [i.total_usd for i in self.line_items if i.total_usd is not None]
        return round(sum(known), 2) if known else None

    @property
    def budget_basis(self) -> "CostEstimate":
        """The estimate a budget is checked against: on the workload's hours when they exceed the schedule."""
        return self.workload_estimate or self

    @property
    def known_hourly_usd(self) -> float:
        return sum(i.hourly_usd for i in self.line_items if i.hourly_usd is not None)

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.workload_estimate is not None:
            out["workload_estimate"] = self.workload_estimate._json()
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "price_book": self.price_book,
            "hours_basis": self.hours_basis,
            "run_hours": _r(self.run_hours, 3),
            "workload_hours": _r(self.workload_hours, 3),
            "hours": _r(self.hours, 3),
            "hourly_usd": _r(self.hourly_usd),
            "monthly_usd": _r(self.monthly_usd, 2),
            "total_usd": _r(self.total_usd, 2),
            "known_total_usd": _r(self.known_total_usd, 2),
            "complete": self.complete,
            "line_items": [i.to_json() for i in self.line_items],
            "notes": list(self.notes),
            **({"left_out": list(self.left_out)} if self.left_out else {}),
        }


def workload_hours(cluster: Cluster, cat: Catalogue) -> float | None:
    """Run hours of the declared workload on all node groups together; None without one."""
    w = cluster.workload
    if w is None:
        return None
    peak = 0.0
    for g in cluster.node_groups:
        per = dense_peak(cat.instance_types[g.instance_type], w.precision)
        if per is None:
            return None
        peak += g.count * per
    return run_hours(w.parameters, w.tokens, peak, w.mfu)


def billed(run: float | None, purchase: str) -> tuple[float | None, str | None]:
    """Billed hours of a run: Capacity Blocks round up to bookable durations.

    A run longer than the longest block needs consecutive blocks: as many of the longest
    as fit, then the shortest bookable block covering the rest.
    """
    if run is None or purchase != "capacity-block":
        return run, None
    up = blocks.block_for_run(run)
    if up is None:
        full = int(run // blocks.MAX_HOURS)
        rest = run - full * blocks.MAX_HOURS
        tail = blocks.round_up_to_block(rest) if rest > 0 else 0
        total = full * blocks.MAX_HOURS + (tail or 0)
        parts = f"{full} x {blocks.MAX_DAYS}-day block{'s' if full > 1 else ''}" + (
            f" + a {tail // 24}-day block" if tail else "")
        return total, (f"Capacity Block: run of {run:,.1f} h is longer than the longest block ({blocks.MAX_HOURS:,} h = "
                        f"{blocks.MAX_DAYS} days): billed as consecutive blocks, {parts} ({total:,} h)")
    if up != run:
        return up, (f"Capacity Block: run of {run:,.1f} h booked as a {up // 24}-day block ({up:,} h, instances run at most "
                    f"{blocks.usable_hours(up):,.1f} h of it)")
    return up, (f"Capacity Block: a {up // 24}-day block ({up:,} h) booked; instances run at most "
                f"{blocks.usable_hours(up):,.1f} h of it")


def estimate(stack: Stack, book: PriceBook, catalogue: Catalogue | None = None) -> CostEstimate:
    """Price every billable resource of `stack` with `book`."""
    cat = catalogue or _catalogue.load()
    c = stack.cluster
    wl_hours = workload_hours(c, cat)
    notes: list[str] = []
    longer = None
    if c.schedule is not None:
        run, basis = c.schedule.hours, "schedule.hours"
        if wl_hours is not None and wl_hours > run:
            notes.append(f"the workload needs {wl_hours:,.1f} h at the declared MFU, more than schedule.hours "
                         f"({run:,.1f} h); this estimate uses schedule.hours, the estimate on the workload's hours "
                         f"is given too and the budget is checked against it")
            items, more = _items(stack, book, wl_hours, cat)
            longer = CostEstimate(book.name, wl_hours, "workload", wl_hours, tuple(items), tuple(more), left_out=left_out(stack))
    elif wl_hours is not None:
        run, basis = wl_hours, "workload"
    else:
        run, basis = None, "none"
        notes.append("no schedule.hours and no workload: hourly and monthly rates only, total unknown")
    items, more = _items(stack, book, run, cat)
    return CostEstimate(book.name, run, basis, wl_hours, tuple(items), tuple(notes + more), workload_estimate=longer,
                        left_out=left_out(stack))


def left_out(stack: Stack) -> tuple[str, ...]:
    """What `stack` declares that the estimate cannot price: compute the read-back of a program
    could not size or price, root volumes of unknown size. The total is then a lower bound."""
    c = stack.cluster
    return (tuple(u.resource for u in c.unplanned)
            + tuple(f"root volumes of node group '{g.name}'" for g in c.node_groups if g.root_volume_gib is None))


def price_components(components: list[Component], book: PriceBook) -> list[LineItem]:
    """The one pricing pass: each component's key looked up in `book`; a missing price stays unknown, with why."""
    out = []
    for comp in components:
        price = comp.key.look_up(book)
        detail = dict(comp.detail)
        note = comp.note
        if comp.unit_size:
            detail["usd_per_ultraserver_hour"] = None if price is None else _r(price.usd * comp.unit_size)
        if price is None and comp.missing is not None:
            text, extra = comp.missing(book)
            detail.update(extra)
            note = f"{text}; {note}" if note else text
        out.append(LineItem(resource=comp.resource, name=comp.name, unit=comp.unit, quantity=comp.quantity, price=price,
                            hourly_usd=comp.hourly(price), hours=comp.hours, run_hours=comp.run_hours, detail=detail,
                            path=comp.path, note=note))
    return out


def _items(stack: Stack, book: PriceBook, run: float | None, cat: Catalogue) -> tuple[list[LineItem], list[str]]:
    """The line items of `stack` for a run of `run` hours, and notes about them.

    UltraServer members are bought by UltraServer (Capacity Blocks for UltraServers are offered
    by `UltraserverCount`): their line item also gives the UltraServers and the UltraServer-hour.
    """
    c = stack.cluster
    notes: list[str] = []
    if c.unplanned:  # read back from a program: compute it could not size or price is left out, not free
        notes.append(f"{len(c.unplanned)} compute resource(s) of the program are not planned or priced (see the findings): "
                     "this estimate leaves them out")
    unpriced = unpriced_root_volumes(stack)
    if unpriced:  # read back from a program: a root volume of unknown size is left out, and said so
        notes.append(unpriced)
    items = price_components(build(stack, run, cat, billed), book)
    if run is not None and any(g.purchase == "capacity-block" for g in c.node_groups):
        notes.append(blocks.TIMING_NOTE)
        notes.append(blocks.END_TIME_NOTE)
    return items, notes
