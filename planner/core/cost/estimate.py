"""What a declared cluster costs: line items per resource, Infracost-style, from a price book.

Hours come from `schedule.hours`, else from the workload (6 N D at MFU x dense peak).
When the workload needs more hours than `schedule.hours`, a second estimate on the
workload's hours is attached (`workload_estimate`): a schedule too short for the job does
not make the job cheaper, so the budget is checked against the larger of the two.
Capacity Blocks are paid for whole bookable durations, so their billed hours are the run
hours rounded up (`planner.core.catalogue.capacity_block_limits`). An unknown price is never zero: its line item has no
unit price and no total, and the estimate is marked incomplete; a combination AWS does
not sell (`planner.core.cost.offers`) says so instead of "unknown". With no hours at all, the
hourly and monthly rates are still given and the total is unknown. Line totals are
rounded to the cent and the total is their sum, so the printed figures add up.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue import instance_types as _catalogue
from planner.core.catalogue.instance_types import Catalogue
from planner.core.cost.book import STALE_DAYS, Price, PriceBook, age_days, day, is_date
from planner.core.cost.items import (
    CAPACITY_BLOCK_RESOURCE,
    EBS_RESOURCE,
    EC2_RESOURCE,
    HOURS_PER_MONTH,
    LUSTRE_RESOURCE,
    Component,
    build,
    left_out_tiering,
    left_out_volumes,
    unpriced_volumes,
)
from planner.core.cost.training import dense_peak, hours_for_flops
from planner.core.document import codec
from planner.core.document.cost_section import (
    CostReport,
    Detail,
    InstanceDetail,
    LineItem,
    LustreDetail,
    PriceAge,
    VolumeDetail,
)
from planner.core.model.cluster import Cluster, NodeGroup, Path, Purchase, Stack

CURRENCY = "USD"
__all__ = [
    "CAPACITY_BLOCK_RESOURCE",
    "EBS_RESOURCE",
    "EC2_RESOURCE",
    "HOURS_PER_MONTH",
    "LUSTRE_RESOURCE",
    "CostEstimate",
    "CostLine",
    "billed",
    "estimate",
    "price_components",
    "workload_hours",
]


def _r(x: float | None, digits: int = 4) -> float | int | None:
    """Round for stable output; whole numbers print as integers."""
    if x is None:
        return None
    x = round(x, digits)
    return int(x) if float(x).is_integer() else x


def _sum(xs: list[float | None]) -> float | None:
    return None if any(x is None for x in xs) else sum(x for x in xs if x is not None)


class CostLine(Struct, frozen=True):
    """One priced component (name, unit, quantity, unit price, total) with its price's source and date.

    The estimate's own line, with the `Price` it was priced from; reports carry it as the
    document's `planner.core.document.LineItem` (`item()`), so renderers never see a `Price`."""

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

    def item(self) -> LineItem:
        """The line as the document reports it, rounded for stable output."""
        p = self.price
        return LineItem(
            resource=self.resource,
            name=self.name,
            unit=self.unit,
            quantity=_r(self.quantity),
            unit_price_usd=None if p is None else p.usd,
            total_usd=_r(self.total_usd, 2),
            hourly_usd=_r(self.hourly_usd),
            hours=_r(self.hours, 3),
            run_hours=_r(self.run_hours, 3),
            source=None if p is None else p.source,
            as_of=None if p is None else p.as_of,
            assumption=None if p is None else p.assumption,
            price_book=None if p is None else p.book,
            note=self.note if p is None or not p.note else (f"{self.note}; {p.note}" if self.note else p.note),
            detail=_detail(self.detail),
        )

    def to_json(self) -> dict[str, Any]:
        """The line item's JSON, as the document writes it (`planner.core.document.codec`)."""
        return codec.dump_record(self.item())


