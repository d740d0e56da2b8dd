"""The price-performance question, answered with dense figures: what does a training job cost,
and how long does it take, on each instance type and purchase option with a price?

Cost = instances x billed hours x USD per instance-hour, where billed hours are the run
hours, rounded up to a bookable block for Capacity Blocks. Price/performance is USD per
dense PFLOP-hour at the job's precision: sparse or mixed-precision headlines are listed as
notes, never used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from planner import blocks, yamlload
from planner.catalogue import Catalogue, InstanceType
from planner.cost.book import PriceBook
from planner.cost.training import dense_peak, instances_for_deadline, run_hours
from planner.model import PURCHASES


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


def _offered(t: InstanceType) -> list[str]:
    """Purchase options the catalogue says exist for a type (UltraServer members: Capacity Blocks only)."""
    return [p for p in PURCHASES
            if (p == "on-demand" and not t.ultraserver_size) or (p == "spot" and t.spot) or (p == "capacity-block" and t.capacity_block)]


@lru_cache(maxsize=1)
def headline_notes() -> Mapping[str, str]:
    notes = yamlload.load_data("prices/headlines.yaml")[0]["notes"]
    return {k: " ".join(v.split()) for k, v in notes.items()}


def _r(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def compare(job: Job, book: PriceBook, cat: Catalogue, types: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every (instance type, purchase) with a price in `job.region`, cheapest total first."""
    candidates: list[dict[str, Any]] = []
    unpriced: list[str] = []
    no_mfu: list[str] = []
    used_families: set[str] = set()
    for t in cat.instance_types.values():
        if types and t.name not in types:
            continue
        purchases = [p for p in PURCHASES if book.instance(t.name, job.region, p) is not None]
        missing = [p for p in _offered(t) if p not in purchases]
        if missing:
            unpriced.append(f"{t.name} ({', '.join(missing)})")
        if not purchases:
            continue
        mfu = job.mfu_for(t.family)
        peak = dense_peak(t, job.precision)
        if mfu is None or peak is None:
            no_mfu.append(t.name)
            continue
        unit = t.ultraserver_size or 1
        for purchase in purchases:
            price = book.instance(t.name, job.region, purchase)
            assert price is not None
            notes: list[str] = []
            if job.deadline_hours is not None:
                n = instances_for_deadline(job.parameters, job.tokens, peak, mfu, job.deadline_hours, unit)
            else:
                n = job.instances or 1
                if n % unit:
                    n += unit - n % unit
                    notes.append(f"rounded up to whole UltraServers of {unit}")
            run = run_hours(job.parameters, job.tokens, n * peak, mfu)
            billed: float | None = run
            if purchase == "capacity-block":
                billed = blocks.round_up_to_block(run)
                if billed is None:
                    notes.append(f"run longer than the longest Capacity Block ({blocks.MAX_DAYS} days): total not estimated")
                if n > blocks.MAX_INSTANCES_PER_ACCOUNT:
                    notes.append(f"more than {blocks.MAX_INSTANCES_PER_ACCOUNT} instances: several Capacity Blocks, above "
                                 "the default account limit across blocks")
                elif n > blocks.MAX_INSTANCES_PER_BLOCK:
                    notes.append(f"more than {blocks.MAX_INSTANCES_PER_BLOCK} instances: several Capacity Blocks")
            if price.assumption:
                notes.append(f"assumption: {price.assumption}")
            used_families.add(t.family)
            candidates.append({
                "instance_type": t.name,
                "purchase": purchase,
                "instances": n,
                "run_hours": _r(run, 3),
                "billed_hours": _r(billed, 3),
                "total_usd": None if billed is None else _r(n * billed * price.usd, 2),
                "usd_per_dense_pflop_hour": _r(price.usd / peak, 4),
                "usd_per_hour": price.usd,
                "dense_pflops_per_instance": _r(peak, 3),
                "mfu": mfu,
                "source": price.source,
                "as_of": price.as_of,
                "price_book": price.book,
                "notes": notes,
            })
    candidates.sort(key=lambda c: (c["total_usd"] is None, c["total_usd"] or 0, c["instance_type"], c["purchase"]))
    notes = [f"{fam}: {text}" for fam, text in sorted(headline_notes().items()) if fam in used_families]
    if unpriced:
        notes.append(f"no price in book '{book.name}' for {job.region} (left out): {'; '.join(unpriced)}")
    if no_mfu:
        notes.append(f"no --mfu given for the family of: {', '.join(no_mfu)}")
    return {
        "price_book": book.name,
        "inputs": {"parameters": job.parameters, "tokens": job.tokens, "precision": job.precision,
                   "mfu": dict(sorted(job.mfu.items())), "region": job.region, "instances": job.instances,
                   "deadline_hours": job.deadline_hours},
        "candidates": candidates,
        "notes": notes,
    }
