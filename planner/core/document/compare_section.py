"""The compare section of the document: what one training job costs, and how long it takes,
on each instance type and purchase option with a price (`planner compare`).

Figures are as the producer (`planner.core.cost.price_performance`) rounded them, so the renderers format
and never compute; the codec (`planner.core.document.codec`) writes and reads them.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Struct

from planner.core.document.block_offerings_section import CapacityOption
from planner.core.document.codec import key
from planner.core.document.run_time_section import RunTimePrediction
from planner.core.model.cluster import Purchase


class CompareInputs(Struct, frozen=True):
    """The job as asked: size, precision, MFU (by family; `*` for every other family), region, and a
    fixed count or a deadline."""

    parameters: float
    tokens: float
    precision: str
    mfu: Annotated[tuple[tuple[str, float], ...], key(shape="pairs")]  # (family or "*", MFU), sorted
    region: str
    instances: int | None
    deadline_hours: float | None
    # with `--model`: its name (or config.json) and page, and the run's shape the prediction times
    model: Annotated[str | None, key(omit="none")] = None
    model_source: Annotated[str | None, key(omit="none")] = None
    sequence_length: Annotated[int | None, key(omit="none")] = None
    global_batch_tokens: Annotated[int | None, key(omit="none")] = None
    budget_usd: Annotated[float | None, key(omit="none")] = None


class BookPrice(Struct, frozen=True):
    """The price book's figure for a Capacity Block row priced from an offering (`compare --capacity`)."""

    usd_per_hour: float
    total_usd: float | None
    source: str
    as_of: str
    price_book: str


class Offered(Struct, frozen=True):
    """`compare --capacity` on a Capacity Block row: the offering it is priced from (None: none found,
    priced from the book) and the book's figure it replaced."""

    offering: CapacityOption | None
    book: Annotated[BookPrice | None, key(omit="none")] = None


class Candidate(Struct, frozen=True):
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
    offered: Annotated[Offered | None, key(flatten=True)] = None
    # only with `compare --model` and no MFU for the type's family: the run the step-time model predicts
    run_time: Annotated[RunTimePrediction | None, key(omit="none")] = None


class ListedWithoutCost(Struct, frozen=True):
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


class CompareSection(Struct, frozen=True):
    """Every (instance type, purchase) with a price in the job's region, cheapest total first, and the notes
    on what was left out and why."""

    price_book: str
    inputs: CompareInputs
    candidates: tuple[Candidate, ...]
    listed_without_cost: tuple[ListedWithoutCost, ...] = ()
    notes: tuple[str, ...] = ()