def _detail(d: dict[str, Any]) -> Detail | None:
    """What a line bills, by the key only its kind has (instances, EBS volumes, the file system)."""
    if "instance_type" in d:
        return InstanceDetail(**d)
    if "volume_type" in d:
        return VolumeDetail(**d)
    if "deployment_type" in d:
        return LustreDetail(**d)
    return None


class CostEstimate(Struct, frozen=True):
    """A stack's line items and totals; totals are None when any price is unknown."""

    price_book: str
    run_hours: float | None
    hours_basis: str  # "schedule.hours", "workload" or "none"
    workload_hours: float | None
    line_items: tuple[CostLine, ...]
    notes: tuple[str, ...] = ()
    currency: str = CURRENCY
    workload_estimate: CostEstimate | None = None  # on the workload's hours, when longer than schedule.hours
    # compute (or its volumes) the line items leave out, each in a few words: a total without them is a lower bound
    left_out: tuple[str, ...] = ()
    maximum: CostEstimate | None = None  # with every elastic resource at the most it allows, when any may grow

    @property
    def complete(self) -> bool:
        """Every price the cluster needs is known and nothing is left out (hours may still be unknown: see total_usd)."""
        return not self.left_out and all(i.price is not None for i in self.line_items)

    @property
    def unpriced(self) -> tuple[str, ...]:
        """What the total lacks, as people name it: line items without a price, then what is left out."""
        items = [
            f"{i.name} ({i.detail['instance_type']})" if i.detail.get("instance_type") else i.name
            for i in self.line_items
            if i.price is None
        ]
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
        return None if self.left_out else _sum([i.hourly_usd for i in self.line_items])

    @property
    def monthly_usd(self) -> float | None:
        h = self.hourly_usd
        return None if h is None else h * HOURS_PER_MONTH

    @property
    def total_usd(self) -> float | None:
        total = None if self.left_out else _sum([i.total_usd for i in self.line_items])
        return None if total is None else round(total, 2)

    @property
    def known_total_usd(self) -> float | None:
        """Sum of the line items whose total is known: a lower bound when the total is unknown
        (0 when compute is left out and nothing else is priced: "at least $0.00", never "complete")."""
        known = [i.total_usd for i in self.line_items if i.total_usd is not None]
        if not known and self.left_out and self.run_hours is not None:
            return 0.0
        return round(sum(known), 2) if known else None

    # set on an estimate whose cluster has pools that launch on demand (Karpenter, Batch, PCS; a PCS group's
    # instances above its static ones): they are planned at what they run now, but a budget must hold for what
    # they may launch
    elastic: bool = False
    book_as_of: str | None = None  # the price book's date: what the prices' age is counted to

    @property
    def price_age(self) -> PriceAge | None:
        """The age of the oldest dated price this estimate uses (with the estimate on the workload's hours and the
        one at the maximum), counted to the book's date; None unless one is more than `STALE_DAYS` old."""
        if self.book_as_of is None:
            return None
        lines = [
            i
            for e in (self, self.workload_estimate, self.maximum)
            if e is not None
            for i in e.line_items
            if i.price is not None and is_date(i.price.as_of)  # a --price figure has no date
        ]
        if not lines:
            return None
        ages: dict[str, int] = {}
        for i in lines:
            if i.price is not None:
                ages[i.name] = max(ages.get(i.name, 0), age_days(i.price.as_of, self.book_as_of))
        oldest = min((i.price.as_of for i in lines if i.price is not None), key=lambda d: day(d, last=True))
        days = age_days(oldest, self.book_as_of)
        if days <= STALE_DAYS:
            return None
        return PriceAge(
            book_as_of=self.book_as_of,
            oldest_as_of=oldest,
            days=days,
            items=tuple(n for n, a in ages.items() if a > STALE_DAYS),
            limit_days=STALE_DAYS,
        )

    @property
    def budget_basis(self) -> CostEstimate:
        """The estimate a budget is checked against: at the maximum when the program has pools that launch on
        demand; on the workload's hours when they exceed the schedule."""
        if self.elastic and self.maximum is not None:
            return self.maximum
        return self.workload_estimate or self

    @property
    def known_hourly_usd(self) -> float:
        return sum(i.hourly_usd for i in self.line_items if i.hourly_usd is not None)

    def report(self) -> CostReport:
        """The estimate as the document's cost section: typed, rounded for stable output, with the
        estimate on the workload's hours and the one at the maximum (neither with its own)."""
        return self._report(
            workload_estimate=None if self.workload_estimate is None else self.workload_estimate._report(),
            maximum_estimate=None if self.maximum is None else self.maximum._report(),
            price_age=self.price_age,
        )

    def _report(
        self,
        workload_estimate: CostReport | None = None,
        maximum_estimate: CostReport | None = None,
        price_age: PriceAge | None = None,
    ) -> CostReport:
        return CostReport(
            currency=self.currency,
            price_book=self.price_book,
            hours_basis=self.hours_basis,
            run_hours=_r(self.run_hours, 3),
            workload_hours=_r(self.workload_hours, 3),
            hours=_r(self.hours, 3),
            hourly_usd=_r(self.hourly_usd),
            known_hourly_usd=_r(self.known_hourly_usd) if self.hourly_usd is None and self.known_hourly_usd else None,
            monthly_usd=_r(self.monthly_usd, 2),
            total_usd=_r(self.total_usd, 2),
            known_total_usd=_r(self.known_total_usd, 2),
            complete=self.complete,
            line_items=tuple(i.item() for i in self.line_items),
            notes=tuple(self.notes),
            left_out=tuple(self.left_out),
            workload_estimate=workload_estimate,
            maximum_estimate=maximum_estimate,
            price_age=price_age,
        )

    def to_json(self) -> dict[str, Any]:
        """The estimate's JSON, as the document writes its cost section (`planner.core.document.codec`)."""
        return codec.dump_record(self.report())


