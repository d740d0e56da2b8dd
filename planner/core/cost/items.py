"""Cost components per resource kind, then one pricing pass (as Infracost builds cost
components, then looks their prices up).

A builder turns one resource of a declared cluster into `Component`s: what is billed, how
much of it, and the `PriceKey` its price is looked up by. `price` then looks every key up in
a price book at once. The estimate (and so `plan`, `diff` and the policy pack), `compare`
(through `instance_key`) and the live-price overlay (`keys`, which prices to fetch) share
these builders and keys, so a resource kind is priced in one place.

Priced with the instances: every EBS volume each instance gets (`volumes`): the gp3 root
volume of `root_volume_gib` the components create, or, read back from a program, every volume
its launch templates, instances, EKS node groups or Karpenter node classes map, each billed for
its storage, its provisioned IOPS and throughput (`charges`). A volume whose size or type the
program does not declare (the AMI's default mapping) is left out, and named (`left_out_volumes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from msgspec import Struct, field

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.catalogue.instance_types import Catalogue
from planner.core.cost.book import EBS_CHARGES, STORAGE, Price, PriceBook
from planner.core.model.cluster import (
    PRICED_VOLUME_TYPES,
    ROOT_SIZE_UNKNOWN,
    ROOT_VOLUME_TYPE,
    Lustre,
    NodeGroup,
    Path,
    Purchase,
    Stack,
    Volume,
)

HOURS_PER_MONTH = 730
EC2_RESOURCE = "aws:ec2/instance:Instance"
CAPACITY_BLOCK_RESOURCE = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
LUSTRE_RESOURCE = "aws:fsx/lustreFileSystem:LustreFileSystem"
EBS_RESOURCE = (
    "aws:ebs/volume:Volume"  # what is billed: the EBS volumes EC2 creates from the launch templates' mappings
)
ROOT_VOLUMES_SUFFIX = " root volumes"  # a node group's root-volume line item is named "<group> root volumes"
VOLUMES_SUFFIX = " volumes"  # its other volumes' "<group> volumes <device>"
# gp3's storage price includes a baseline of 3,000 IOPS and 125 MiB/s: only what is provisioned above it is
# billed ("All gp3 volumes include a free baseline performance of 3,000 provisioned IOPS ... and 125
# provisioned MB/s throughput", the Amazon EBS pricing page, https://aws.amazon.com/ebs/pricing/; a volume
# that declares none gets them: "The default for gp3 volumes is 3,000 IOPS", EC2 API, EbsBlockDevice).
GP3_BASELINE_IOPS = 3000
GP3_BASELINE_MIBPS = 125
# io2's provisioned IOPS are billed in three tiers: up to 32,000 IOPS, 32,001 to 64,000, and above 64,000
# (the Amazon EBS pricing page; the Price List prices them as EBS:VolumeP-IOPS.io2, .io2.tier2 and
# .io2.tier3, each listed from 0 IOPS, so the bounds are the page's). (charge, IOPS below it, its last IOPS)
IO2_TIERS: tuple[tuple[str, int, int | None], ...] = (
    ("iops", 0, 32_000),
    ("iops-tier-2", 32_000, 64_000),
    ("iops-tier-3", 64_000, None),
)


class PriceKey(Struct, frozen=True):
    """What a price is looked up by: `instance` (type, region, purchase), `lustre` (region, deployment type,
    throughput), `lustre-tiering` (region, Intelligent-Tiering charge) or `ebs` (region, volume type)."""

    kind: str
    parts: tuple[Any, ...]

    def look_up(self, book: PriceBook) -> Price | None:
        if self.kind == "instance":
            return book.instance(*self.parts)
        if self.kind == "lustre":
            return book.lustre_price(*self.parts)
        if self.kind == "ebs":
            return book.ebs_price(*self.parts)
        if self.kind == "lustre-tiering":
            return book.tiering_price(*self.parts)
        raise ValueError(f"no price lookup for {self.kind!r}")


def instance_key(instance_type: str, region: str, purchase: Purchase) -> PriceKey:
    return PriceKey("instance", (instance_type, region, purchase))


def lustre_key(region: str, fs: Lustre) -> PriceKey:
    return PriceKey("lustre", (region, fs.deployment_type, fs.per_unit_storage_throughput))


def tiering_key(region: str, charge: str) -> PriceKey:
    return PriceKey("lustre-tiering", (region, charge))


def ebs_key(region: str, volume_type: str = ROOT_VOLUME_TYPE, charge: str = STORAGE) -> PriceKey:
    return PriceKey("ebs", (region, volume_type, charge))


class Component(Struct, frozen=True):
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
        why = book.unknown_instance(g.instance_type, stack.region, g.purchase)
        text = f"no {g.purchase} price for {g.instance_type} in {stack.region} in price book '{book.name}'"
        if why is not None:  # the book says why it has none
            text += f": {why.reason} ({why.source}, as of {why.as_of})"
        return text, {}

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
    """An FSx for Lustre file system: GB-months of its deployment type and throughput (Intelligent-Tiering:
    `tiering`)."""
    if fs.storage_capacity_gib is None:
        yield from tiering(stack, fs, run)
        return
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


# Why the built-in book has no Intelligent-Tiering prices: said on the line item instead of a bare "no price".
TIERING_UNPRICED = (
    "no dated public copy of AWS's FSx for Lustre Intelligent-Tiering rates was found for planner's built-in book "
    "(the FSx for Lustre pricing page gives them: https://aws.amazon.com/fsx/lustre/pricing/); give one in "
    "a price book of your own (`lustre_tiering:`)"
)
# What an Intelligent-Tiering file system bills that no declaration sizes (the estimate's `left_out`).
TIERING_STORAGE_LEFT_OUT = "FSx for Lustre Intelligent-Tiering storage (billed per GB stored: usage)"
PROPORTIONAL_CACHE_LEFT_OUT = (
    "FSx for Lustre SSD read cache sized with the throughput capacity (its size is not declared)"
)


def tiering(stack: Stack, fs: Lustre, run: float | None) -> Iterator[Component]:
    """An FSx for Lustre Intelligent-Tiering file system: MBps-months of its throughput capacity, and GB-months
    of a USER_PROVISIONED SSD read cache. The data it stores is billed per GB stored (usage: `left_out`), and
    a cache sized with the throughput capacity has no size planner knows (`left_out` too)."""

    def missing(what: str) -> Callable[[PriceBook], tuple[str, dict[str, Any]]]:
        def note(book: PriceBook) -> tuple[str, dict[str, Any]]:
            return (
                f"no price for FSx for Lustre Intelligent-Tiering {what} in {stack.region} in price book "
                f"'{book.name}': {TIERING_UNPRICED}",
                {},
            )

        return note

    detail = {
        "deployment_type": fs.deployment_type,
        "per_unit_storage_throughput": None,
        "storage_capacity_gib": None,
        "region": stack.region,
        "storage_type": fs.storage_type,
    }
    # (line, unit, charge, the model field it bills, what the missing note calls it): the throughput capacity,
    # and a USER_PROVISIONED read cache (a cache sized with the throughput has no size to bill: `left_out`)
    parts = [
        ("lustre throughput", "MBps-month", "throughput_capacity", "throughput_capacity_mbps", "throughput capacity")
    ]
    if fs.read_cache_sizing_mode == "USER_PROVISIONED":
        parts.append(("lustre read cache", "GB-month", "read_cache", "read_cache_size_gib", "SSD read cache"))
    for name, unit, charge, key, what in parts:
        amount = getattr(fs, key)
        if not amount:
            continue
        yield Component(
            LUSTRE_RESOURCE,
            name,
            unit,
            tiering_key(stack.region, charge),
            amount,
            run,
            run,
            HOURS_PER_MONTH,
            {**detail, key: amount},
            fs.path + (key,),
            None,
            missing(what),
        )


def left_out_tiering(fs: Lustre | None) -> list[str]:
    """What of an Intelligent-Tiering file system no estimate can price from its declaration: the data it
    stores (usage), and an SSD read cache sized with the throughput capacity."""
    if fs is None or not fs.intelligent_tiering:
        return []
    out = [TIERING_STORAGE_LEFT_OUT]
    if fs.read_cache_sizing_mode == "PROPORTIONAL_TO_THROUGHPUT_CAPACITY":
        out.append(PROPORTIONAL_CACHE_LEFT_OUT)
    return out


class Charge(Struct, frozen=True):
    """One thing a volume bills: `charge` (`EBS_CHARGES`) on `units` per volume (GiB, IOPS, MiB/s), above
    the `over` units a baseline or a lower tier covers."""

    charge: str
    units: int
    over: int = 0


def charges(v: Volume) -> tuple[list[Charge], tuple[str, str] | None]:
    """What one volume bills, and what of it cannot be priced: (what, why), `what` a suffix of its line's name
    ("" for the whole volume, " IOPS"). gp2, st1 and sc1 bill storage alone (their performance comes with it);
    gp3 its IOPS and throughput above the baseline; io1 every provisioned IOPS; io2 its IOPS by tier."""
    t = v.volume_type
    if v.unknown is not None:
        return [], ("", v.unknown)
    if t is None:
        return [], ("", "type unknown: not declared")
    if t not in PRICED_VOLUME_TYPES:
        known = "standard (magnetic) volumes also bill each I/O request, which no program declares"
        return [], ("", known if t == "standard" else f"volume type '{t}' unknown")
    if v.size_gib is None:
        return [], ("", ROOT_SIZE_UNKNOWN)
    out = [Charge(STORAGE, v.size_gib)]
    if t == "gp3":
        iops = GP3_BASELINE_IOPS if v.iops is None else v.iops
        if iops > GP3_BASELINE_IOPS:
            out.append(Charge("iops", iops - GP3_BASELINE_IOPS, GP3_BASELINE_IOPS))
        mibps = GP3_BASELINE_MIBPS if v.throughput is None else v.throughput
        if mibps > GP3_BASELINE_MIBPS:
            out.append(Charge("throughput", mibps - GP3_BASELINE_MIBPS, GP3_BASELINE_MIBPS))
    elif t in ("io1", "io2"):
        if v.iops is None:  # EC2 requires them for io1 and io2: left out, never guessed
            return out, (" IOPS", f"{t} IOPS not declared")
        if t == "io1":
            out.append(Charge("iops", v.iops))
        else:
            for charge, below, last in IO2_TIERS:
                n = min(v.iops, v.iops if last is None else last) - below
                if n > 0:
                    out.append(Charge(charge, n, below))
    return out, None


def volume_name(g: NodeGroup, v: Volume) -> str:
    """The line items' name of a volume: "<group> root volumes", else "<group> volumes <device>"."""
    if v.root:
        return g.name + ROOT_VOLUMES_SUFFIX
    return f"{g.name}{VOLUMES_SUFFIX} {v.device}".rstrip()


