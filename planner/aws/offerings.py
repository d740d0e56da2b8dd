"""Is the instance type sold where the stack puts it, and is it the machine the catalogue describes?

Checks against EC2 DescribeInstanceTypeOfferings (per Availability Zone) and
DescribeInstanceTypes. A disagreement between the account's answer and the catalogue is
reported, never smoothed over: a warning when the catalogue may be stale, an info when the
catalogue documents why it uses another source (its `field_sources` and `notes`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from planner.aws.checks import Preflight, aws_error, check, zone_path
from planner.aws.errors import AwsCallError
from planner.core.catalogue.instance_types import InstanceType
from planner.core.input.cluster_checks import az_in_region
from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules import Rule, RuleContext
from planner.core.rules.spec_rules import Fix, move_region, nearest_region, outside, set_to

GIB = 1024.0


@check("preflight-offering")
def offering(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.option(Preflight).asked()
    for g in ctx.cluster.node_groups:
        where = zone_path(g, ctx)
        az = g.availability_zone
        if not az:  # read back from a program whose resources do not tell the zone: the region is checked
            try:
                zones = account.offered_zones(region, g.instance_type)
            except AwsCallError as err:
                yield aws_error(ctx, where, err, f"where {g.instance_type} is offered")
                continue
            if not zones and g.purchase != "capacity-block":
                yield r.finding(
                    ctx,
                    where,
                    f"node group '{g.name}': {g.instance_type} is offered in no Availability Zone of {region}",
                    fix=_zone_fix(ctx, g, [], region),
                )
            continue
        if not az_in_region(az, region):
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}': Availability Zone {az} is not in {region}, the region queried",
                fix=outside(
                    "run",
                    f"run preflight without --region {region} (the stack's region is {ctx.stack.region}), or move "
                    f"node group '{g.name}' to a zone of {region}",
                ),
            )
            continue
        try:
            zones = account.offered_zones(region, g.instance_type)
        except AwsCallError as err:
            yield aws_error(ctx, where, err, f"where {g.instance_type} is offered")
            continue
        if az in zones:
            continue
        elsewhere = (
            "offered in " + ", ".join(sorted(zones)) if zones else f"offered in no Availability Zone of {region}"
        )
        if g.purchase == "capacity-block":
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}': {g.instance_type} is not in the instance type offerings of {az} ({elsewhere}); "
                "types sold through Capacity Blocks (such as Trn2 UltraServers) are not always listed there, so the "
                "block's reservation is what counts"
                + (
                    "" if g.capacity_reservation_ids else ": declare capacity_reservation_id to have preflight check it"
                ),
                severity="warning",
                fix=_block_fix(ctx, g),
            )
        else:
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}': {g.instance_type} is not offered in {az} for {g.purchase} "
                f"instances ({elsewhere})",
                fix=_zone_fix(ctx, g, sorted(zones), region),
            )


def _zone_fix(ctx: RuleContext, g: NodeGroup, zones: list[str], region: str) -> Fix:
    """A zone of the region that offers the type (the account's answer); else the regions the catalogue
    lists for it, and the question that confirms one, since this check asked only `region`."""
    if zones:
        return Fix(
            edits=(set_to(ctx, zone_path(g, ctx), zones[0], f"{g.instance_type} is offered in {', '.join(zones)}"),)
        )
    others = [x for x in ctx.catalogue.spec(g.instance_type).regions if x != region]
    confirm = (
        "confirm with aws ec2 describe-instance-type-offerings --location-type availability-zone --filters "
        f"Name=instance-type,Values={g.instance_type} --region REGION"
    )
    if not others:
        return outside("confirm", f"move the stack to a region that offers {g.instance_type}; {confirm}")
    moved = move_region(ctx, nearest_region(region, others), f"the catalogue lists {', '.join(others)}")
    return outside("confirm", f"or {confirm}", moved)


def _block_fix(ctx: RuleContext, g: NodeGroup) -> Fix:
    """A Capacity Block group missing from the offerings: its reservation decides."""
    if g.capacity_reservation_ids:
        return outside(
            "purchase",
            f"none if preflight-reservation finds {', '.join(g.capacity_reservation_ids)} in {g.availability_zone}; "
            f"otherwise book a block there and name its reservation id as the capacity reservation of node group '{g.name}'",
        )
    if g.capacity_reservation_resource_group_arn:
        return outside(
            "purchase",
            f"none if the resource group {g.capacity_reservation_resource_group_arn} holds blocks in "
            f"{g.availability_zone}; otherwise book one there and add it to the group",
        )
    return Fix(
        f"book the block in {g.availability_zone} first",
        (set_to(ctx, g.path + ("capacity_reservation_ids",), ("cr-...",), "the block's reservation id"),),
    )


def _described(
    r: Rule, ctx: RuleContext
) -> Iterator[tuple[NodeGroup, InstanceType, dict[str, Any] | None, Finding | None]]:
    """Each node group with its catalogue entry and DescribeInstanceTypes record (or the finding why not)."""
    account, region = ctx.option(Preflight).asked()
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.spec(g.instance_type)
        try:
            yield g, t, account.instance_type(region, g.instance_type), None
        except AwsCallError as err:
            yield (
                g,
                t,
                None,
                aws_error(ctx, g.path + ("instance_type",), err, f"{g.instance_type} against DescribeInstanceTypes"),
            )


@check("preflight-efa")
def efa(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    region = ctx.option(Preflight).region
    seen: set[str] = set()
    for g, t, info, failed in _described(r, ctx):
        where = g.path + ("instance_type",)
        if failed is not None:
            yield failed
            continue
        if info is None:
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}': DescribeInstanceTypes in {region} does not know "
                f"{g.instance_type}; its EFA support could not be confirmed",
                severity="warning",
                fix=outside(
                    "confirm",
                    f"check that {region} sells {g.instance_type} (aws ec2 describe-instance-types "
                    f"--instance-types {g.instance_type} --region {region}), or move the stack to a region that does",
                ),
            )
            continue
        net = info.get("NetworkInfo") or {}
        supported = bool(net.get("EfaSupported", False))
        if g.efa and not supported:
            yield r.finding(
                ctx,
                where,
                f"node group '{g.name}' uses EFA, but DescribeInstanceTypes in {region} says "
                f"{g.instance_type} does not support EFA",
                fix=Fix(
                    f"or choose a type that DescribeInstanceTypes in {region} lists with EfaSupported: true",
                    (set_to(ctx, g.path + ("efa",), False),),
                ),
            )
        if g.instance_type in seen:
            continue
        seen.add(g.instance_type)
        if supported != t.efa_supported:
            yield r.finding(
                ctx,
                where,
                f"{g.instance_type}: the catalogue says EFA {'is' if t.efa_supported else 'is not'} "
                f"supported; DescribeInstanceTypes in {region} says EfaSupported={supported}",
                severity="warning",
                fix=_catalogue_fix(f"instance_types.{g.instance_type}.efa.supported", str(supported).lower()),
            )
        cards = net.get("MaximumNetworkCards")
        if cards is not None and cards != t.network_cards:
            yield r.finding(
                ctx,
                where,
                f"{g.instance_type}: the catalogue assumes {t.network_cards} network cards (one EFA "
                f"interface per card, and the summary's EFA bandwidth, rest on it); "
                f"DescribeInstanceTypes in {region} reports {cards}",
                severity="warning",
                fix=_catalogue_fix(f"instance_types.{g.instance_type}.network_cards", f"{cards}"),
            )
        interfaces = (net.get("EfaInfo") or {}).get("MaximumEfaInterfaces")
        if supported and interfaces is not None and interfaces != t.efa_max_interfaces:
            yield r.finding(
                ctx,
                where,
                f"{g.instance_type}: the catalogue assumes at most {t.efa_max_interfaces} EFA "
                f"interfaces; DescribeInstanceTypes in {region} reports {interfaces}",
                severity="warning",
                fix=_catalogue_fix(f"instance_types.{g.instance_type}.efa.max_interfaces", f"{interfaces}"),
            )


def _catalogue_fix(key: str, value: str) -> Fix:
    """Catalogue drift is fixed in the catalogue, not in the stack: the key and the account's value."""
    return outside(
        "catalogue",
        f"if DescribeInstanceTypes is right, set {key}: {value} in planner/data/catalogue.yaml, with its source",
    )


def _accelerators(info: dict[str, Any]) -> tuple[int | None, float | None]:
    """Accelerator count and memory per accelerator (GiB) from GpuInfo or NeuronInfo."""
    devices = (info.get("GpuInfo") or {}).get("Gpus") or (info.get("NeuronInfo") or {}).get("NeuronDevices") or []
    if not devices:
        return None, None
    count = sum(int(d.get("Count", 0)) for d in devices)
    mib = (devices[0].get("MemoryInfo") or {}).get("SizeInMiB")
    return count, (None if mib is None else mib / GIB)


def _differs(api: float, catalogue: float) -> bool:
    """Equal within 1 % or 1 GiB: EC2 reports MiB (183,359 MiB is the catalogue's 179 GiB)."""
    return abs(api - catalogue) > max(1.0, 0.01 * abs(catalogue))


@check("preflight-catalogue")
def catalogue_figures(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    region = ctx.option(Preflight).region
    seen: set[str] = set()
    for g, t, info, failed in _described(r, ctx):
        if failed is not None:
            yield failed
        if info is None or g.instance_type in seen:
            continue
        seen.add(g.instance_type)
        count, memory = _accelerators(info)
        entry = f"instance_types.{g.instance_type}"
        acc = t.accelerator
        figures = [
            ("vcpus", f"{entry}.vcpus", "vCPUs", (info.get("VCpuInfo") or {}).get("DefaultVCpus"), t.vcpus, ""),
            (
                "memory_gib",
                f"{entry}.memory_gib",
                "host memory",
                _gib((info.get("MemoryInfo") or {}).get("SizeInMiB")),
                t.memory_gib,
                " GiB",
            ),
            ("accelerator_count", f"{entry}.accelerator_count", "accelerators", count, t.accelerator_count, ""),
        ]
        if acc is not None:
            figures.append(
                (
                    "accelerator_memory",
                    f"accelerators.{acc.name}.memory_gib",
                    f"memory per {acc.name}",
                    memory,
                    acc.memory_gib,
                    " GiB",
                )
            )
        for key, setting, label, api, ours, unit in figures:
            if api is None or not _differs(float(api), float(ours)):
                continue
            message = (
                f"{g.instance_type}: {label} {_num(api)}{unit} in DescribeInstanceTypes ({region}), "
                f"{_num(ours)}{unit} in the catalogue"
            )
            documented = t.field_sources.get(key)
            if documented and documented != "ec2-describe-instance-types" and t.notes:
                yield r.finding(
                    ctx,
                    g.path + ("instance_type",),
                    f"{message} (source: {documented}; catalogue note: {' '.join(t.notes.split())})",
                    severity="info",
                    fix=outside(
                        "catalogue",
                        f"none: the catalogue's note says why it uses {_num(ours)}{unit}; "
                        "--suppress preflight-catalogue hides this",
                    ),
                )
            else:
                yield r.finding(
                    ctx,
                    g.path + ("instance_type",),
                    message,
                    fix=outside(
                        "catalogue",
                        f"if DescribeInstanceTypes is right, set {setting}: {_num(api)} in "
                        f"planner/data/catalogue.yaml with its source; else document the catalogue's "
                        f"{_num(ours)}{unit} in the entry's notes and field_sources.{key}",
                    ),
                )


def _gib(mib: float | None) -> float | None:
    return None if mib is None else mib / GIB


def _num(x: float | int) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"