def workload_hours(cluster: Cluster, cat: Catalogue) -> float | None:
    """Run hours of the declared workload on all node groups together; None without one."""
    w = cluster.workload
    if w is None:
        return None
    if w.mfu is None:  # the model's step, predicted on the declared topology
        from planner.core.runtime_model.cluster_run import run_for

        run = run_for(cluster, cat)
        return None if run is None else run.run_hours
    peak = 0.0
    for g in cluster.node_groups:
        t = cat.spec(g.instance_type)
        if t.accelerator is None:
            continue  # a CPU group (a system node group beside the trainers) adds no FLOPS
        per = dense_peak(t, w.precision)
        if per is None:
            return None
        peak += g.count * per
    if peak <= 0:
        return None  # no accelerators at all: nothing runs the model
    return hours_for_flops(w.flops_per_token() * w.tokens, peak, w.mfu)


def billed(run: float | None, purchase: Purchase) -> tuple[float | None, str | None]:
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
            f" + a {tail // 24}-day block" if tail else ""
        )
        return total, (
            f"Capacity Block: run of {run:,.1f} h is longer than the longest block ({blocks.MAX_HOURS:,} h = "
            f"{blocks.MAX_DAYS} days): billed as consecutive blocks, {parts} ({total:,} h)"
        )
    if up != run:
        return up, (
            f"Capacity Block: run of {run:,.1f} h booked as a {up // 24}-day block ({up:,} h, instances run at most "
            f"{blocks.usable_hours(up):,.1f} h of it)"
        )
    return up, (
        f"Capacity Block: a {up // 24}-day block ({up:,} h) booked; instances run at most "
        f"{blocks.usable_hours(up):,.1f} h of it"
    )


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
            notes.append(
                f"the workload needs {wl_hours:,.1f} h "
                f"{'as predicted from its model' if c.workload and c.workload.predicted else 'at the declared MFU'}, "
                "more than schedule.hours "
                f"({run:,.1f} h); this estimate uses schedule.hours, the estimate on the workload's hours "
                f"is given too and the budget is checked against it"
            )
            items, more = _items(stack, book, wl_hours, cat)
            longer = CostEstimate(
                book.name, wl_hours, "workload", wl_hours, tuple(items), tuple(more), left_out=left_out(stack)
            )
    elif wl_hours is not None:
        run, basis = wl_hours, "workload"
    else:
        run, basis = None, "none"
        notes.append(
            "no schedule.hours and no workload: hourly and monthly rates only, total unknown"
            if c.workload is None
            else "no schedule.hours, and the workload's hours are unknown (no peak FLOPS or step-time figures for "
            "its accelerators): hourly and monthly rates only, total unknown"
        )
    now = _now(stack, cat)
    items, more = _items(now, book, run, cat)
    return CostEstimate(
        book.name,
        run,
        basis,
        wl_hours,
        tuple(items),
        tuple(notes + more),
        workload_estimate=longer,
        left_out=left_out(now),
        maximum=_at_maximum(stack, book, run, basis, wl_hours, cat),
        elastic=any(u.reason == "elastic" for u in c.unplanned)
        or any(g.grows_with_jobs and (g.max_count or 0) > g.count for g in c.node_groups),
        book_as_of=book.as_of,
    )


