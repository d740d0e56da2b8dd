"""The compare section of the document: what one training job costs, and how long it takes,
on each instance type and purchase option with a price (`planner compare`).

Figures are as the producer (`planner.core.cost.price_performance`) rounded them, so the renderers format
and never compute; `from_json(to_json(x)) == x`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.core.document.block_offerings_section import CapacityOption
from planner.core.model.cluster import Purchase


@dataclass(frozen=True)
class CompareInputs:
    """The job as asked: size, precision, MFU (by family; `*` for every other family), region, and a
    fixed count or a deadline."""

    parameters: float
    tokens: float
    precision: str
    mfu: tuple[tuple[str, float], ...]  # (family or "*", MFU), sorted
    region: str
    instances: int | None
    deadline_hours: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "parameters": self.parameters,
            "tokens": self.tokens,
            "precision": self.precision,
            "mfu": dict(self.mfu),
            "region": self.region,
            "instances": self.instances,
            "deadline_hours": self.deadline_hours,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CompareInputs:
        return cls(
            d["parameters"],
            d["tokens"],
            d["precision"],
            tuple(d["mfu"].items()),
            d["region"],
            d["instances"],
            d["deadline_hours"],
        )


@dataclass(frozen=True)
class BookPrice:
    """The price book's figure for a Capacity Block row priced from an offering (`compare --capacity`)."""

    usd_per_hour: float
    total_usd: float | None
    source: str
    as_of: str
    price_book: str

    def to_json(self) -> dict[str, Any]:
        return {
            "usd_per_hour": self.usd_per_hour,
            "total_usd": self.total_usd,
            "source": self.source,
            "as_of": self.as_of,
            "price_book": self.price_book,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BookPrice:
        return cls(d["usd_per_hour"], d["total_usd"], d["source"], d["as_of"], d["price_book"])


@dataclass(frozen=True)
class Offered:
    """`compare --capacity` on a Capacity Block row: the offering it is priced from (None: none found,
    priced from the book) and the book's figure it replaced."""

    offering: CapacityOption | None
    book: BookPrice | None = None


@dataclass(frozen=True)
class Candidate:
    """One (instance type, purchase) row: the count, the hours run and billed, the total and the price's source."""

    instance_type: str
    purchase: Purchase
    instances: int
    smallest_instances: int | None  # with a deadline: the smallest count that meets it (the cheapest may be larger)
    run_hours: float
    billed_hours: float | None
    total_usd: float | None
    usd_per_dense_pflop_hour: float | None
    usd_per_hour: float
    dense_pflops_per_instance: float | None
    mfu: float
    source: str
    as_of: str
    price_book: str
    notes: tuple[str, ...] = ()
    offered: Offered | None = None  # only with `compare --capacity`, on Capacity Block rows

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "instance_type": self.instance_type,
            "purchase": self.purchase,
            "instances": self.instances,
            "smallest_instances": self.smallest_instances,
            "run_hours": self.run_hours,
            "billed_hours": self.billed_hours,
            "total_usd": self.total_usd,
            "usd_per_dense_pflop_hour": self.usd_per_dense_pflop_hour,
            "usd_per_hour": self.usd_per_hour,
            "dense_pflops_per_instance": self.dense_pflops_per_instance,
            "mfu": self.mfu,
            "source": self.source,
            "as_of": self.as_of,
            "price_book": self.price_book,
            "notes": list(self.notes),
        }
        if self.offered is not None:
            out["offering"] = None if self.offered.offering is None else self.offered.offering.to_json()
            if self.offered.book is not None:
                out["book"] = self.offered.book.to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Candidate:
        offered = None
        if "offering" in d:
            offered = Offered(
                None if d["offering"] is None else CapacityOption.from_json(d["offering"]),
                BookPrice.from_json(d["book"]) if "book" in d else None,
            )
        return cls(
            d["instance_type"],
            d["purchase"],
            d["instances"],
            d["smallest_instances"],
            d["run_hours"],
            d["billed_hours"],
            d["total_usd"],
            d["usd_per_dense_pflop_hour"],
            d["usd_per_hour"],
            d["dense_pflops_per_instance"],
            d["mfu"],
            d["source"],
            d["as_of"],
            d["price_book"],
            tuple(d["notes"]),
            offered,
        )


@dataclass(frozen=True)
class ListedWithoutCost:
    """An UltraServer type AWS sells whose members the EC2 API does not list (no price is published):
    its figures and the job's run time on one of them."""

    ultraserver_type: str
    name: str
    accelerators: int
    accelerator: str
    dense_pflops: float
    run_hours: float | None
    why: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "ultraserver_type": self.ultraserver_type,
            "name": self.name,
            "accelerators": self.accelerators,
            "accelerator": self.accelerator,
            "dense_pflops": self.dense_pflops,
            "run_hours": self.run_hours,
            "why": self.why,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ListedWithoutCost:
        return cls(
            d["ultraserver_type"],
            d["name"],
            d["accelerators"],
            d["accelerator"],
            d["dense_pflops"],
            d["run_hours"],
            d["why"],
            d["source"],
        )


@dataclass(frozen=True)
class CompareSection:
    """Every (instance type, purchase) with a price in the job's region, cheapest total first, and the notes
    on what was left out and why."""

    price_book: str
    inputs: CompareInputs
    candidates: tuple[Candidate, ...]
    listed_without_cost: tuple[ListedWithoutCost, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "price_book": self.price_book,
            "inputs": self.inputs.to_json(),
            "candidates": [c.to_json() for c in self.candidates],
            "listed_without_cost": [u.to_json() for u in self.listed_without_cost],
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CompareSection:
        return cls(
            d["price_book"],
            CompareInputs.from_json(d["inputs"]),
            tuple(Candidate.from_json(c) for c in d["candidates"]),
            tuple(ListedWithoutCost.from_json(u) for u in d["listed_without_cost"]),
            tuple(d["notes"]),
        )
