"""The capacity section of the document: what `planner capacity` found, in one typed value.

Two answers, one section: a search (`CapacitySearch`: the offerings DescribeCapacityBlockOfferings
showed in each region, ranked, and the pick) or a stack's own blocks (`CapacityExtension`: do
the booked Capacity Blocks cover the run, else their extension offerings). Every figure is as
the producer (`planner.core.cost.block_offerings`) rounded it, times are ISO strings in UTC (`...Z`), so
the renderers format and never compute; `from_json(to_json(x)) == x`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _strs(values: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


@dataclass(frozen=True)
class CapacityNeed:
    """One cluster searched for: a type, how many (whole UltraServers for member types), the run's hours."""

    instance_type: str
    instances: int
    ultraserver_type: str | None
    ultraservers: int | None
    run_hours: float
    hours_basis: str  # where the hours came from: "--hours", "schedule.hours", "workload"

    def to_json(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "instances": self.instances,
            "ultraserver_type": self.ultraserver_type,
            "ultraservers": self.ultraservers,
            "run_hours": self.run_hours,
            "hours_basis": self.hours_basis,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacityNeed:
        return cls(
            d["instance_type"],
            d["instances"],
            d["ultraserver_type"],
            d["ultraservers"],
            d["run_hours"],
            d["hours_basis"],
        )


@dataclass(frozen=True)
class CapacityQuery:
    """One DescribeCapacityBlockOfferings request: a duration and an instance, or UltraServer, count."""

    capacity_duration_hours: int
    instance_type: str | None = None
    instance_count: int | None = None
    ultraserver_type: str | None = None
    ultraserver_count: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"capacity_duration_hours": self.capacity_duration_hours}
        if self.ultraserver_type:
            out.update(ultraserver_type=self.ultraserver_type, ultraserver_count=self.ultraserver_count)
        else:
            out.update(instance_type=self.instance_type, instance_count=self.instance_count)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacityQuery:
        return cls(
            d["capacity_duration_hours"],
            d.get("instance_type"),
            d.get("instance_count"),
            d.get("ultraserver_type"),
            d.get("ultraserver_count"),
        )


