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

import math
from collections.abc import Mapping
from functools import lru_cache

from msgspec import Struct

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue import shipped_data as _data
from planner.core.catalogue.instance_types import Catalogue, InstanceType, load
from planner.core.cost.book import PriceBook
from planner.core.cost.items import instance_key
from planner.core.cost.offers import not_sold
from planner.core.cost.training import count_for_deadline, dense_peak, hours_for_flops, training_flops
from planner.core.document.compare_section import Candidate, CompareInputs, CompareSection, ListedWithoutCost
from planner.core.model.cluster import GLOBAL_BATCH_TOKENS, PURCHASES, SEQUENCE_LENGTH, Purchase
from planner.core.model.transformer import Transformer
from planner.core.runtime_model.run_prediction import Estimate, estimate, on_system
from planner.core.runtime_model.step import Run

MIN_BLOCK_HOURS = blocks.bookable_hours()[0]
MAX_PREDICTED_COUNT = (
    4096  # instances a deadline search tries at most, for types without a documented UltraCluster size
)


class Job(Struct, frozen=True):
    """The training job: its size (parameters, or a model whose step is predicted per cluster), tokens,
    precision, the MFU where one is given, the region, and a fixed count or a deadline."""

    parameters: float
    tokens: float
    precision: str  # bf16 | fp8
    mfu: Mapping[str, float]  # by family; "*" for every other family
    region: str
    instances: int | None = None
    deadline_hours: float | None = None
    model: Transformer | None = None  # with no MFU for a family, its run is predicted (planner.core.runtime_model)
    sequence_length: int = SEQUENCE_LENGTH
    global_batch_tokens: int = GLOBAL_BATCH_TOKENS
    budget_usd: float | None = None  # drawn on the chart beside the deadline

    def mfu_for(self, family: str) -> float | None:
        return self.mfu.get(family, self.mfu.get("*"))

    def predicted(self, family: str) -> bool:
        """Its run on this family comes from the step-time model (a model and no MFU for it)."""
        return self.model is not None and self.mfu_for(family) is None

    @property
    def flops(self) -> float:
        """Training FLOPs at a flat MFU: 6 x parameters x tokens, or the model's own count per token."""
        if self.model is not None:
            return self.model.model_flops_per_token(self.sequence_length) * self.tokens
        return training_flops(self.parameters, self.tokens)

    def hours(self, peak_pflops: float, mfu: float) -> float:
        return hours_for_flops(self.flops, peak_pflops, mfu)

    @property
    def run(self) -> Run:
        return Run(self.sequence_length, max(1, self.global_batch_tokens // self.sequence_length), self.precision)


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
    smallest = count_for_deadline(job.flops, peak, mfu, job.deadline_hours, unit)
    if purchase != "capacity-block":
        return smallest, smallest
    best_n, best = (
        smallest,
        total_usd(smallest, job.hours(smallest * peak, mfu), purchase, usd_per_hour),
    )
    n = smallest + unit
    while (
        n <= max(2 * smallest, best_n * 1.25)
        and (max_count is None or n <= max_count)
        and n * MIN_BLOCK_HOURS * usd_per_hour <= (best if best is not None else float("inf"))
    ):
        t = total_usd(n, job.hours(n * peak, mfu), purchase, usd_per_hour)
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
    unfit: list[str] = []
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
        predicted = job.predicted(t.family)
        if peak is None or (mfu is None and not predicted):
            no_mfu.append(t.name)
            continue
        ultras = cat.ultraservers_of(t.name)
        unit = ultras[0].members if ultras else 1  # the smallest UltraServer the type is sold in
        ultra = ultras[0].name if ultras else None
        limit = ULTRACLUSTER_MAX.get(t.accelerator_name)
        cap = None if limit is None else limit // t.accelerator_count // unit * unit
        timed: Estimate | None = None
        timed_count = 0
        if predicted:
            if job.deadline_hours is not None:
                found = predicted_for_deadline(job, t.name, unit, ultra, cap, cat)
                if found is None:
                    unfit.append(
                        f"{t.name} (no count up to {cap or MAX_PREDICTED_COUNT:,} both holds the model and finishes in time)"
                    )
                    continue
                timed_count, timed = found
            else:
                timed_count = _whole(job.instances or 1, unit)
                timed = predict(job, t.name, timed_count, ultra, cat)
                if timed is None:
                    unfit.append(f"{t.name} x {timed_count:,} (no parallel layout of the model fits)")
                    continue
        for purchase in purchases:
            price = instance_key(t.name, job.region, purchase).look_up(book)  # the estimate's price key
            assert price is not None
            notes: list[str] = []
            smallest = None
            if timed is not None:
                n, smallest = timed_count, (timed_count if job.deadline_hours is not None else None)
                if job.deadline_hours is None and n != (job.instances or 1):
                    notes.append(f"rounded up to whole UltraServers of {unit} ({ultra})")
                run, mfu = timed.run_hours, timed.mfu
                if purchase == "capacity-block" and job.deadline_hours is not None:
                    cheaper = cheapest_predicted(job, t.name, unit, ultra, cap, n, timed, price.usd, cat)
                    if cheaper is not None:
                        notes.append(
                            f"cheapest count that meets the deadline; the smallest, {n:,}, runs {run:,.1f} h "
                            f"billed {billed_hours(run, purchase):,.0f} h for ${total_usd(n, run, purchase, price.usd):,.2f}"
                        )
                        n, timed = cheaper
                        run, mfu = timed.run_hours, timed.mfu
            elif job.deadline_hours is not None:
                assert mfu is not None and peak is not None
                n, smallest = cheapest_for_deadline(job, peak, mfu, purchase, price.usd, unit, cap)
                if n != smallest:
                    run_small = job.hours(smallest * peak, mfu)
                    notes.append(
                        f"cheapest count that meets the deadline; the smallest, {smallest:,}, runs "
                        f"{run_small:,.1f} h billed {billed_hours(run_small, purchase):,.0f} h for "
                        f"${total_usd(smallest, run_small, purchase, price.usd):,.2f}"
                    )
                run = job.hours(n * peak, mfu)
            else:
                assert mfu is not None
                n = _whole(job.instances or 1, unit)
                if n != (job.instances or 1):
                    notes.append(f"rounded up to whole UltraServers of {unit} ({ultra})")
                run = job.hours(n * peak, mfu)
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
            limit = ULTRACLUSTER_MAX.get(t.accelerator_name)
            if limit is not None and n * t.accelerator_count > limit:
                notes.append(
                    f"{n * t.accelerator_count:,} {t.accelerator_name} is more than an EC2 UltraCluster holds ({limit:,})"
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
                    mfu=round(mfu, 3) if timed is not None else mfu,
                    source=price.source,
                    as_of=price.as_of,
                    price_book=price.book,
                    notes=tuple(notes),
                    run_time=None if timed is None else timed.report(),
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
    if unfit:
        notes.append(f"no predicted run (left out): {'; '.join(unfit)}")
    listed = [] if types else _listed_without_cost(job, cat)
    if listed:
        notes.append(
            "listed without a cost (the EC2 API lists no instance type for them and AWS publishes no price yet): "
            + "; ".join(
                f"{u.name} ({u.accelerators} {u.accelerator}, {u.dense_pflops:,.1f} dense PFLOPS "
                f"{job.precision}"
                + (f", {u.run_hours:,.1f} h on one" if u.run_hours is not None else "")
                + (
                    f", predicted with no reference measured on {u.accelerator}: extrapolated from the "
                    f"{'Trainium' if u.accelerator.startswith('Trainium') else 'NVIDIA'} references"
                    if u.run_hours is not None and job.predicted(cat.ultraserver_types[u.ultraserver_type].family or "")
                    else ""
                )
                + (
                    ", no parallel layout of the model fits one (its accelerators divide neither the layers nor "
                    "the batch, or the model does not fit)"
                    if u.run_hours is None and job.predicted(cat.ultraserver_types[u.ultraserver_type].family or "")
                    else ""
                )
                + ")"
                for u in listed
            )
        )
    model = job.model
    inputs = CompareInputs(
        job.parameters,
        job.tokens,
        job.precision,
        tuple(sorted(job.mfu.items())),
        job.region,
        job.instances,
        job.deadline_hours,
        model=None if model is None else model.name,
        model_source=None if model is None else model.source,
        sequence_length=None if model is None else job.sequence_length,
        global_batch_tokens=None if model is None else job.global_batch_tokens,
        budget_usd=job.budget_usd,
    )
    return CompareSection(book.name, inputs, tuple(candidates), tuple(listed), tuple(notes))


def _whole(n: int, unit: int) -> int:
    """`n` rounded up to whole UltraServers of `unit` members."""
    return -(-n // unit) * unit


def predict(job: Job, instance_type: str, n: int, ultra: str | None, cat: Catalogue) -> Estimate | None:
    """The job's predicted run on `n` instances (joined in `ultra`s), cached across purchase options."""
    assert job.model is not None
    return _predicted(job.model, job.run, job.tokens, instance_type, n, ultra)


@lru_cache(maxsize=4096)
def _predicted(
    model: Transformer, run: Run, tokens: float, instance_type: str, n: int, ultra: str | None
) -> Estimate | None:
    return estimate(model, instance_type, n, run, tokens, ultra, cat=load())


def predicted_for_deadline(
    job: Job, instance_type: str, unit: int, ultra: str | None, cap: int | None, cat: Catalogue
) -> tuple[int, Estimate] | None:
    """The fewest instances (whole UltraServers) whose predicted run meets the deadline, with that run.

    Scaling is sublinear (communication grows, the batch splits finer), so `n x hours(n) / deadline`
    never overshoots the count needed: stepping by it from a count that fits lands on the smallest
    that meets the deadline. A count that fits no layout (its accelerators divide neither the layers
    nor the batch) is stepped over."""
    deadline = job.deadline_hours
    assert deadline is not None
    top = cap or MAX_PREDICTED_COUNT
    n = unit
    found = predict(job, instance_type, n, ultra, cat)
    while found is None:  # the fewest that hold the model, doubling
        n *= 2
        if n > top:
            return None
        found = predict(job, instance_type, n, ultra, cat)
    if found.run_hours <= deadline and n > unit:  # the first fitting count meets it: a smaller one may too
        low = n // 2
        while n - low > unit:
            mid = _whole((low + n) // 2, unit)
            if mid >= n:
                break
            e = predict(job, instance_type, mid, ultra, cat)
            if e is not None and e.run_hours <= deadline:
                n, found = mid, e
            else:
                low = mid
        return n, found
    while found is None or found.run_hours > deadline:
        step = n + unit if found is None else max(n + unit, _whole(math.ceil(n * found.run_hours / deadline), unit))
        if step > top:
            return None
        n, found = step, predict(job, instance_type, step, ultra, cat)
    return n, found


def cheapest_predicted(
    job: Job,
    instance_type: str,
    unit: int,
    ultra: str | None,
    cap: int | None,
    n: int,
    timed: Estimate,
    usd_per_hour: float,
    cat: Catalogue,
) -> tuple[int, Estimate] | None:
    """A larger count whose shorter Capacity Block costs less in total than `n`'s, if one does (up to
    25 % more instances): a count is predicted only when even perfect scaling would shorten its block."""
    best = total_usd(n, timed.run_hours, "capacity-block", usd_per_hour)
    billed_n = billed_hours(timed.run_hours, "capacity-block")
    if best is None or billed_n is None:
        return None
    found = None
    m = n + unit
    while m <= n * 1.25 and (cap is None or m <= cap):
        ideal = timed.run_hours * n / m  # the most a larger count can shorten the run
        billed = billed_hours(ideal, "capacity-block")
        if billed is not None and billed < billed_n and m * billed * usd_per_hour < best:
            e = predict(job, instance_type, m, ultra, cat)
            total = None if e is None else total_usd(m, e.run_hours, "capacity-block", usd_per_hour)
            if e is not None and total is not None and total < best:
                best, found = total, (m, e)
        m += unit
    return found


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
        hours = None if mfu is None else round(job.hours(peak, mfu), 1)
        if job.predicted(u.family or "") and job.model is not None:  # on one UltraServer: EFA never used
            from planner.core.runtime_model.hardware import for_ultraservers

            found = on_system(job.model, for_ultraservers(u, 1, None), job.run, job.tokens)
            hours = None if found is None else round(found.run_hours, 1)
        out.append(
            ListedWithoutCost(
                u.name,
                u.title,
                u.accelerators,
                u.accelerator.name,
                round(peak, 3),
                hours,
                "the EC2 API lists no instance type for it yet and AWS publishes no price",
                u.source,
            )
        )
    return out