def left_out(stack: Stack, at_maximum: bool = False) -> tuple[str, ...]:
    """What an estimate of `stack` cannot price, each in a few words: compute read back from a program
    that it cannot count or price (now, or at its maximum), and EBS volumes whose size or type it does not know."""
    c = stack.cluster
    out = [u.left_out_at_maximum if at_maximum else u.left_out_now for u in c.unplanned]
    out += [n.left_out for n in c.notes]
    out += left_out_volumes(c.node_groups)
    out += left_out_tiering(c.lustre)
    return tuple(dict.fromkeys(x for x in out if x))


def _pool_groups(
    stack: Stack, u: Any, choices: tuple[tuple[str, int], ...], book: PriceBook | None, at: str = "maximum"
) -> list[NodeGroup]:
    """Node groups pricing self-sizing compute at `choices` (type, most instances): the dearest mix its one
    binding limit allows (`u.fill`: what each type takes of `u.capacity`), else the dearest single type."""
    from planner.core.cost.items import instance_key

    purchase: Purchase = u.purchase if u.purchase in ("on-demand", "spot", "capacity-block") else "on-demand"

    def price(itype: str) -> float:
        found = instance_key(itype, stack.region, purchase).look_up(book) if book is not None else None
        return found.usd if found is not None else 0.0

    picked = [c for c in choices if c[1] > 0]
    if not picked:
        return []
    mix = (
        _dearest_mix(u.capacity, dict(u.fill), {t: price(t) for t, _ in picked}) if len(picked) > 1 and u.fill else None
    )
    chosen = mix or [max(picked, key=lambda c: c[1] * price(c[0]))]
    return [
        NodeGroup(
            name=u.name or "pool" if len(chosen) == 1 else f"{u.name or 'pool'} {itype}",
            instance_type=itype,
            count=count,
            purchase=purchase,
            efa=False,
            availability_zone=stack.cluster.availability_zone,
            path=u.path + (at, k),
            root_volume_gib=None,
            volumes=u.volumes,
        )
        for k, (itype, count) in enumerate(chosen)
    ]


MIX_STEPS = 200_000  # capacity units (after their common divisor) the dearest-mix search takes; beyond, one type


