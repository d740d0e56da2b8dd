"""Cluster placement groups: wanted for on-demand EFA clusters; AWS says there is no need for one with a Capacity Block."""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, outside, remove, rule, set_to

PLACEMENT_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-groups.html"
# "By default, Capacity Blocks deliver low-latency, high-throughput network connectivity between
# the instances inside the Capacity Block, so there is no need to use a cluster placement group
# with a Capacity Block." (EC2 User Guide, Work with Capacity Blocks, read 2026-12-01)
CAPACITY_BLOCKS_USING_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html"
NO_NEED = "AWS: there is no need to use a cluster placement group with a Capacity Block"


@rule(
    id="placement-group",
    severity="warning",
    category="placement",
    description=(
        "An on-demand multi-instance EFA cluster without a cluster placement group (warning), or Capacity Block "
        "groups in a cluster placement group, declared or by default (info: AWS says there is no need to use a "
        "cluster placement group with a Capacity Block)."
    ),
    source=PLACEMENT_DOC,
    remediation=(
        "On demand: remove `placement_group: none` (cluster is the default). With Capacity Blocks, if you do not "
        "want the placement group: set `placement_group: none` (a cluster mixing both has one placement group: "
        "plan them as two stacks)."
    ),
)
def placement_group(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """On demand, a cluster placement group packs EFA instances close together (placement group
    docs). With Capacity Blocks AWS says "there is no need to use a cluster placement group with a
    Capacity Block" (Work with Capacity Blocks) and nothing more: that finding is information."""
    c = ctx.cluster
    where = c.path + ("placement_group",)
    # an on-demand group that targets a capacity reservation launches where the reservation is.
    # "To reserve capacity in a placement group, you must create the Capacity Reservation in the
    # placement group" (EC2 User Guide, cr-cpg): a new group would not hold it, so none is asked for
    efa_on_demand = sum(
        g.count
        for g in c.node_groups
        if g.purchase == "on-demand"
        and g.efa
        and not g.launch_target
        and ctx.catalogue.spec(g.instance_type).efa_supported
    )
    if c.placement_group == "none" and efa_on_demand > 1:
        yield r.finding(
            ctx,
            where,
            f"{efa_on_demand} on-demand EFA instances without a cluster placement group: "
            "they may land far apart in the AZ, with higher latency between them",
            fix=Fix(
                "a cluster placement group is the default for on-demand EFA groups",
                (remove(ctx, where),),
            ),
        )
    block_groups = [g for g in c.node_groups if g.purchase == "capacity-block"]
    blocks = [g.name for g in block_groups]
    # the effective placement: an undeclared one defaults to cluster when an on-demand group
    # uses EFA, and the cluster's one placement group then holds the block groups too
    if c.placement == "cluster" and blocks:
        declared = c.placement_group is not None
        how = "declared" if declared else "the default, as an on-demand group uses EFA"
        yield r.finding(
            ctx,
            where if declared else block_groups[0].path + ("purchase",),
            f"a cluster placement group ({how}) holds Capacity Block group(s) {', '.join(blocks)}: "
            'AWS: "By default, Capacity Blocks deliver low-latency, high-throughput network connectivity between '
            "the instances inside the Capacity Block, so there is no need to use a cluster placement group with a "
            f'Capacity Block" ({CAPACITY_BLOCKS_USING_DOC})',
            severity="info",
            fix=_block_fix(ctx, declared, blocks),
        )


def _block_fix(ctx: RuleContext, declared: bool, blocks: list[str]) -> Fix:
    """Declared `cluster`: drop it for the blocks. By default: the on-demand EFA groups want one
    and the blocks do not, and a stack has one placement group, so they go in two stacks."""
    none = Fix(NO_NEED, (set_to(ctx, ctx.cluster.path + ("placement_group",), "none"),))
    if declared and not any(g.purchase == "on-demand" and g.efa for g in ctx.cluster.node_groups):
        return none
    others = [g.name for g in ctx.cluster.node_groups if g.purchase != "capacity-block"]
    names = ", ".join(f"'{n}'" for n in others)
    return (
        outside(
            "record",
            f"plan the Capacity Block group(s) {', '.join(repr(b) for b in blocks)} as a separate stack without a "
            f"placement group, and keep {names} here",
        )
        if others
        else none
    )
