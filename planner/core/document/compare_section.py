"""The compare section of the document: what one training job costs, and how long it takes,
on each instance type and purchase option with a price (`planner compare`).

Figures are as the producer (`planner.core.cost.price_performance`) rounded them, so the renderers format
and never compute; the codec (`planner.core.document.codec`) writes and reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.core.document.block_offerings_section import CapacityOption
from planner.core.document.codec import key
from planner.core.document.run_time_section import RunTimePrediction
from planner.core.model.cluster import Purchase


@dataclass(frozen=True)
class CompareInputs:
    """The job as asked: size, precision, MFU (by family; `*` for every other family), region, and a
    fixed count or a deadline."""

    parameters: float
    tokens: float
    precision: str
    mfu: tuple[tuple[str, float], ...] = field(metadata=key(shape="pairs"))  # (family or "*", MFU), sorted
    region: str
    instances: int | None
    deadline_hours: float | None
    # with `--model`: its name (or config.json) and page, and the run's shape the prediction times
    model: str | None = field(default=None, metadata=key(omit="none"))
    model_source: str | None = field(default=None, metadata=key(omit="none"))
    sequence_length: int | None = field(default=None, metadata=key(omit="none"))
    global_batch_tokens: int | None = field(default=None, metadata=key(omit="none"))
    budget_usd: float | None = field(default=None, metadata=key(omit="none"))


@dataclass(frozen=True)
class BookPrice:
    """The price book's figure for a Capacity Block row priced from an offering (`compare --capacity`)."""

    usd_per_hour: float
    total_usd: float | None
    source: str
    as_of: str
    price_book: str


@dataclass(frozen=True)
class Offered:
    """`compare --capacity` on a Capacity Block row: the offering it is priced from (None: none found,
    priced from the book) and the book's figure it replaced."""

    offering: CapacityOption | None
    book: BookPrice | None = field(default=None, metadata=key(omit="none"))


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
    # only with `compare --capacity`, on Capacity Block rows: its keys (`offering`, `book`) in the row's
    offered: Offered | None = field(default=None, metadata=key(flatten=True))
    # only with `compare --model` and no MFU for the type's family: the run the step-time model predicts
    run_time: RunTimePrediction | None = field(default=None, metadata=key(omit="none"))


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


@dataclass(frozen=True)
class CompareSection:
    """Every (instance type, purchase) with a price in the job's region, cheapest total first, and the notes
    on what was left out and why."""

    price_book: str
    inputs: CompareInputs
    candidates: tuple[Candidate, ...]
    listed_without_cost: tuple[ListedWithoutCost, ...] = ()
    notes: tuple[str, ...] = ()
