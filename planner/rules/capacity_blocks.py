"""EC2 Capacity Blocks for ML: block size, bookable durations, supported types, launch targets.

The bookable arithmetic lives in `planner.blocks` (shared with the cost code).
"""

from __future__ import annotations

from typing import Iterator

from planner import blocks
from planner.findings import Finding
from planner.rules import Rule, RuleContext, count_path, rule

LAUNCH_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-launch.html"


def _block_groups(ctx: RuleContext):  # noqa: ANN202 - tuple of NodeGroup
    return tuple(g for g in ctx.cluster.node_groups if g.purchase == "capacity-block")


@rule(
    id="capacity-block-size",
    severity="error",
    category="capacity",
    description=(f"A Capacity Block holds at most {blocks.MAX_INSTANCES_PER_BLOCK} instances; an account holds at most "
                 f"{blocks.MAX_INSTANCES_PER_ACCOUNT} across blocks by default (warning)."),
    source=blocks.SOURCE,
    remediation=(f"Split the node group into groups of at most {blocks.MAX_INSTANCES_PER_BLOCK} instances (one block each); "
                 f"above {blocks.MAX_INSTANCES_PER_ACCOUNT} in total, ask AWS to raise the account limit first."),
)
def size(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    groups = _block_groups(ctx)
    for g in groups:
        if g.count > blocks.MAX_INSTANCES_PER_BLOCK:
            yield r.finding(
                ctx, count_path(g),
                f"node group '{g.name}' asks for {g.count} instances on one Capacity Block; a block holds at most "
                f"{blocks.MAX_INSTANCES_PER_BLOCK}: split it into {-(-g.count // blocks.MAX_INSTANCES_PER_BLOCK)} groups",
                fix=_split_fix(g),
            )
    total = sum(g.count for g in groups)
    if total > blocks.MAX_INSTANCES_PER_ACCOUNT:
        yield r.finding(
            ctx, ctx.cluster.path + ("node_groups",),
            f"the cluster holds {total} instances across Capacity Blocks; the default account limit is "
            f"{blocks.MAX_INSTANCES_PER_ACCOUNT}: have it raised before booking",
            severity="warning",
            fix=(f"ask AWS to raise the account's Capacity Block limit to at least {total} instances before booking, "
                 f"or plan at most {blocks.MAX_INSTANCES_PER_ACCOUNT} ({total - blocks.MAX_INSTANCES_PER_ACCOUNT} fewer)"),
        )


def _split_fix(g) -> str:  # noqa: ANN001 - NodeGroup
    """`split node group 'big' (count: 150) into groups of count: 64, 64, 22, one Capacity Block each`."""
    full, rest = divmod(g.count, blocks.MAX_INSTANCES_PER_BLOCK)
    counts = [blocks.MAX_INSTANCES_PER_BLOCK] * full + ([rest] if rest else [])
    return (f"split node group '{g.name}' (count: {g.count}) into groups of count: {', '.join(map(str, counts))}, "
            "one Capacity Block each")


@rule(
    id="capacity-block-duration",
    severity="error",
    category="capacity",
    description=(f"A Capacity Block cluster's `schedule.hours` must be a bookable duration: 1-day steps to "
                 f"{blocks.DAILY_STEPS_UP_TO_DAYS} days, then {blocks.WEEKLY_STEP_DAYS}-day steps to {blocks.MAX_DAYS} days."),
    source=blocks.SOURCE,
    remediation=(f"Set `schedule.hours` to a bookable duration ({blocks.duration_examples()}); "
                 "planner suggests the next one up."),
)
def duration(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    sched = ctx.cluster.schedule
    if sched is None or not _block_groups(ctx) or blocks.is_bookable(sched.hours):
        return
    up = blocks.round_up_to_block(sched.hours)
    if up is None:
        advice = (f"longer than the longest block ({blocks.describe(blocks.MAX_HOURS)}): split the run across "
                  "consecutive blocks")
    else:
        advice = f"the next bookable duration is {blocks.describe(up)}"
    fix = (f"set schedule.hours: {up:g} ({blocks.describe(up)})" if up is not None else
           f"set schedule.hours to at most {blocks.MAX_HOURS:g} per block and plan consecutive blocks for the rest")
    yield r.finding(ctx, sched.path + ("hours",),
                    f"schedule.hours {sched.hours:g} is not a bookable Capacity Block duration; {advice}", fix=fix)


@rule(
    id="capacity-block-supported",
    severity="error",
    category="capacity",
    description="Capacity Block purchase for an instance type that is not sold through Capacity Blocks.",
    source=blocks.SOURCE,
    remediation=("Use `purchase: on-demand` (or spot) for this type, or pick a type sold through Capacity Blocks "
                 "(`planner catalog`)."),
)
def supported(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """A type never sold through Capacity Blocks is an error. A type sold in blocks, but not in
    the stack's region, is `purchase-not-sold`'s (its data: the Capacity Blocks pricing page)."""
    for g in _block_groups(ctx):
        if not ctx.catalogue.instance_types[g.instance_type].capacity_block:
            sold = sorted(n for n, t in ctx.catalogue.instance_types.items() if t.capacity_block)
            yield r.finding(ctx, g.path + ("purchase",),
                            f"node group '{g.name}': {g.instance_type} is not sold through Capacity Blocks; "
                            f"types that are: {', '.join(sold)}",
                            fix=f"in node group '{g.name}', set purchase: on-demand, or instance_type: one of {', '.join(sold)}")


@rule(
    id="capacity-block-reservation",
    severity="warning",
    category="capacity",
    description="A Capacity Block group is launched into the block's capacity reservation; without its id it cannot launch.",
    source=LAUNCH_DOC,
    remediation="Book the block, then set `capacity_reservation_id: cr-...` (the block's reservation id) on the node group.",
)
def reservation(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for g in _block_groups(ctx):
        if g.capacity_reservation_id is None:
            yield r.finding(ctx, g.path + ("purchase",),
                            f"node group '{g.name}' buys a Capacity Block but names no capacity_reservation_id; "
                            "instances launch with market type capacity-block into the block's reservation",
                            fix=f"book the block, then set capacity_reservation_id: cr-... (its reservation id) in node group '{g.name}'")