def _charge_name(c: Charge) -> str:
    if c.charge == STORAGE:
        return ""
    if c.charge == "throughput":
        return " throughput"
    tier = next(((below, last) for charge, below, last in IO2_TIERS if charge == c.charge), None)
    if c.charge == "iops" or tier is None:
        return " IOPS"
    below, last = tier
    return f" IOPS {below + 1:,}-{last:,}" if last is not None else f" IOPS above {below:,}"


def volumes(stack: Stack, g: NodeGroup, run: float | None) -> Iterator[Component]:
    """Every EBS volume of a node group's instances: per volume, the GB-months of its storage, and the
    IOPS-months and MiBps-months it provisions above what its storage price includes, for the run hours.

    EBS is billed on its own, per GB-month provisioned, whatever the instances are bought as: not rounded
    to Capacity Block durations. The components create one gp3 root volume per instance with gp3's default
    IOPS and throughput, so only its storage is billed. A volume the estimate cannot price (its size or
    type not declared) has no component: `left_out_volumes` names it.
    """
    for v in g.ebs:
        billed, _ = charges(v)
        t = v.volume_type or ""
        base = volume_name(g, v)
        for c in billed:
            what = EBS_CHARGES[c.charge]
            detail: dict[str, Any] = {
                "volume_type": t,
                "gib_per_instance": v.size_gib,
                "instances": g.count,
                "region": stack.region,
            }
            if not v.root and v.device:
                detail["device"] = v.device
            if c.charge != STORAGE:
                detail.update(charge=c.charge, billed_per_instance=c.units, over=c.over or None)
            if v.iops is not None:
                detail["iops"] = v.iops
            if v.throughput is not None:
                detail["throughput"] = v.throughput
            label = _charge_name(c).strip() or "storage"

            def missing(book: PriceBook, t: str = t, label: str = label) -> tuple[str, dict[str, Any]]:
                return f"no price for EBS {t} {label} in {stack.region} in price book '{book.name}'", {}

            declared = v.root and g.volumes is None and stack.cluster.root_volume_gib is not None
            yield Component(
                EBS_RESOURCE,
                base + _charge_name(c),
                what.unit,
                ebs_key(stack.region, t, c.charge),
                g.count * c.units,
                run,
                run,
                HOURS_PER_MONTH,
                detail,
                stack.cluster.path + ("root_volume_gib",) if declared else g.path,
                v.basis,
                missing,
            )


