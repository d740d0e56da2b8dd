"""UltraServer rules: an UltraServer is a catalogue entry (`ultraserver_types`): `members`
instances of one type joined by an accelerator interconnect, booked whole through Capacity Blocks."""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import (
    Fix,
    Rule,
    RuleContext,
    count_path,
    move_region,
    node_group_rule,
    rule,
    set_to,
)

ULTRASERVER_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-ultraservers.html"
FSX_LUSTRE_FAQ = "https://aws.amazon.com/fsx/lustre/faqs/"
CAPACITY_BLOCKS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"
# "Launching an instance into a Capacity Block reduces the available capacity by the number of instances
# launched. For example, if your purchased instance capacity is eight instances and you launch four
# instances, the available capacity is reduced by four."
LAUNCH_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html"


@node_group_rule(
    id="ultraserver-whole-units",
    severity="warning",
    category="ultraserver",
    description=(
        "A node group of UltraServer members that is not a whole number of UltraServers: UltraServers are "
        "booked whole, launching fewer instances is allowed, and the idle members are paid for."
    ),
    source=LAUNCH_DOC,
    remediation="Use every member you pay for (`ultraservers: N`), or accept the idle members' cost the warning states.",
)
def whole_units(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """AWS reserves UltraServers as units (an UltraServer Capacity Block is one UltraServer) and lets
    you launch fewer instances than a block holds ("if your purchased instance capacity is eight
    instances and you launch four instances, the available capacity is reduced by four"): a partial
    UltraServer is allowed, the estimate bills the whole one, and this warning says what the idle
    members cost."""
    ultra = ctx.catalogue.ultraserver_of(g)
    if ultra is None or not g.count % ultra.members:
        return
    size = ultra.members
    booked = ctx.catalogue.ultraservers_in(g)
    idle = booked * size - g.count
    yield r.finding(
        ctx,
        count_path(g),
        f"node group '{g.name}' declares {g.count} {g.instance_type}, not a whole number of {ultra.name} "
        f"UltraServers ({size} instances each): {booked} UltraServer{'s' if booked != 1 else ''} "
        f"({booked * size} instances) are booked, {idle} member{'s' if idle != 1 else ''} idle{_idle_cost(ctx, g, idle)}",
        fix=Fix(
            edits=(
                set_to(
                    ctx,
                    g.path + ("count",),
                    booked * size,
                    f"the {booked} UltraServer{'s' if booked != 1 else ''} you pay for",
                ),
            ),
            alternatives=(
                *((set_to(ctx, g.path + ("count",), g.count // size * size),) if g.count // size else ()),
                set_to(ctx, g.path + ("ultraservers",), booked),
            ),
        ),
    )


def _idle_cost(ctx: RuleContext, g: NodeGroup, idle: int) -> str:
    """`, costing $X of the estimate` from the group's line item (billed whole UltraServers), when priced."""
    cost = ctx.cost
    if cost is None:
        return ""
    for item in cost.line_items:
        if item.name == g.name and item.detail.get("idle_instances") == idle:
            if item.unit_price_usd is None:
                return " (no price: their cost is unknown)"
            if item.hours is None:
                return (
                    f", costing ${idle * item.unit_price_usd:,.2f} an hour (${item.unit_price_usd:,.2f} per "
                    "instance-hour; no hours to total them over)"
                )
            usd = idle * item.unit_price_usd * item.hours
            return f", costing ${usd:,.2f} of the estimate (${item.unit_price_usd:,.2f} per instance-hour, {item.hours:,.0f} h)"
    return " (on a purchase billed per instance, they cost nothing; on a Capacity Block they are paid for)"


@rule(
    id="ultraserver-requires-lustre",
    severity="error",
    category="ultraserver",
    description=(
        "planner's policy (a design rule, not an AWS requirement), following AWS's FSx for Lustre FAQ (\"Use Amazon "
        "FSx for Lustre for workloads where speed matters, such as machine learning, high performance computing "
        '(HPC)"): training across more than one UltraServer needs one shared file system for the datasets and '
        "checkpoints that every UltraServer reads and writes; planner asks for FSx for Lustre (one the cluster "
        "mounts without creating it, a static volume of the FSx for Lustre CSI driver, counts)."
    ),
    source=FSX_LUSTRE_FAQ,
    remediation=(
        "Add a `lustre:` file system (PERSISTENT_2 for long runs), or run a single UltraServer. A cluster that mounts "
        "an existing FSx for Lustre file system declared elsewhere: suppress this rule with the file system's id as "
        "the reason (a program's static volume of the FSx for Lustre CSI driver is read as one, and not reported)."
    ),
)
def requires_lustre(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """The UltraServer's interconnect (NeuronLink, NVLink) joins its members only;
    beyond one UltraServer, instances share data over the network, and a job that checkpoints
    and restarts needs storage they all see. AWS positions FSx for Lustre for "machine
    learning, high performance computing" workloads where speed matters (FSx for Lustre FAQ);
    this is planner's choice for clustered UltraServers, not an AWS requirement. A file system the cluster mounts
    without creating it (a program's static volume of the FSx for Lustre CSI driver) is one: the read-back says
    it, and it is not planned here."""
    if ctx.cluster.lustre is not None or ctx.cluster.mounted_lustre:
        return
    members = [
        (g, u, n)
        for g in ctx.cluster.node_groups
        if (u := ctx.catalogue.ultraserver_of(g)) is not None and (n := ctx.catalogue.ultraservers_in(g))
    ]
    total = sum(n for _, _, n in members)
    if total <= 1:
        return
    first, ultra, _ = members[0]
    groups = "; ".join(
        f"node group '{g.name}' {g.count} {g.instance_type} in {_ultraservers(n, u.name)} of {u.members}"
        for g, u, n in members
    )
    instances = sum(g.count for g, _, _ in members)
    yield r.finding(
        ctx,
        count_path(first),
        f"{_ultraservers(total)} are clustered without FSx for Lustre ({instances} instances, in whole UltraServers "
        f"as they are booked: {groups}); planner requires a shared Lustre file system for the datasets and "
        "checkpoints of a multi-UltraServer job",
        fix=Fix(
            "declare an FSx for Lustre file system (PERSISTENT_2, with a throughput tier and a storage capacity) "
            f"in {first.availability_zone}",
            alternatives=(
                (
                    set_to(ctx, first.path + ("ultraservers",), 1, "one UltraServer")
                    if first.ultraservers is not None
                    else set_to(ctx, first.path + ("count",), ultra.members, "one UltraServer"),
                )
                if len(members) == 1
                else ()
            ),
        ),
    )


def _ultraservers(n: int, name: str = "") -> str:
    """`2 UltraServers`, `1 u-trn2x64 UltraServer`."""
    return f"{n} {name + ' ' if name else ''}UltraServer{'s' if n != 1 else ''}"


@node_group_rule(
    id="ultraserver-purchase",
    severity="warning",
    category="ultraserver",
    description=(
        "UltraServer members (such as trn2u.48xlarge) bought on demand or as Spot: AWS documents reserving UltraServers "
        "through EC2 Capacity Blocks; DescribeInstanceTypes also lists on-demand and spot usage classes, so this is not "
        "an error."
    ),
    source=CAPACITY_BLOCKS_DOC,
    remediation=(
        "Set `purchase: capacity-block` on the UltraServer node group, or confirm on-demand or Spot UltraServer "
        "capacity with AWS first."
    ),
)
def purchase(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """The Capacity Blocks user guide: "You can also use Capacity Blocks to reserve capacity for
    Amazon EC2 UltraServers." Nothing AWS publishes bars on-demand or Spot trn2u.48xlarge (its
    DescribeInstanceTypes answer lists the on-demand and spot usage classes), so planner warns. A type
    the catalogue lists as not offered as Spot is `spot-unsupported`'s, not reported twice."""
    if ctx.catalogue.ultraserver_of(g) is None or g.purchase not in ("on-demand", "spot"):
        return
    if g.purchase == "spot" and not ctx.catalogue.spec(g.instance_type).spot:
        return
    how = "on demand" if g.purchase == "on-demand" else "as Spot"
    capacity = "on-demand" if g.purchase == "on-demand" else "Spot"
    yield r.finding(
        ctx,
        g.path + ("purchase",),
        f"node group '{g.name}': {g.instance_type} {how}; AWS documents reserving UltraServers through "
        f"Capacity Blocks and does not document {capacity} capacity for whole UltraServers",
        fix=Fix(
            f"or confirm {capacity} UltraServer capacity with AWS",
            (set_to(ctx, g.path + ("purchase",), "capacity-block"),),
        ),
    )


@rule(
    id="ultraserver-zone",
    severity="warning",
    category="ultraserver",
    description="An UltraServer Capacity Block group outside the regions and Local Zones where its UltraServer type is sold.",
    source="https://aws.amazon.com/ec2/capacityblocks/pricing/",
    remediation="Put the group in a zone where the UltraServer type is sold (`planner catalog` lists them).",
)
def zone(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """Where an UltraServer type is sold is catalogue data: the Capacity Blocks pricing page lists the
    regions and Local Zones of each (P6e-GB200: the Dallas Local Zone us-east-1-dfw-2a only)."""
    region = ctx.stack.region
    for g in ctx.cluster.node_groups:
        ultra = ctx.catalogue.ultraserver_of(g)
        if ultra is None or g.purchase != "capacity-block":
            continue
        if g.availability_zone in {z.zone for z in ultra.local_zones} or region in ultra.regions:
            continue
        where = (
            g.path + ("availability_zone",)
            if "availability_zone" in g.declared
            else ctx.cluster.path + ("availability_zone",)
        )
        sold = ", ".join(list(ultra.regions) + [f"{z.zone} ({z.region})" for z in ultra.local_zones]) or "nowhere yet"
        fix = (
            Fix(
                edits=(
                    set_to(
                        ctx, where, ultra.local_zones[0].zone, f"a Local Zone of region {ultra.local_zones[0].region}"
                    ),
                )
            )
            if ultra.local_zones
            else Fix(edits=move_region(ctx, ultra.regions[0], f"where {ultra.name} UltraServers are sold"))
            if ultra.regions
            else None
        )
        yield r.finding(
            ctx,
            where,
            f"node group '{g.name}': {ultra.name} UltraServers are sold in {sold}, not in {g.availability_zone}",
            fix=fix,
        )
