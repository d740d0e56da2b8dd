"""The cost section of a stack: the estimate as every format shows it, line item by line item.

Figures are as the cost model (`planner.core.cost.estimate.CostEstimate.to_json`) rounded them:
the document carries them, it does not compute them, so a renderer prints what the JSON
says and a saved report re-renders to the same bytes. What a line item bills is in its
`detail`, one shape per kind of resource (instances, root volumes, the Lustre file system),
each with the keys that kind has always had in the JSON, in the same order, and the
optional ones only when set (docs/output.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.core.model.cluster import DeploymentType, Purchase


@dataclass(frozen=True)
class InstanceDetail:
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
    usable_hours: float | None = None
    ultraserver_type: str | None = None
    ultraservers: int | None = None
    billed_instances: int | None = None
    idle_instances: int | None = None
    usd_per_ultraserver_hour: float | None = None
    not_sold: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "instance_type": self.instance_type,
            "purchase": self.purchase,
            "region": self.region,
            "instances": self.instances,
        }
        if self.usable_hours is not None:
            out["usable_hours"] = self.usable_hours
        if self.ultraserver_type is not None:
            out["ultraserver_type"] = self.ultraserver_type
            out["ultraservers"] = self.ultraservers
        if self.billed_instances is not None:
            out["billed_instances"] = self.billed_instances
            out["idle_instances"] = self.idle_instances
        if self.ultraserver_type is not None:
            out["usd_per_ultraserver_hour"] = self.usd_per_ultraserver_hour
        if self.not_sold:
            out["not_sold"] = True
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> InstanceDetail:
        return cls(
            d["instance_type"],
            d["purchase"],
            d["region"],
            d["instances"],
            d.get("usable_hours"),
            d.get("ultraserver_type"),
            d.get("ultraservers"),
            d.get("billed_instances"),
            d.get("idle_instances"),
            d.get("usd_per_ultraserver_hour"),
            bool(d.get("not_sold")),
        )


@dataclass(frozen=True)
class VolumeDetail:
    """What a root-volume line item bills: `gib_per_instance` GiB of `volume_type` on each instance."""

    volume_type: str
    gib_per_instance: int
    instances: int
    region: str

    def to_json(self) -> dict[str, Any]:
        return {
            "volume_type": self.volume_type,
            "gib_per_instance": self.gib_per_instance,
            "instances": self.instances,
            "region": self.region,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VolumeDetail:
        return cls(d["volume_type"], d["gib_per_instance"], d["instances"], d["region"])


@dataclass(frozen=True)
class LustreDetail:
    """What the file system's line item bills: its deployment type, throughput and capacity."""

    deployment_type: DeploymentType
    per_unit_storage_throughput: int | None
    storage_capacity_gib: int
    region: str

    def to_json(self) -> dict[str, Any]:
        return {
            "deployment_type": self.deployment_type,
            "per_unit_storage_throughput": self.per_unit_storage_throughput,
            "storage_capacity_gib": self.storage_capacity_gib,
            "region": self.region,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LustreDetail:
        return cls(d["deployment_type"], d.get("per_unit_storage_throughput"), d["storage_capacity_gib"], d["region"])


Detail = InstanceDetail | VolumeDetail | LustreDetail


def _detail(d: dict[str, Any]) -> Detail | None:
    """The detail a line item's JSON carries, by the key only its kind has."""
    if "instance_type" in d:
        return InstanceDetail.from_json(d)
    if "volume_type" in d:
        return VolumeDetail.from_json(d)
    if "deployment_type" in d:
        return LustreDetail.from_json(d)
    return None


@dataclass(frozen=True)
class LineItem:
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
    detail: Detail | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resource": self.resource,
            "name": self.name,
            "unit": self.unit,
            "quantity": self.quantity,
            "unit_price_usd": self.unit_price_usd,
            "total_usd": self.total_usd,
            "hourly_usd": self.hourly_usd,
            "hours": self.hours,
            "run_hours": self.run_hours,
            "source": self.source,
            "as_of": self.as_of,
            "assumption": self.assumption,
            "price_book": self.price_book,
            "note": self.note,
        }
        if self.detail is not None:
            out.update(self.detail.to_json())
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LineItem:
        return cls(
            d["resource"],
            d["name"],
            d["unit"],
            d.get("quantity"),
            d.get("unit_price_usd"),
            d.get("total_usd"),
            d.get("hourly_usd"),
            d.get("hours"),
            d.get("run_hours"),
            d.get("source"),
            d.get("as_of"),
            d.get("assumption"),
            d.get("price_book"),
            d.get("note"),
            _detail(d),
        )


@dataclass(frozen=True)
class CostReport:
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
    left_out: tuple[str, ...] = ()
    currency: str = "USD"
    workload_estimate: CostReport | None = None
    maximum_estimate: CostReport | None = None

    @property
    def unpriced(self) -> list[str]:
        """The names of the line items without a price, in order."""
        return [i.name for i in self.line_items if i.unit_price_usd is None]

    @property
    def known_hourly_usd(self) -> float | None:
        """The hourly cost of the priced line items; None when none is priced."""
        rates = [i.hourly_usd for i in self.line_items if i.hourly_usd is not None]
        return sum(rates) if rates else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "currency": self.currency,
            "price_book": self.price_book,
            "hours_basis": self.hours_basis,
            "run_hours": self.run_hours,
            "workload_hours": self.workload_hours,
            "hours": self.hours,
            "hourly_usd": self.hourly_usd,
            "monthly_usd": self.monthly_usd,
            "total_usd": self.total_usd,
            "known_total_usd": self.known_total_usd,
            "complete": self.complete,
            "line_items": [i.to_json() for i in self.line_items],
            "notes": list(self.notes),
        }
        if self.left_out:
            out["left_out"] = list(self.left_out)
        if self.workload_estimate is not None:
            out["workload_estimate"] = self.workload_estimate.to_json()
        if self.maximum_estimate is not None:
            out["maximum_estimate"] = self.maximum_estimate.to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CostReport:
        wl, most = d.get("workload_estimate"), d.get("maximum_estimate")
        return cls(
            d["price_book"],
            d["hours_basis"],
            d.get("run_hours"),
            d.get("workload_hours"),
            d.get("hours"),
            d.get("hourly_usd"),
            d.get("monthly_usd"),
            d.get("total_usd"),
            d.get("known_total_usd"),
            bool(d["complete"]),
            tuple(LineItem.from_json(i) for i in d.get("line_items") or ()),
            tuple(d.get("notes") or ()),
            tuple(d.get("left_out") or ()),
            d.get("currency", "USD"),
            None if wl is None else cls.from_json(wl),
            None if most is None else cls.from_json(most),
        )