def _dearest_mix(capacity: int | None, units: dict[str, int], prices: dict[str, float]) -> list[tuple[str, int]] | None:
    """The instances of each type that cost most per hour while their units (vCPUs, GPUs, instances) stay
    within `capacity`: an unbounded knapsack over integer units. None when it would take too long."""
    import math

    types = [t for t in prices if units.get(t)]
    if capacity is None or not types:
        return None
    step = math.gcd(*(units[t] for t in types))
    room = capacity // step
    if room > MIX_STEPS:
        return None
    weight = {t: units[t] // step for t in types}
    best = [0.0] * (room + 1)
    last: list[str | None] = [None] * (room + 1)
    for c in range(1, room + 1):
        best[c], last[c] = best[c - 1], None
        for t in types:
            if weight[t] <= c and best[c - weight[t]] + prices[t] > best[c] + 1e-9:
                best[c], last[c] = best[c - weight[t]] + prices[t], t
    counts: dict[str, int] = {}
    c = room
    while c > 0:
        took = last[c]
        if took is None:
            c -= 1
            continue
        counts[took] = counts.get(took, 0) + 1
        c -= weight[took]
    return sorted(counts.items())


def _now(stack: Stack, cat: Catalogue) -> Stack:
    """`stack` with self-sizing compute that runs instances now (of one known type) priced as node groups."""
    extra = [
        g
        for u in stack.cluster.unplanned
        if u.reason == "elastic" and u.count and len(u.instance_types) == 1
        for g in _pool_groups(stack, u, ((u.instance_types[0], u.count),), None, at="now")
    ]
    if not extra:
        return stack
    return replace(stack, cluster=replace(stack.cluster, node_groups=stack.cluster.node_groups + tuple(extra)))


def _at_maximum(
    stack: Stack, book: PriceBook, run: float | None, basis: str, wl_hours: float | None, cat: Catalogue
) -> CostEstimate | None:
    """The estimate with every group at its maximum size and every self-sizing pool at the most its
    limits allow (of its types, the dearest fill); None when nothing may grow past what is planned."""
    c = stack.cluster
    grows = [g for g in c.node_groups if g.max_count is not None and g.max_count > g.count]
    pools = [u for u in c.unplanned if u.maxima]
    if not grows and not pools:
        return None
    groups = []
    for g in c.node_groups:
        if g.max_count is not None and g.max_count > g.count:
            size = cat.unit_of(g)
            g = replace(
                g,
                count=g.max_count,
                ultraservers=g.max_count // size if g.ultraservers is not None and size > 1 else g.ultraservers,
            )
        groups.append(g)
    groups += [g for u in pools for g in _pool_groups(stack, u, u.maxima, book)]
    most = replace(stack, cluster=replace(c, node_groups=tuple(groups)))
    items, notes = _items(most, book, run, cat)
    if any(len(u.maxima) > 1 and not u.fill for u in pools):
        notes.append(
            "a pool of several types under several limits is priced at the type that costs most when the "
            "limits are filled with it; a mix of types may use what one type leaves under them"
        )
    return CostEstimate(
        book.name, run, basis, wl_hours, tuple(items), tuple(notes), left_out=left_out(most, at_maximum=True)
    )


def price_components(components: list[Component], book: PriceBook) -> list[CostLine]:
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
        out.append(
            CostLine(
                resource=comp.resource,
                name=comp.name,
                unit=comp.unit,
                quantity=comp.quantity,
                price=price,
                hourly_usd=comp.hourly(price),
                hours=comp.hours,
                run_hours=comp.run_hours,
                detail=detail,
                path=comp.path,
                note=note,
            )
        )
    return out


def _items(stack: Stack, book: PriceBook, run: float | None, cat: Catalogue) -> tuple[list[CostLine], list[str]]:
    """The line items of `stack` for a run of `run` hours, and notes about them.

    UltraServer members are bought by UltraServer (Capacity Blocks for UltraServers are offered
    by `UltraserverCount`): their line item also gives the UltraServers and the UltraServer-hour.
    """
    c = stack.cluster
    notes: list[str] = []
    unpriced = unpriced_volumes(stack)
    if unpriced:  # read back from a program: a volume of unknown size or type is left out, and said so
        notes.append(unpriced)
    items = price_components(build(stack, run, cat, billed), book)
    if run is not None and any(g.purchase == "capacity-block" for g in c.node_groups):
        notes.append(blocks.TIMING_NOTE)
        notes.append(blocks.END_TIME_NOTE)
    return items, notes
