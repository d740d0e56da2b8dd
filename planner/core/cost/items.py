"""Cost components per resource kind, then one pricing pass (as Infracost builds cost
components, then looks their prices up).

A builder turns one resource of a declared cluster into `Component`s: what is billed, how
much of it, and the `PriceKey` its price is looked up by. `price` then looks every key up in
a price book at once. The estimate (and so `plan`, `diff` and the policy pack), `compare`
(through `instance_key`) and the live-price overlay (`keys`, which prices to fetch) share
these builders and keys, so a resource kind is priced in one place.

Priced with the instances: the gp3 root volume each instance of the components gets
(`root_volume_gib`, see `root_volumes`). A cluster read back from a program whose launch
templates do not say their root volume's size and type leaves it unpriced, with a note.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue.instance_types import Catalogue
from planner.core.cost.book import STORAGE, Price, PriceBook
from planner.core.model.cluster import Lustre, NodeGroup, Path, Purchase, Stack

HOURS_PER_MONTH = 730
EC2_RESOURCE = "aws:ec2/instance:Instance"
CAPACITY_BLOCK_RESOURCE = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
LUSTRE_RESOURCE = "aws:fsx/lustreFileSystem:LustreFileSystem"
EBS_RESOURCE = (
    "aws:ebs/volume:Volume"  # what is billed: the EBS volumes EC2 creates from the launch templates' mappings
)
ROOT_VOLUMES_SUFFIX = " root volumes"  # a node group's root-volume line item is named "<group> root volumes"
ROOT_VOLUME_TYPE = "gp3"  # what the components create (planner.components.accelerated_cluster.launch_template_args)


@dataclass(frozen=True)
class PriceKey:
    """What a price is looked up by: `instance` (type, region, purchase), `lustre` (region, deployment type,
    throughput) or `ebs` (region, volume type)."""

    kind: str
    parts: tuple[Any, ...]

    def look_up(self, book: PriceBook) -> Price | None:
        if self.kind == "instance":
            return book.instance(*self.parts)
        if self.kind == "lustre":
            return book.lustre_price(*self.parts)
        if self.kind == "ebs":
            return book.ebs_price(*self.parts)
        raise ValueError(f"no price lookup for {self.kind!r}")


def instance_key(instance_type: str, region: str, purchase: Purchase) -> PriceKey:
    return PriceKey("instance", (instance_type, region, purchase))


def lustre_key(region: str, fs: Lustre) -> PriceKey:
    return PriceKey("lustre", (region, fs.deployment_type, fs.per_unit_storage_throughput))


def ebs_key(region: str, volume_type: str = ROOT_VOLUME_TYPE, charge: str = STORAGE) -> PriceKey:
    return PriceKey("ebs", (region, volume_type, charge))


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


Billed = Callable[[float | None, Purchase], tuple[float | None, str | None]]


def node_group(stack: Stack, g: NodeGroup, run: float | None, cat: Catalogue, billed: Billed) -> Iterator[Component]:
    """A node group: instance-hours of its type and purchase (Capacity Blocks billed in whole blocks)."""
    from planner.core.cost.offers import not_sold

    hours, note = billed(run, g.purchase)
    detail: dict[str, Any] = {
        "instance_type": g.instance_type,
        "purchase": g.purchase,
        "region": stack.region,
        "instances": g.count,
    }
    if g.purchase == "capacity-block" and hours is not None and hours <= blocks.MAX_HOURS:
        detail["usable_hours"] = blocks.usable_hours(hours)  # instances stop 30 minutes before the block ends
    ultra = cat.ultraserver_of(g)
    size = ultra.members if ultra else None
    billed_instances = g.count
    if ultra:
        detail["ultraserver_type"] = ultra.name
        detail["ultraservers"] = cat.ultraservers_in(g)
        if g.purchase == "capacity-block" and g.count % ultra.members:
            # an UltraServer Capacity Block is booked whole: the members left idle are paid for too
            billed_instances = detail["ultraservers"] * ultra.members
            detail.update(billed_instances=billed_instances, idle_instances=billed_instances - g.count)

    def missing(book: PriceBook) -> tuple[str, dict[str, Any]]:
        gone = not_sold(g.instance_type, stack.region, g.purchase)
        if gone is not None:
            return f"AWS does not sell {g.instance_type} {g.purchase} in {stack.region}: {gone.reason}", {
                "not_sold": True
            }
        return f"no {g.purchase} price for {g.instance_type} in {stack.region} in price book '{book.name}'", {}

    yield Component(
        CAPACITY_BLOCK_RESOURCE if g.purchase == "capacity-block" else EC2_RESOURCE,
        g.name,
        "instance-hour",
        instance_key(g.instance_type, stack.region, g.purchase),
        billed_instances,
        hours,
        run,
        1,
        detail,
        g.path + ("instance_type",),
        note,
        missing,
        size or None,
    )


def lustre(stack: Stack, fs: Lustre, run: float | None) -> Iterator[Component]:
    """An FSx for Lustre file system: GB-months of its deployment type and throughput."""
    tput = f" at {fs.per_unit_storage_throughput} MB/s/TiB" if fs.per_unit_storage_throughput else ""

    def missing(book: PriceBook) -> tuple[str, dict[str, Any]]:
        return (
            f"no price for FSx for Lustre {fs.deployment_type}{tput} in {stack.region} in price book '{book.name}'",
            {},
        )

    yield Component(
        LUSTRE_RESOURCE,
        "lustre",
        "GB-month",
        lustre_key(stack.region, fs),
        fs.storage_capacity_gib,
        run,
        run,
        HOURS_PER_MONTH,
        {
            "deployment_type": fs.deployment_type,
            "per_unit_storage_throughput": fs.per_unit_storage_throughput,
            "storage_capacity_gib": fs.storage_capacity_gib,
            "region": stack.region,
        },
        fs.path + ("deployment_type",),
        None,
        missing,
    )


def root_volumes(stack: Stack, g: NodeGroup, run: float | None) -> Iterator[Component]:
    """The gp3 root volumes of a node group: GB-months of `root_volume_gib` per instance, for the run hours.

    EBS is billed on its own, per GB-month provisioned, whatever the instances are bought as:
    not rounded to Capacity Block durations. Only storage is billed: the components create gp3
    with the default IOPS and throughput, and the gp3 price includes a baseline of 3,000 IOPS
    and 125 MiB/s ("The default for gp3 volumes is 3,000 IOPS", EC2 API, EbsBlockDevice:
    https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/ec2/aws.sdk.kotlin.services.ec2.model/-ebs-block-device/iops.html;
    the baseline is in the storage price on https://aws.amazon.com/ebs/pricing/). A group read
    back without a known size (`root_volume_gib` None) has no component: `unpriced_root_volumes`
    says so in the estimate's notes.
    """
    gib = g.root_volume_gib
    if gib is None:
        return

    def missing(book: PriceBook) -> tuple[str, dict[str, Any]]:
        return f"no price for EBS {ROOT_VOLUME_TYPE} storage in {stack.region} in price book '{book.name}'", {}

    yield Component(
        EBS_RESOURCE,
        g.name + ROOT_VOLUMES_SUFFIX,
        "GB-month",
        ebs_key(stack.region),
        g.count * gib,
        run,
        run,
        HOURS_PER_MONTH,
        {"volume_type": ROOT_VOLUME_TYPE, "gib_per_instance": gib, "instances": g.count, "region": stack.region},
        g.path if stack.cluster.root_volume_gib is None else stack.cluster.path + ("root_volume_gib",),
        None,
        missing,
    )


def unpriced_root_volumes(stack: Stack) -> str | None:
    """The estimate's note on node groups whose root volumes are not priced (size unknown), or None."""
    names = [g.name for g in stack.cluster.node_groups if g.root_volume_gib is None]
    if not names:
        return None
    return (
        f"root volumes of node group(s) {', '.join(repr(n) for n in names)} are not priced: their size is not "
        f"known (read from a launch template's block device mapping for the root device, {ROOT_VOLUME_TYPE} only); "
        "this estimate leaves them out"
    )


def build(stack: Stack, run: float | None, cat: Catalogue, billed: Billed) -> list[Component]:
    """Every component of `stack`, in report order: each node group and its root volumes, then the file system."""
    out: list[Component] = []
    for g in stack.cluster.node_groups:
        out += node_group(stack, g, run, cat, billed)
        out += root_volumes(stack, g, run)
    if stack.cluster.lustre is not None:
        out += lustre(stack, stack.cluster.lustre, run)
    return out


def keys(stacks: Iterable[Stack], cat: Catalogue) -> set[PriceKey]:
    """Every price key the stacks' components need (the live-price overlay fetches these)."""
    out: set[PriceKey] = set()
    for s in stacks:
        out |= {c.key for c in build(s, None, cat, lambda run, purchase: (run, None))}
    return out
