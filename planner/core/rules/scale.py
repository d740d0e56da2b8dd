"""How far a cluster can grow, and where a type is offered."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from planner.core.catalogue.shipped_data import limits
from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, move_region, nearest_region, outside, rule, shrink

# UltraCluster sizes AWS documents per accelerator (planner/data/aws-limits.yaml says which
# exist and why the others are left out). A documented size is not a hard limit, hence a warning.
_LIMITS = limits()
ULTRACLUSTER_DOCUMENTED = _LIMITS.ultraclusters
ULTRACLUSTER_MAX = _LIMITS.ultracluster_max
ULTRACLUSTERS_PAGE = _LIMITS.ultraclusters_page


def _documented_text() -> str:
    """`<accelerator>: <size>, <family> page` for every documented size."""
    return "; ".join(f"{d.accelerator}: {d.accelerators:,}, {d.family} page" for d in ULTRACLUSTER_DOCUMENTED.values())


@rule(
    id="ultracluster-scale",
    severity="warning",
    category="scale",
    description=(
        f"More accelerators in one cluster than AWS documents for the type's EC2 UltraClusters "
        f"({_documented_text()}); AWS documents no such figure for Trainium2 or H200, so they are not checked."
    ),
    source=ULTRACLUSTERS_PAGE,
    remediation="Confirm with AWS that the cluster can be placed in one UltraCluster, or split the job across clusters.",
)
def ultracluster_scale(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    chips: dict[str, int] = defaultdict(int)
    first: dict[str, NodeGroup] = {}
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.spec(g.instance_type)
        if t.accelerator is None:
            continue
        chips[t.accelerator.name] += g.count * t.accelerator_count
        first.setdefault(t.accelerator.name, g)
    for name, n in sorted(chips.items()):
        doc = ULTRACLUSTER_DOCUMENTED.get(name)
        if doc is not None and n > doc.accelerators:
            g = first[name]
            yield r.finding(
                ctx,
                g.path + ("instance_type",),
                f"{n:,} {name} in one cluster; AWS documents {doc.family} EC2 UltraClusters of up to "
                f"{doc.accelerators:,} {name} ({doc.source}): a larger cluster may not fit one UltraCluster network",
                fix=_scale_fix(ctx, name, n, doc.accelerators),
            )


def _scale_fix(ctx: RuleContext, name: str, n: int, most: int) -> Fix:
    """Plan at most the documented size (the groups of that accelerator shrunk, the largest first), or
    confirm with AWS that the cluster fits one UltraCluster."""

    def chips(g: NodeGroup) -> int:
        t = ctx.catalogue.spec(g.instance_type)
        return t.accelerator_count if t.accelerator is not None and t.accelerator.name == name else 0

    groups = [g for g in ctx.cluster.node_groups if chips(g)]
    fewer = shrink(ctx, groups, chips, most, f"at most {most:,} {name} per cluster: {n - most:,} fewer")
    confirm = f"confirm with AWS that {n:,} {name} fit one UltraCluster"
    return outside("confirm", f"or {confirm}" if fewer else confirm, fewer)


@rule(
    id="instance-region",
    severity="warning",
    category="scale",
    description="An instance type not known to be offered in the stack's region.",
    source="https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html",
    remediation="Pick a region listed by `planner catalog --format json` for the type, or confirm the offering with `aws ec2 describe-instance-type-offerings`.",
)
def instance_region(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    region = ctx.stack.region
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.spec(g.instance_type)
        if not t.sold_in(region, g.purchase):
            blocks_too = (
                f" (Capacity Blocks also in {', '.join(t.capacity_block_regions)})" if t.capacity_block_regions else ""
            )
            yield r.finding(
                ctx,
                g.path + ("instance_type",),
                f"node group '{g.name}': {g.instance_type} is not known to be offered in {region}; "
                f"known regions: {', '.join(t.regions)}{blocks_too}",
                fix=outside(
                    "confirm",
                    f"or confirm the offering: `aws ec2 describe-instance-type-offerings --region {region} "
                    f"--filters Name=instance-type,Values={g.instance_type}`",
                    move_region(ctx, nearest_region(region, t.regions), "the known region nearest in name"),
                ),
            )
