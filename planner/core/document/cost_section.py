"""The cost section of a stack: the estimate as every format shows it, line item by line item.

Figures are as the cost model (`planner.core.cost.estimate.CostEstimate`) rounded them:
the document carries them, it does not compute them, so a renderer prints what the JSON
says and a saved report re-renders to the same bytes. What a line item bills is in its
`detail`, one shape per kind of resource (instances, EBS volumes, the Lustre file system),
each with the keys that kind has always had in the JSON, in the same order, and the
optional ones only when set (docs/output.md).
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from msgspec import Struct

from planner.core.document.codec import key
from planner.core.model.cluster import DeploymentType, Purchase


class InstanceDetail(Struct, frozen=True):
    """What an instance line item (EC2 or a Capacity Block) bills: type, purchase, how many.

    `usable_hours`: a Capacity Block's hours less the 30 minutes its instances stop early.
    `ultraserver_type`/`ultraservers`/`usd_per_ultraserver_hour`: set for UltraServer members
    (the price per UltraServer-hour is None when the instance price is unknown).
    `billed_instances`/`idle_instances`: an UltraServer Capacity Block booked whole with members
    left idle. `not_sold`: AWS does not sell the combination (no price is then not "unknown").
    """

    instance_type: str
    purchase: Purchase
    region: str
    instances: int
    usable_hours: Annotated[float | None, key(omit="none")] = None
    ultraserver_type: Annotated[str | None, key(omit="none")] = None
    ultraservers: Annotated[int | None, key(omit=("unless", "ultraserver_type"))] = None
    billed_instances: Annotated[int | None, key(omit="none")] = None
    idle_instances: Annotated[int | None, key(omit=("unless", "billed_instances"))] = None
    usd_per_ultraserver_hour: Annotated[float | None, key(omit=("unless", "ultraserver_type"))] = None
    not_sold: Annotated[bool, key(omit="empty")] = False


class VolumeDetail(Struct, frozen=True):
    """What an EBS volume's line item bills: one volume of `gib_per_instance` GiB of `volume_type` on each instance.

    `device`: the volume's device name, for a volume other than the root. `charge`: what the line bills when
    it is not the storage (`iops`, `iops-tier-2`, `iops-tier-3`, `throughput`), `billed_per_instance` of it
    (IOPS, MiB/s) above the `over` its baseline or lower tiers cover. `iops`/`throughput`: the volume's
    provisioned IOPS and MiB/s, as declared.
    """

    volume_type: str
    gib_per_instance: int
    instances: int
    region: str
    device: Annotated[str | None, key(omit="none")] = None
    charge: Annotated[str | None, key(omit="none")] = None
    billed_per_instance: Annotated[int | None, key(omit="none")] = None
    over: Annotated[int | None, key(omit="none")] = None
    iops: Annotated[int | None, key(omit="none")] = None
    throughput: Annotated[int | None, key(omit="none")] = None


class LustreDetail(Struct, frozen=True):
    """What the file system's line item bills: its deployment type, throughput and capacity."""

    deployment_type: DeploymentType
    per_unit_storage_throughput: int | None
    storage_capacity_gib: int | None  # None: Intelligent-Tiering, elastic storage
    region: str
    # an Intelligent-Tiering file system's line items: its storage class, and what the line bills: the
    # throughput capacity (MBps) or the SSD read cache (GiB)
    storage_type: Annotated[str | None, key(omit="none")] = None
    throughput_capacity_mbps: Annotated[int | None, key(omit="none")] = None
    read_cache_size_gib: Annotated[int | None, key(omit="none")] = None


Detail = InstanceDetail | VolumeDetail | LustreDetail


class LineItem(Struct, frozen=True):
    """One billed component: quantity x unit price = total, with the price's source and date.

    Price fields (`unit_price_usd`, `source`, `as_of`, `assumption`, `price_book`) are None when
    the price is unknown; `total_usd` too, and when there are no hours `quantity`. `hours` are
    the billed hours (a Capacity Block rounds up), `run_hours` the run's.
    """

    resource: str  # the Pulumi type token of what is billed
    name: str
    unit: str
    quantity: float | None
    unit_price_usd: float | None
    total_usd: float | None
    hourly_usd: float | None
    hours: float | None
    run_hours: float | None
    source: str | None = None
    as_of: str | None = None
    assumption: str | None = None
    price_book: str | None = None
    note: str | None = None
    detail: Annotated[Detail | None, key(flatten=True)] = None  # its keys in the item's


class PriceAge(Struct, frozen=True):
    """How old the prices an estimate uses are, counted to its price book's date (not the day the plan runs, so
    the same inputs give the same plan); set when one is more than `limit_days` older than that date.

    `oldest_as_of`: the oldest date among the prices used (a year or a month counted from its last day);
    `days`: its age on `book_as_of`; `items`: the line items whose price is more than `limit_days` old.
    """

    book_as_of: str
    oldest_as_of: str
    days: int
    items: tuple[str, ...]
    limit_days: int


class CostReport(Struct, frozen=True):
    """A stack's estimate: line items and totals, as planned (totals None when a price or the hours are unknown).

    `known_total_usd` is the priced items' sum, the lower bound shown when the total is unknown.
    `left_out`: what the estimate does not price (an elastic pool without a limit), in a few words.
    `workload_estimate`: on the workload's hours, when it needs more than `schedule.hours`;
    `maximum_estimate`: with every elastic pool at the most it may launch. Neither has its own.
    """

    price_book: str
    hours_basis: str  # "schedule.hours", "workload" or "none"
    run_hours: float | None
    workload_hours: float | None
    hours: float | None
    hourly_usd: float | None
    monthly_usd: float | None
    total_usd: float | None
    known_total_usd: float | None
    complete: bool
    line_items: tuple[LineItem, ...] = ()
    notes: tuple[str, ...] = ()
    left_out: Annotated[tuple[str, ...], key(omit="empty")] = ()
    currency: str = "USD"
    workload_estimate: Annotated[CostReport | None, key(omit="none")] = None
    maximum_estimate: Annotated[CostReport | None, key(omit="none")] = None
    # when the hourly cost is unknown: the priced line items' hourly cost, the "at least $X/h" people read
    known_hourly_usd: Annotated[float | None, key(omit="none")] = None
    # when a price used is more than 90 days older than the price book's date
    price_age: Annotated[PriceAge | None, key(omit="none")] = None

    JSON_ORDER: ClassVar[tuple[str, ...]] = (
        "currency",
        "price_book",
        "hours_basis",
        "run_hours",
        "workload_hours",
        "hours",
        "hourly_usd",
        "known_hourly_usd",
        "monthly_usd",
        "total_usd",
        "known_total_usd",
        "complete",
        "price_age",
        "line_items",
        "notes",
        "left_out",
        "workload_estimate",
        "maximum_estimate",
    )

    @property
    def unpriced(self) -> list[str]:
        """The names of the line items without a price, in order."""
        return [i.name for i in self.line_items if i.unit_price_usd is None]

    @property
    def priced_hourly_usd(self) -> float | None:
        """The hourly cost of the priced line items (the whole hourly cost when it is known); None when none is priced."""
        if self.hourly_usd is not None:
            return self.hourly_usd
        return self.known_hourly_usd
