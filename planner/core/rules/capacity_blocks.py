"""EC2 Capacity Blocks for ML: block size, bookable durations, supported types, launch targets.

The bookable arithmetic lives in `planner.core.catalogue.capacity_block_limits` (shared with the cost code).
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.catalogue import capacity_block_limits as blocks
from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import (
    Fix,
    Rule,
    RuleContext,
    count_path,
    node_group_rule,
    outside,
    rule,
    set_to,
    shrink,
)

LAUNCH_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html"
# "Describes a target Capacity Reservation or Capacity Reservation group": one CapacityReservationId
# ("The ID of the Capacity Reservation in which to run the instance") or one
# CapacityReservationResourceGroupArn, per launch template
TARGET_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityReservationTarget.html"
# CapacityBlock: capacityBlockId "The ID of the Capacity Block."; capacityReservationIdSet "The ID of the
# Capacity Reservation." (a list); ultraserverType
CAPACITY_BLOCK_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CapacityBlock.html"
# "You can use AWS Resource Groups to create logical collections of UltraServer Capacity Blocks ...
# You can't add instance Capacity Blocks to a resource group."


def _block_groups(ctx: RuleContext) -> tuple[NodeGroup, ...]:
    return tuple(g for g in ctx.cluster.node_groups if g.purchase == "capacity-block")


@rule(
    id="capacity-block-size",
    severity="error",
    category="capacity",
    description=(
        f"An instance Capacity Block holds at most {blocks.MAX_INSTANCES_PER_BLOCK} instances; a block of exactly "
        f"{blocks.MAX_INSTANCES_PER_BLOCK} draws a warning, as AWS says {blocks.MAX_INSTANCES_PER_BLOCK}-instance "
        "blocks are not supported for all instance types in all AWS Regions (without listing which); AWS allows "
        f"{blocks.MAX_INSTANCES_PER_ACCOUNT} instances across Capacity Blocks (warning). An UltraServer group "
        "is one Capacity Block per UltraServer, so the per-block limit does not split it."
    ),
    source=blocks.SOURCE,
    remediation=(
        f"Split the node group into groups of at most {blocks.MAX_INSTANCES_PER_BLOCK} instances (one block each); "
        f"for a block of {blocks.MAX_INSTANCES_PER_BLOCK}, check that `aws ec2 describe-capacity-block-offerings` "
        f"offers that count for the type in the stack's region, or split it; keep the cluster's instance blocks "
        f"within {blocks.MAX_INSTANCES_PER_ACCOUNT} instances."
    ),
)
def size(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """AWS: a Capacity Block holds up to `MAX_INSTANCES_PER_BLOCK` instances, and an account up to
    `MAX_INSTANCES_PER_ACCOUNT` across Capacity Blocks (EC2 User Guide); it does not say the latter can be raised.
    A block of exactly `MAX_INSTANCES_PER_BLOCK` is "not supported for all instance types in all AWS Regions"
    (Work with Capacity Blocks), which AWS does not list: a warning. UltraServers are reserved one UltraServer
    per Capacity Block, so an UltraServer group is as many blocks as UltraServers: neither limit is
    stated for them, and planner applies neither to UltraServer groups."""
    groups = tuple(g for g in _block_groups(ctx) if _ultraserver_size(ctx, g) is None)
    for g in groups:
        if g.count == blocks.MAX_INSTANCES_PER_BLOCK:
            # "Capacity Block sizes of 64 instances are not supported for all instance types in all AWS
            # Regions." (Work with Capacity Blocks): AWS does not say which, so planner warns on every full block
            yield r.finding(
                ctx,
                count_path(g),
                f"node group '{g.name}' asks for a Capacity Block of {g.count} {g.instance_type}; AWS: \"Capacity "
                f"Block sizes of {blocks.MAX_INSTANCES_PER_BLOCK} instances are not supported for all instance types "
                f'in all AWS Regions" ({blocks.FULL_BLOCK_SOURCE}), and does not list which',
                severity="warning",
                fix=outside(
                    "confirm",
                    f"check that `aws ec2 describe-capacity-block-offerings --region {ctx.stack.region} "
                    f"--instance-type {g.instance_type} --instance-count {g.count} --capacity-duration-hours "
                    f"{_booked_hours(ctx)}` "
                    f"lists offerings, or split node group '{g.name}' into two groups of {g.count // 2} instances, "
                    "one Capacity Block each",
                ),
            )
        elif g.count > blocks.MAX_INSTANCES_PER_BLOCK:
            yield r.finding(
                ctx,
                count_path(g),
                f"node group '{g.name}' asks for {g.count} instances on one Capacity Block; a block holds at most "
                f"{blocks.MAX_INSTANCES_PER_BLOCK}: split it into {-(-g.count // blocks.MAX_INSTANCES_PER_BLOCK)} groups",
                fix=_split_fix(g),
            )
    total = sum(g.count for g in groups)
    if total > blocks.MAX_INSTANCES_PER_ACCOUNT:
        yield r.finding(
            ctx,
            ctx.cluster.path + ("node_groups",),
            f"the cluster holds {total} instances across Capacity Blocks; AWS allows up to "
            f"{blocks.MAX_INSTANCES_PER_ACCOUNT} instances across Capacity Blocks (and does not say this can be raised)",
            severity="warning",
            fix=_account_fix(ctx, groups, total),
        )


def _account_fix(ctx: RuleContext, groups: tuple[NodeGroup, ...], total: int) -> Fix:
    """The block groups shrunk to the account's limit (the largest first), or ask AWS for more."""
    most = blocks.MAX_INSTANCES_PER_ACCOUNT
    note = f"at most {most} instances across Capacity Blocks: {total - most} fewer"
    fewer = shrink(ctx, groups, lambda g: 1, most, note)
    ask = "ask AWS whether your account can hold more"
    return outside("confirm", f"or {ask}" if fewer else ask, fewer)