def volume_owner(line_name: str, groups: Iterable[str]) -> str | None:
    """The node group (of `groups`) whose volume a line item bills, from the line's name (`volume_name`)."""
    owners = [
        g
        for g in groups
        if line_name.startswith((g + ROOT_VOLUMES_SUFFIX, g + VOLUMES_SUFFIX + " ")) or line_name == g + VOLUMES_SUFFIX
    ]
    return max(owners, key=len) if owners else None


def left_out_volumes(groups: Iterable[NodeGroup]) -> list[str]:
    """What of the groups' volumes the estimate cannot price, each in a few words:
    `gpus root volumes (size unknown: the AMI's default mapping)`."""
    out = []
    for g in groups:
        for v in g.ebs:
            _, gap = charges(v)
            if gap is not None:
                out.append(f"{volume_name(g, v)}{gap[0]} ({gap[1]})")
    return out


def unpriced_volumes(stack: Stack) -> str | None:
    """The estimate's note on the EBS volumes it leaves out (their size or type not declared), or None."""
    names = left_out_volumes(stack.cluster.node_groups)
    if not names:
        return None
    return (
        f"EBS volumes not priced: {'; '.join(names)}; the program does not declare what they bill (a root "
        "volume without a mapping of its own takes the AMI's size and type), so this estimate leaves them out"
    )


def build(stack: Stack, run: float | None, cat: Catalogue, billed: Billed) -> list[Component]:
    """Every component of `stack`, in report order: each node group and its volumes, then the file system."""
    out: list[Component] = []
    for g in stack.cluster.node_groups:
        out += node_group(stack, g, run, cat, billed)
        out += volumes(stack, g, run)
    if stack.cluster.lustre is not None:
        out += lustre(stack, stack.cluster.lustre, run)
    return out


def keys(stacks: Iterable[Stack], cat: Catalogue) -> set[PriceKey]:
    """Every price key the stacks' components need (the live-price overlay fetches these)."""
    out: set[PriceKey] = set()
    for s in stacks:
        out |= {c.key for c in build(s, None, cat, lambda run, purchase: (run, None))}
    return out
