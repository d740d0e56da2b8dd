"""The price-performance question, answered with dense figures: what does a training job cost,
and how long does it take, on each instance type and purchase option with a price?

Cost = instances x billed hours x USD per instance-hour, where billed hours are the run
hours, rounded up to a bookable block for Capacity Blocks. With a deadline, the count is
the cheapest that meets it, not the smallest: a few more instances can shorten the run
into a shorter bookable block and cost less in total (`cheapest_for_deadline`). Price/performance is USD per
dense PFLOP-hour at the job's precision: sparse or mixed-precision headlines are listed as
notes, never used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue import shipped_data as _data
from planner.core.catalogue.instance_types import Catalogue, InstanceType, load
from planner.core.cost.book import PriceBook
from planner.core.cost.items import instance_key
from planner.core.cost.offers import not_sold
from planner.core.cost.training import dense_peak, instances_for_deadline, run_hours
from planner.core.document.compare_section import Candidate, CompareInputs, CompareSection, ListedWithoutCost
from planner.core.model.cluster import PURCHASES, Purchase

MIN_BLOCK_HOURS = blocks.bookable_hours()[0]


@dataclass(frozen=True)
class Job:
    parameters: float
    tokens: float
    precision: str  # bf16 | fp8
    mfu: Mapping[str, float]  # by family; "*" for every other family
    region: str
    instances: int | None = None
    deadline_hours: float | None = None

    def mfu_for(self, family: str) -> float | None:
        return self.mfu.get(family, self.mfu.get("*"))


def _offered(t: InstanceType) -> list[Purchase]:
    """Purchase options the catalogue says exist for a type (UltraServer members: Capacity Blocks only)."""
    return [
        p
        for p in PURCHASES
        if (p == "on-demand" and not load().is_member(t.name))
        or (p == "spot" and t.spot)
        or (p == "capacity-block" and t.capacity_block)
    ]


@lru_cache(maxsize=1)
def headline_notes() -> Mapping[str, str]:
    notes = _data.raw("prices/headlines.yaml")[0]["notes"]
    return {k: " ".join(v.split()) for k, v in notes.items()}


def _r(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def billed_hours(run: float, purchase: Purchase) -> float | None:
    """Hours paid for a run: Capacity Blocks round up to bookable durations (consecutive blocks
    beyond the longest), as the estimate bills them."""
    from planner.core.cost.estimate import billed

    return billed(run, purchase)[0]


def total_usd(n: int, run: float, purchase: Purchase, usd_per_hour: float) -> float | None:
    billed = billed_hours(run, purchase)
    return None if billed is None else round(n * billed * usd_per_hour, 2)


def cheapest_for_deadline(
    job: Job,
    peak: float,
    mfu: float,
    purchase: Purchase,
    usd_per_hour: float,
    unit: int = 1,
    max_count: int | None = None,
) -> tuple[int, int]:
    """(cheapest count, smallest count) of instances, multiples of `unit`, that finish within the deadline.

    On demand, the total is the same for every count (instances x hours is constant), so the
    smallest count wins. With Capacity Blocks, a larger count can fit a shorter bookable block:
    counts are tried from the smallest up to twice it (a cluster planned at more than double
    the size the deadline needs is another plan), and always to 25% above the best count
    found, never beyond `max_count` (the largest UltraCluster), stopping early once even the
    shortest block (24 h) for a count costs more than the best found.
    """
    assert job.deadline_hours is not None
    smallest = instances_for_deadline(job.parameters, job.tokens, peak, mfu, job.deadline_hours, unit)
    if purchase != "capacity-block":
        return smallest, smallest
    best_n, best = (
        smallest,
        total_usd(smallest, run_hours(job.parameters, job.tokens, smallest * peak, mfu), purchase, usd_per_hour),
    )
    n = smallest + unit
    while (
        n <= max(2 * smallest, best_n * 1.25)
        and (max_count is None or n <= max_count)
        and n * MIN_BLOCK_HOURS * usd_per_hour <= (best if best is not None else float("inf"))
    ):
        t = total_usd(n, run_hours(job.parameters, job.tokens, n * peak, mfu), purchase, usd_per_hour)
        if t is not None and (best is None or t < best):
            best_n, best = n, t
        n += unit
    return best_n, smallest


def compare(job: Job, book: PriceBook, cat: Catalogue, types: tuple[str, ...] = ()) -> CompareSection:
    """Every (instance type, purchase) with a price in `job.region`, cheapest total first."""
    from planner.core.catalogue.shipped_data import limits

    ULTRACLUSTER_MAX = limits().ultracluster_max

    candidates: list[Candidate] = []
    unpriced: list[str] = []
    unsold: list[str] = []
    not_offered: list[str] = []
    no_mfu: list[str] = []
    used_families: set[str] = set()
    for t in cat.instance_types.values():
        if types and t.name not in types:
            continue
        if not (t.sold_in(job.region, "on-demand") or t.sold_in(job.region, "capacity-block")):
            not_offered.append(t.name)
            continue
        purchases = [p for p in PURCHASES if instance_key(t.name, job.region, p).look_up(book) is not None]
        gone = [p for p in _offered(t) if p not in purchases and not_sold(t.name, job.region, p) is not None]
        if gone:
            unsold.append(f"{t.name} ({', '.join(gone)})")
        missing = [p for p in _offered(t) if p not in purchases and p not in gone]
        if missing:
            unpriced.append(f"{t.name} ({', '.join(missing)})")
        if not purchases:
            continue
        mfu = job.mfu_for(t.family)
        peak = dense_peak(t, job.precision)
        if mfu is None or peak is None:
            no_mfu.append(t.name)
            continue
        ultras = cat.ultraservers_of(t.name)
        unit = ultras[0].members if ultras else 1  # the smallest UltraServer the type is sold in
        for purchase in purchases:
            price = instance_key(t.name, job.region, purchase).look_up(book)  # the estimate's price key
            assert price is not None
            notes: list[str] = []
            smallest = None
            if job.deadline_hours is not None:
                limit = ULTRACLUSTER_MAX.get(t.accelerator.name)
                cap = None if limit is None else limit // t.accelerator_count // unit * unit
                n, smallest = cheapest_for_deadline(job, peak, mfu, purchase, price.usd, unit, cap)
                if n != smallest:
                    run_small = run_hours(job.parameters, job.tokens, smallest * peak, mfu)
                    notes.append(
                        f"cheapest count that meets the deadline; the smallest, {smallest:,}, runs "
                        f"{run_small:,.1f} h billed {billed_hours(run_small, purchase):,.0f} h for "
                        f"${total_usd(smallest, run_small, purchase, price.usd):,.2f}"
                    )
            else:
                n = job.instances or 1
                if n % unit:
                    n += unit - n % unit
                    notes.append(f"rounded up to whole UltraServers of {unit} ({ultras[0].name})")
            run = run_hours(job.parameters, job.tokens, n * peak, mfu)
            billed = billed_hours(run, purchase)
            if purchase == "capacity-block":
                if run > blocks.MAX_HOURS:
                    notes.append(
                        f"run longer than the longest Capacity Block ({blocks.MAX_DAYS} days): billed as consecutive blocks"
                    )
                if n > blocks.MAX_INSTANCES_PER_ACCOUNT:
                    notes.append(
                        f"more than {blocks.MAX_INSTANCES_PER_ACCOUNT} instances: several Capacity Blocks, above "
                        "the default account limit across blocks"
                    )
                elif n > blocks.MAX_INSTANCES_PER_BLOCK:
                    notes.append(f"more than {blocks.MAX_INSTANCES_PER_BLOCK} instances: several Capacity Blocks")
            limit = ULTRACLUSTER_MAX.get(t.accelerator.name)
            if limit is not None and n * t.accelerator_count > limit:
                notes.append(
                    f"{n * t.accelerator_count:,} {t.accelerator.name} is more than an EC2 UltraCluster holds ({limit:,})"
                )
            if price.assumption:
                notes.append(f"assumption: {price.assumption}")
            unsold_here = not_sold(t.name, job.region, purchase)
            if unsold_here is not None:
                notes.append(f"AWS does not sell {t.name} {purchase} in {job.region}: {unsold_here.reason}")
            used_families.add(t.family)
            candidates.append(
                Candidate(
                    instance_type=t.name,
                    purchase=purchase,
                    instances=n,
                    smallest_instances=smallest,
                    run_hours=round(run, 3),
                    billed_hours=_r(billed, 3),
                    total_usd=None if billed is None else round(n * billed * price.usd, 2),
                    usd_per_dense_pflop_hour=_r(price.usd / peak, 4),
                    usd_per_hour=price.usd,
                    dense_pflops_per_instance=_r(peak, 3),
                    mfu=mfu,
                    source=price.source,
                    as_of=price.as_of,
                    price_book=price.book,
                    notes=tuple(notes),
                )
            )
    candidates.sort(key=ranking)
    notes = [f"{fam}: {text}" for fam, text in sorted(headline_notes().items()) if fam in used_families]
    if not_offered:
        notes.append(f"not offered in {job.region} (left out): {', '.join(not_offered)}")
    if unsold:
        notes.append(f"not sold in {job.region} (left out): {'; '.join(unsold)}")
    if unpriced:
        notes.append(f"no price in book '{book.name}' for {job.region} (left out): {'; '.join(unpriced)}")
    if no_mfu:
        notes.append(f"no --mfu given for the family of: {', '.join(no_mfu)}")
    listed = [] if types else _listed_without_cost(job, cat)
    if listed:
        notes.append(
            "listed without a cost (the EC2 API lists no instance type for them and AWS publishes no price yet): "
            + "; ".join(
                f"{u.name} ({u.accelerators} {u.accelerator}, {u.dense_pflops:,.1f} dense PFLOPS "
                f"{job.precision}" + (f", {u.run_hours:,.1f} h on one" if u.run_hours is not None else "") + ")"
                for u in listed
            )
        )
    inputs = CompareInputs(
        job.parameters,
        job.tokens,
        job.precision,
        tuple(sorted(job.mfu.items())),
        job.region,
        job.instances,
        job.deadline_hours,
    )
    return CompareSection(book.name, inputs, tuple(candidates), tuple(listed), tuple(notes))


def ranking(c: Candidate) -> tuple[bool, float, str, str]:
    """Cheapest total first; a row without a total last."""
    return (c.total_usd is None, c.total_usd or 0, c.instance_type, c.purchase)


def _listed_without_cost(job: Job, cat: Catalogue) -> list[ListedWithoutCost]:
    """UltraServer types AWS sells whose member the EC2 API does not list (Trn3): their figures and the job's
    run time on one of them, no price (none is published)."""
    out = []
    for u in cat.ultraserver_types.values():
        if u.declarable:
            continue
        peak = u.peak_pflops(f"{job.precision}_dense")
        mfu = job.mfu_for(u.family or "")
        if peak is None:
            continue
        out.append(
            ListedWithoutCost(
                u.name,
                u.title,
                u.accelerators,
                u.accelerator.name,
                round(peak, 3),
                None if mfu is None else round(run_hours(job.parameters, job.tokens, peak, mfu), 1),
                "the EC2 API lists no instance type for it yet and AWS publishes no price",
                u.source,
            )
        )
    return out