@dataclass(frozen=True)
class RegionAnswer:
    """What one region was asked and what it said: how many offerings, or the one line why none could be read."""

    region: str
    instance_type: str  # the need it was asked for (an UltraServer type for UltraServer searches)
    asked: tuple[CapacityQuery, ...]
    offerings: int
    offering_ids: tuple[str, ...]
    error: str | None
    code: str | None  # the AWS error code, or planner's (Timeout, NotAws)

    def to_json(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "instance_type": self.instance_type,
            "asked": [q.to_json() for q in self.asked],
            "offerings": self.offerings,
            "offering_ids": list(self.offering_ids),
            "error": self.error,
            "code": self.code,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RegionAnswer:
        return cls(
            d["region"],
            d["instance_type"],
            tuple(CapacityQuery.from_json(q) for q in d["asked"]),
            d["offerings"],
            _strs(d["offering_ids"]),
            d["error"],
            d["code"],
        )


@dataclass(frozen=True)
class CapacityOption:
    """One way to buy the cluster: one offering, or several of the same dates in one Availability Zone."""

    instance_type: str
    ultraserver_type: str | None
    offering_ids: tuple[str, ...]
    region: str
    availability_zone: str
    local_zone: bool
    opt_in_group: str | None  # a Local Zone's zone group (opted into before buying)
    start: str | None
    end: str | None
    hours: float
    usable_hours: float
    instances: int
    blocks: tuple[int, ...]  # instances per block
    upfront_usd: float
    usd_per_instance_hour: float
    finish: str | None
    meets_deadline: bool | None

    def to_json(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "ultraserver_type": self.ultraserver_type,
            "offering_ids": list(self.offering_ids),
            "region": self.region,
            "availability_zone": self.availability_zone,
            "local_zone": self.local_zone,
            "opt_in_group": self.opt_in_group,
            "start": self.start,
            "end": self.end,
            "hours": self.hours,
            "usable_hours": self.usable_hours,
            "instances": self.instances,
            "blocks": list(self.blocks),
            "upfront_usd": self.upfront_usd,
            "usd_per_instance_hour": self.usd_per_instance_hour,
            "finish": self.finish,
            "meets_deadline": self.meets_deadline,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacityOption:
        return cls(
            d["instance_type"],
            d["ultraserver_type"],
            _strs(d["offering_ids"]),
            d["region"],
            d["availability_zone"],
            d["local_zone"],
            d["opt_in_group"],
            d["start"],
            d["end"],
            d["hours"],
            d["usable_hours"],
            d["instances"],
            tuple(d["blocks"]),
            d["upfront_usd"],
            d["usd_per_instance_hour"],
            d["finish"],
            d["meets_deadline"],
        )


@dataclass(frozen=True)
class CapacityPick:
    """The option to buy, whether it fits the deadline and budget, and what it misses when not."""

    option: CapacityOption
    fits: bool
    why: str | None

    def to_json(self) -> dict[str, Any]:
        return {**self.option.to_json(), "fits": self.fits, "why": self.why}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacityPick:
        return cls(CapacityOption.from_json(d), d["fits"], d["why"])


@dataclass(frozen=True)
class NextSteps:
    """What to run and set after: printed, never run by planner."""

    purchase_commands: tuple[str, ...]
    stack_keys: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"purchase_commands": list(self.purchase_commands), "stack_keys": list(self.stack_keys)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NextSteps:
        return cls(_strs(d["purchase_commands"]), _strs(d["stack_keys"]))


@dataclass(frozen=True)
class CapacitySearch:
    """A search: what was needed, each region's answer, the options ranked, and the pick.

    Several needs are alternatives (`--instance-type` given more than once), ranked together.
    """

    needs: tuple[CapacityNeed, ...]
    node_group: str | None
    source: str  # the stack file, or "<command line>"
    earliest: str | None
    deadline: str | None
    max_usd: float | None
    regions: tuple[RegionAnswer, ...]
    options: tuple[CapacityOption, ...]
    pick: CapacityPick | None
    next: NextSteps | None
    notes: tuple[str, ...]
    source_page: str
    purchase_source: str
    termination_lead_minutes: int  # AWS stops a block's instances this long before it ends

    @property
    def fits(self) -> bool:
        return self.pick is not None and self.pick.fits

    def exit_code(self) -> int:
        """0 when the pick fits; 1 when there is none, or it misses the deadline or --max-usd."""
        return 0 if self.fits else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "needs": [n.to_json() for n in self.needs],
            "node_group": self.node_group,
            "source": self.source,
            "earliest": self.earliest,
            "deadline": self.deadline,
            "max_usd": self.max_usd,
            "regions": [r.to_json() for r in self.regions],
            "options": [o.to_json() for o in self.options],
            "pick": None if self.pick is None else self.pick.to_json(),
            "next": None if self.next is None else self.next.to_json(),
            "notes": list(self.notes),
            "source_page": self.source_page,
            "purchase_source": self.purchase_source,
            "termination_lead_minutes": self.termination_lead_minutes,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacitySearch:
        return cls(
            tuple(CapacityNeed.from_json(n) for n in d["needs"]),
            d["node_group"],
            d["source"],
            d["earliest"],
            d["deadline"],
            d["max_usd"],
            tuple(RegionAnswer.from_json(r) for r in d["regions"]),
            tuple(CapacityOption.from_json(o) for o in d["options"]),
            None if d["pick"] is None else CapacityPick.from_json(d["pick"]),
            None if d["next"] is None else NextSteps.from_json(d["next"]),
            _strs(d["notes"]),
            d["source_page"],
            d["purchase_source"],
            d["termination_lead_minutes"],
        )


@dataclass(frozen=True)
class ExtensionOffer:
    """One DescribeCapacityBlockExtensionOfferings offering for a booked block."""

    offering_id: str
    start: str | None
    end: str | None
    hours: int
    usable_hours_after: float | None
    upfront_usd: float
    currency: str

    def to_json(self) -> dict[str, Any]:
        return {
            "offering_id": self.offering_id,
            "start": self.start,
            "end": self.end,
            "hours": self.hours,
            "usable_hours_after": self.usable_hours_after,
            "upfront_usd": self.upfront_usd,
            "currency": self.currency,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExtensionOffer:
        return cls(
            d["offering_id"], d["start"], d["end"], d["hours"], d["usable_hours_after"], d["upfront_usd"], d["currency"]
        )


@dataclass(frozen=True)
class ExtensionPick:
    """The extension chosen for a block too short: the cheapest that gives the run its hours."""

    offering_id: str
    upfront_usd: float
    end: str | None

    def to_json(self) -> dict[str, Any]:
        return {"offering_id": self.offering_id, "upfront_usd": self.upfront_usd, "end": self.end}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExtensionPick:
        return cls(d["offering_id"], d["upfront_usd"], d["end"])


@dataclass(frozen=True)
class BookedBlock:
    """A Capacity Block the stack names (DescribeCapacityReservations); None figures: it could not be read."""

    capacity_reservation_id: str
    availability_zone: str | None
    instance_type: str | None
    instances: int | None
    start: str | None
    end: str | None
    hours: float | None
    usable_hours: float | None
    covers_run: bool
    error: str | None
    short_by_hours: float | None
    asked_extension_hours: tuple[int, ...]
    extensions: tuple[ExtensionOffer, ...]  # cheapest first
    pick: ExtensionPick | None

    def to_json(self) -> dict[str, Any]:
        return {
            "capacity_reservation_id": self.capacity_reservation_id,
            "availability_zone": self.availability_zone,
            "instance_type": self.instance_type,
            "instances": self.instances,
            "start": self.start,
            "end": self.end,
            "hours": self.hours,
            "usable_hours": self.usable_hours,
            "covers_run": self.covers_run,
            "error": self.error,
            "short_by_hours": self.short_by_hours,
            "asked_extension_hours": list(self.asked_extension_hours),
            "extensions": [e.to_json() for e in self.extensions],
            "pick": None if self.pick is None else self.pick.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BookedBlock:
        return cls(
            d["capacity_reservation_id"],
            d["availability_zone"],
            d["instance_type"],
            d["instances"],
            d["start"],
            d["end"],
            d["hours"],
            d["usable_hours"],
            d["covers_run"],
            d["error"],
            d["short_by_hours"],
            tuple(d["asked_extension_hours"]),
            tuple(ExtensionOffer.from_json(e) for e in d["extensions"]),
            None if d["pick"] is None else ExtensionPick.from_json(d["pick"]),
        )


@dataclass(frozen=True)
class CapacityExtension:
    """A stack's booked blocks: whether they cover the run, else each one's extension offerings and what to run."""

    need: CapacityNeed
    node_group: str | None
    source: str
    deadline: str | None
    max_usd: float | None
    region: str
    resource_group_arn: str | None
    error: str | None  # the one line why the blocks could not be read at all
    run_start: str | None
    finish: str | None
    covers_run: bool
    meets_deadline: bool | None
    reservations: tuple[BookedBlock, ...]
    extension_upfront_usd: float | None
    within_budget: bool | None
    next: NextSteps | None
    source_page: str

    def exit_code(self) -> int:
        """0 when the blocks cover the run (or extensions that fit, within --max-usd, do) by the deadline; else 1."""
        failed = self.error is not None or any(b.error for b in self.reservations)
        extended = self.next is not None and self.within_budget is not False
        return 0 if not failed and self.meets_deadline is not False and (self.covers_run or extended) else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "needs": [self.need.to_json()],
            "node_group": self.node_group,
            "source": self.source,
            "deadline": self.deadline,
            "max_usd": self.max_usd,
            "region": self.region,
            "resource_group_arn": self.resource_group_arn,
            "error": self.error,
            "run_start": self.run_start,
            "finish": self.finish,
            "covers_run": self.covers_run,
            "meets_deadline": self.meets_deadline,
            "reservations": [b.to_json() for b in self.reservations],
            "extension_upfront_usd": self.extension_upfront_usd,
            "within_budget": self.within_budget,
            "next": None if self.next is None else self.next.to_json(),
            "source_page": self.source_page,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CapacityExtension:
        (need,) = d["needs"]
        return cls(
            CapacityNeed.from_json(need),
            d["node_group"],
            d["source"],
            d["deadline"],
            d["max_usd"],
            d["region"],
            d["resource_group_arn"],
            d["error"],
            d["run_start"],
            d["finish"],
            d["covers_run"],
            d["meets_deadline"],
            tuple(BookedBlock.from_json(b) for b in d["reservations"]),
            d["extension_upfront_usd"],
            d["within_budget"],
            None if d["next"] is None else NextSteps.from_json(d["next"]),
            d["source_page"],
        )


CapacitySection = CapacitySearch | CapacityExtension


def capacity_from_json(d: dict[str, Any]) -> CapacitySection:
    """The section from its JSON: an extension check names the stack's reservations, a search does not."""
    return CapacityExtension.from_json(d) if "reservations" in d else CapacitySearch.from_json(d)