def _booked_hours(ctx: RuleContext) -> int:
    """The block the schedule is booked as (the shortest block when there is no schedule, or it is too long)."""
    sched = ctx.cluster.schedule
    booked = blocks.round_up_to_block(sched.hours) if sched is not None else None
    return booked if booked is not None else blocks.bookable_hours()[0]


def _ultraserver_size(ctx: RuleContext, g: NodeGroup) -> int | None:
    """Instances per UltraServer of the group's UltraServer type; None for instance types sold one by one."""
    ultra = ctx.catalogue.ultraserver_of(g)
    return ultra.members if ultra else None


def _split_fix(g: NodeGroup) -> Fix:
    """`split node group 'big' (150 instances) into groups of 64, 64, 22 instances, one Capacity Block each`:
    new node groups, which no edit of one value says."""
    full, rest = divmod(g.count, blocks.MAX_INSTANCES_PER_BLOCK)
    counts = [blocks.MAX_INSTANCES_PER_BLOCK] * full + ([rest] if rest else [])
    return outside(
        "record",
        f"split node group '{g.name}' ({g.count} instances) into groups of {', '.join(map(str, counts))} "
        "instances, one Capacity Block each",
    )


@rule(
    id="capacity-block-duration",
    severity="info",
    category="capacity",
    description=(
        f"A Capacity Block cluster whose `schedule.hours` is not itself a bookable duration (1-day steps to "
        f"{blocks.DAILY_STEPS_UP_TO_DAYS} days, then {blocks.WEEKLY_STEP_DAYS}-day steps to {blocks.MAX_DAYS} "
        "days): the booked block, the one the estimate bills, is shown beside the run's hours."
    ),
    source=blocks.SOURCE,
    remediation=(
        f"Nothing to fix: AWS constrains the reservation, not the run. To plan the whole block you pay for, set "
        f"`schedule.hours` to a bookable duration ({blocks.duration_examples()})."
    ),
)
def duration(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """AWS books Capacity Blocks in 1-day steps up to 14 days, then 7-day steps (EC2 User Guide); a
    run may be shorter than its block. So a schedule between two steps is no error: the estimate
    bills the block that covers it (its usable hours end 30 minutes early), and this says which."""
    sched = ctx.cluster.schedule
    if sched is None or not _block_groups(ctx) or blocks.is_bookable(sched.hours):
        return
    up = blocks.block_for_run(sched.hours)
    if up is None:
        yield r.finding(
            ctx,
            sched.path + ("hours",),
            f"schedule.hours {sched.hours:g} is longer than the longest Capacity Block "
            f"({blocks.describe(blocks.MAX_HOURS)}): the estimate bills consecutive blocks",
        )
        return
    yield r.finding(
        ctx,
        sched.path + ("hours",),
        f"schedule.hours {sched.hours:g} is not a bookable Capacity Block duration: the run is booked (and "
        f"billed) as a {blocks.describe(up)} block, of which instances run at most {blocks.usable_hours(up):,.1f} h",
        fix=Fix(
            f"to plan the whole {blocks.describe(up)} block you pay for", (set_to(ctx, sched.path + ("hours",), up),)
        ),
    )


@rule(
    id="capacity-block-supported",
    severity="error",
    category="capacity",
    description="Capacity Block purchase for an instance type that is not sold through Capacity Blocks.",
    source=blocks.SOURCE,
    remediation=(
        "Use `purchase: on-demand` (or spot) for this type, or pick a type sold through Capacity Blocks "
        "(`planner catalog`)."
    ),
)
def supported(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """A type never sold through Capacity Blocks is an error. A type sold in blocks, but not in
    the stack's region, is `purchase-not-sold`'s (its data: the Capacity Blocks pricing page)."""
    for g in _block_groups(ctx):
        if not ctx.catalogue.spec(g.instance_type).capacity_block:
            sold = sorted(n for n, t in ctx.catalogue.instance_types.items() if t.capacity_block)
            # a drop-in type is sold one by one; UltraServer members are bought by UltraServer (`ultraservers:`)
            single = [n for n in sold if not ctx.catalogue.is_member(n)]
            yield r.finding(
                ctx,
                g.path + ("purchase",),
                f"node group '{g.name}': {g.instance_type} is not sold through Capacity Blocks; "
                f"types that are: {', '.join(sold)}",
                fix=Fix(
                    f"or another type sold one by one through Capacity Blocks: {', '.join(single)}",
                    (set_to(ctx, g.path + ("purchase",), "on-demand"),),
                    tuple(set_to(ctx, g.path + ("instance_type",), t) for t in single[:1]),
                ),
            )


@rule(
    id="capacity-block-reservation",
    severity="warning",
    category="capacity",
    description="A Capacity Block group is launched into the block's capacity reservation; without its id it cannot launch.",
    source=LAUNCH_DOC,
    remediation=(
        "Book the block, then set `capacity_reservation_id: cr-...` (the block's reservation id) on the node group; "
        "for UltraServer blocks, one id per UltraServer or `capacity_reservation_resource_group_arn` also do."
    ),
)
def reservation(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """Any launch target AWS takes counts: one id, one id per UltraServer, or a resource group of
    UltraServer blocks (whether those are valid for the group is the rules below)."""
    for g in _block_groups(ctx):
        if not g.launch_target:
            yield r.finding(
                ctx,
                g.path + ("purchase",),
                f"node group '{g.name}' buys a Capacity Block but names no capacity_reservation_id; "
                "instances launch with market type capacity-block into the block's reservation",
                fix=Fix(
                    "book the block first",
                    (set_to(ctx, g.path + ("capacity_reservation_ids",), ("cr-...",), "the block's reservation id"),),
                ),
            )


def _ultraserver_block(ctx: RuleContext, g: NodeGroup) -> bool:
    """An UltraServer type bought as a Capacity Block: the only group that takes several targets."""
    return g.purchase == "capacity-block" and _ultraserver_size(ctx, g) is not None


@node_group_rule(
    id="capacity-reservation-list",
    severity="error",
    category="capacity",
    description=(
        "Several capacity reservation ids on a node group that is not an UltraServer Capacity Block: a launch "
        "template targets one reservation."
    ),
    source=TARGET_DOC,
    remediation=(
        "Give one `capacity_reservation_id` per node group (split the group, one per reservation); several ids "
        "are for UltraServer Capacity Blocks (one per UltraServer), or put the reservations in a Capacity Reservation resource group."
    ),
)
def reservation_list(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """EC2's CapacityReservationTarget "Describes a target Capacity Reservation or Capacity Reservation
    group": one id per launch. The components build one launch template per UltraServer when an
    UltraServer block names one id each; any other group has one launch template."""
    ids = g.capacity_reservation_ids
    if len(ids) > 1 and not _ultraserver_block(ctx, g):
        why = (
            "it is not an UltraServer type"
            if _ultraserver_size(ctx, g) is None
            else f"it buys {g.purchase}, not capacity-block"
        )
        yield r.finding(
            ctx,
            g.path + ("capacity_reservation_id",),
            f"node group '{g.name}' names {len(ids)} capacity reservations, but {why}: its launch "
            "template targets one reservation (several ids are for UltraServer Capacity Blocks, "
            "one per UltraServer, or a Capacity Reservation resource group)",
            fix=Fix(
                f"and declare one node group per other reservation ({', '.join(ids[1:])})",
                (set_to(ctx, g.path + ("capacity_reservation_ids",), ids[:1]),),
            ),
        )


@node_group_rule(
    id="capacity-block-reservation-count",
    severity="warning",
    category="capacity",
    description=(
        "An UltraServer Capacity Block group names a list of reservation ids that is neither one id for the "
        "whole block nor one per UltraServer, the two ways planner builds its launch templates (one per id); "
        "AWS does not document how many reservations an UltraServer Capacity Block has, so this is no error."
    ),
    source=CAPACITY_BLOCK_DOC,
    remediation=(
        "Give the block's reservation ids as `aws ec2 describe-capacity-blocks` lists them: one id for the whole "
        "block, or one per UltraServer (as many as the group's `ultraservers`); or name the blocks' resource "
        "group with `capacity_reservation_resource_group_arn`."
    ),
)
def reservation_count(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """A Capacity Block lists its reservations (CapacityBlock.capacityReservationIdSet, "The ID of the
    Capacity Reservation."); how many an N-UltraServer block has is not documented, so planner warns, and
    says what it builds: one launch template for one id, or one per UltraServer, each with its id; any
    other count leaves the group's launch template without a reservation target."""
    size = _ultraserver_size(ctx, g)
    ids = g.capacity_reservation_ids
    if not _ultraserver_block(ctx, g) or size is None or g.count % size or len(ids) <= 1:
        return  # a partial UltraServer is ultraserver-whole-units'
    units = g.count // size
    if len(ids) != units:
        ids_path = g.path + ("capacity_reservation_ids",)
        fix = (
            Fix(
                f"give node group '{g.name}' {units} reservation ids, one per UltraServer ({units - len(ids)} more)",
                alternatives=(set_to(ctx, ids_path, ids[:1], "a single id for the whole block"),),
            )
            if len(ids) < units
            else Fix(
                f"one per UltraServer, {len(ids) - units} fewer",
                (set_to(ctx, ids_path, ids[:units]),),
                (
                    set_to(ctx, g.path + ("ultraservers",), len(ids), "if you booked that many")
                    if g.ultraservers is not None
                    else set_to(
                        ctx, g.path + ("count",), len(ids) * size, f"{len(ids)} UltraServers, if you booked that many"
                    ),
                    set_to(ctx, ids_path, ids[:1], "a single id for the whole block"),
                ),
            )
        )
        yield r.finding(
            ctx,
            g.path + ("capacity_reservation_id",),
            f"node group '{g.name}' names {len(ids)} capacity reservations for {units} UltraServers: planner "
            f"targets one id for the whole block or one per UltraServer ({units}), so its launch template "
            "targets none of these; AWS does not document how many reservations an UltraServer Capacity "
            f"Block has (its CapacityBlock lists them: {CAPACITY_BLOCK_DOC})",
            fix=fix,
        )
