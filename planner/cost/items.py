"""Cost components per resource kind, then one pricing pass (as Infracost builds cost
components, then looks their prices up).

A builder turns one resource of a declared cluster into `Component`s: what is billed, how
much of it, and the `PriceKey` its price is looked up by. `price` then looks every key up in
a price book at once. The estimate (and so `plan`, `diff` and the policy pack), `compare`
(through `instance_key`) and the live-price overlay (`keys`, which prices to fetch) share
these builders and keys, so a resource kind is priced in one place.

Not built: the root EBS volume each instance of the components gets (`root_volume_gib`,
gp3). No per-region gp3 price from an AWS page or a Price List mirror could be read here,
so it is left out rather than priced with a figure of unknown origin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from planner.catalogue import Catalogue
from planner.cost.book import Price, PriceBook
from planner.model import Lustre, NodeGroup, Path, Stack

HOURS_PER_MONTH = 730
EC2_RESOURCE = "aws:ec2/instance:Instance"
CAPACITY_BLOCK_RESOURCE = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
LUSTRE_RESOURCE = "aws:fsx/lustreFileSystem:LustreFileSystem"


@dataclass(frozen=True)
class PriceKey:
    """What a price is looked up by: `instance` (type, region, purchase) or `lustre` (region, deployment type, throughput)."""

    kind: str
    parts: tuple[Any, ...]

    def look_up(self, book: PriceBook) -> Price | None:
        if self.kind == "instance":
            return book.instance(*self.parts)
        if self.kind == "lustre":
            return book.lustre_price(*self.parts)
        raise ValueError(f"no price lookup for {self.kind!r}")


def instance_key(instance_type: str, region: str, purchase: str) -> PriceKey:
    return PriceKey("instance", (instance_type, region, purchase))


def lustre_key(region: str, fs: Lustre) -> PriceKey:
    return PriceKey("lustre", (region, fs.deployment_type, fs.per_unit_storage_throughput))


@dataclass(frozen=True)
class Component:
    """One billed quantity before pricing: `amount` units for `hours`, priced by `key`.

    `quantity` and `hourly` turn a unit price into the line item's quantity and hourly cost;
    `missing` is the note when the book has no price for `key`.
    """

    resource: str
    name: str
    unit: str
    key: PriceKey
    amount: float  # instances, or GiB
    hours: float | None  # billed hours
    run_hours: float | None
    divisor: float  # hours per billed unit of `amount`: 1 for instance-hours, 730 for GB-months
    detail: dict[str, Any] = field(default_factory=dict)
    path: Path = ()
    note: str | None = None
    missing: Callable[[PriceBook], tuple[str, dict[str, Any]]] | None = None
    unit_size: int | None = None  # instances per UltraServer: the line item also gives the UltraServer-hour

    @property
    def quantity(self) -> float | None:
        return None if self.hours is None else self.amount * self.hours / self.divisor

    def hourly(self, price: Price | None) -> float | None:
        return None if price is None else self.amount * price.usd / self.divisor


Billed = Callable[[float | None, str], tuple[float | None, str | None]]


def node_group(stack: Stack, g: NodeGroup, run: float | None, cat: Catalogue, billed: Billed) -> Iterator[Component]:
    """A node group: instance-hours of its type and purchase (Capacity Blocks billed in whole blocks)."""
    from planner.cost.offers import not_sold

    hours, note = billed(run, g.purchase)
    detail: dict[str, Any] = {"instance_type": g.instance_type, "purchase": g.purchase, "region": stack.region,
                              "instances": g.count}
    size = cat.instance_types[g.instance_type].ultraserver_size
    if size:
        detail["ultraservers"] = g.count // size

    def missing(book: PriceBook) -> tuple[str, dict[str, Any]]:
        gone = not_sold(g.instance_type, stack.region, g.purchase)
        if gone is not None:
            return f"AWS does not sell {g.instance_type} {g.purchase} in {stack.region}: {gone.reason}", {"not_sold": True}
        return f"no {g.purchase} price for {g.instance_type} in {stack.region} in price book '{book.name}'", {}

    yield Component(CAPACITY_BLOCK_RESOURCE if g.purchase == "capacity-block" else EC2_RESOURCE, g.name,
                    "instance-hour", instance_key(g.instance_type, stack.region, g.purchase), g.count, hours, run, 1,
                    detail, g.path + ("instance_type",), note, missing, size or None)


def lustre(stack: Stack, fs: Lustre, run: float | None) -> Iterator[Component]:
    """An FSx for Lustre file system: GB-months of its deployment type and throughput."""
    tput = f" at {fs.per_unit_storage_throughput} MB/s/TiB" if fs.per_unit_storage_throughput else ""

    def missing(book: PriceBook) -> tuple[str, dict[str, Any]]:
        return f"no price for FSx for Lustre {fs.deployment_type}{tput} in {stack.region} in price book '{book.name}'", {}

    yield Component(LUSTRE_RESOURCE, "lustre", "GB-month", lustre_key(stack.region, fs), fs.storage_capacity_gib, run, run,
                    HOURS_PER_MONTH,
                    {"deployment_type": fs.deployment_type, "per_unit_storage_throughput": fs.per_unit_storage_throughput,
                     "storage_capacity_gib": fs.storage_capacity_gib, "region": stack.region},
                    fs.path + ("deployment_type",), None, missing)


def build(stack: Stack, run: float | None, cat: Catalogue, billed: Billed) -> list[Component]:
    """Every component of `stack`, in report order: node groups, then the file system."""
    out: list[Component] = []
    for g in stack.cluster.node_groups:
        out += node_group(stack, g, run, cat, billed)
    if stack.cluster.lustre is not None:
        out += lustre(stack, stack.cluster.lustre, run)
    return out


def keys(stacks: Iterable[Stack], cat: Catalogue) -> set[PriceKey]:
    """Every price key the stacks' components need (the live-price overlay fetches these)."""
    out: set[PriceKey] = set()
    for s in stacks:
        out |= {c.key for c in build(s, None, cat, lambda run, purchase: (run, None))}
    return out
