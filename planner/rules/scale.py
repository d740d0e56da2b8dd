"""How far a cluster can grow, and where a type is offered."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule

# Largest EC2 UltraCluster per accelerator: 100,000 Trainium2 chips (seed 001, re:Invent
# 2024) and 20,000 H100 (seed 003, P5). H200 (P5e/P5en, same second-generation
# UltraClusters as P5) takes the H100 figure, as issue 3 specifies; no separate H200 figure
# was confirmed in shared/facts.
ULTRACLUSTER_MAX = {"Trainium2": 100_000, "H100": 20_000, "H200": 20_000}
SEED_001 = "shared/seeds/001_4ff402e46ddd231b.txt"


@rule(
    id="ultracluster-scale",
    severity="error",
    description="More accelerators in one cluster than an EC2 UltraCluster holds: 100,000 Trainium2 chips, 20,000 H100 or H200 GPUs.",
    source=SEED_001,
    remediation="Split the job across clusters, or reduce the node group counts.",
)
def ultracluster_scale(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    chips: dict[str, int] = defaultdict(int)
    first = {}
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.instance_types[g.instance_type]
        chips[t.accelerator.name] += g.count * t.accelerator_count
        first.setdefault(t.accelerator.name, g)
    for name, n in sorted(chips.items()):
        limit = ULTRACLUSTER_MAX.get(name)
        if limit is not None and n > limit:
            g = first[name]
            yield r.finding(ctx, g.path + ("instance_type",),
                            f"{n:,} {name} in one cluster; EC2 UltraClusters scale to {limit:,} {name}")


@rule(
    id="instance-region",
    severity="warning",
    description="An instance type not known to be offered in the stack's region.",
    source="https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html",
    remediation="Pick a region listed by `planner catalog --format json` for the type, or confirm the offering with `aws ec2 describe-instance-type-offerings`.",
)
def instance_region(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    region = ctx.stack.region
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.instance_types[g.instance_type]
        if region not in t.regions:
            yield r.finding(ctx, g.path + ("instance_type",),
                            f"node group '{g.name}': {g.instance_type} is not known to be offered in {region}; "
                            f"known regions: {', '.join(t.regions)}")
