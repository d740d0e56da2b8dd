"""Elastic Fabric Adapter: where it exists, where it is worth having, and where it reaches."""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, node_group_rule, remove, rule, set_to

EFA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html"
EFA_TYPES_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types"
EFA_LIMITS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-limits"


@node_group_rule(
    id="efa-unsupported",
    severity="error",
    category="network",
    description="`efa: true` on an instance type that has no Elastic Fabric Adapter.",
    source=EFA_TYPES_DOC,
    remediation="Set `efa: false` on the node group, or pick an EFA-capable type (`planner catalog`, column EFA).",
)
def unsupported(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    if g.efa and not ctx.catalogue.spec(g.instance_type).efa_supported:
        yield r.finding(
            ctx,
            g.path + ("efa",),
            f"node group '{g.name}': {g.instance_type} does not support EFA",
            fix=Fix(edits=(set_to(ctx, g.path + ("efa",), False),)),
        )


@rule(
    id="efa-recommended",
    severity="warning",
    category="network",
    description="Several instances of an EFA-capable type with `efa: false`: collective traffic falls back to TCP.",
    source=EFA_DOC,
    remediation="Remove `efa: false` (EFA is on by default where the type supports it) unless the instances never talk to each other.",
)
def recommended(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    # the instances that could talk over EFA: a CPU system group beside them (issue 35) is not one of them
    capable = sum(g.count for g in ctx.cluster.node_groups if ctx.catalogue.spec(g.instance_type).efa_supported)
    if capable < 2:
        return
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.spec(g.instance_type)
        if not g.efa and t.efa_supported:
            yield r.finding(
                ctx,
                g.path + ("efa",),
                f"node group '{g.name}': {g.instance_type} supports EFA ({f'v{t.efa_generation}, ' if t.efa_generation else ''}"
                f"{t.network_bandwidth_gbps:,} Gbps) but it is off in a cluster of {capable} EFA-capable instances",
                fix=Fix(f"EFA is on by default for {g.instance_type}", (remove(ctx, g.path + ("efa",)),)),
            )


def efa_groups(ctx: RuleContext) -> list[NodeGroup]:
    """Node groups that will have EFA interfaces."""
    return [g for g in ctx.cluster.node_groups if g.efa and ctx.catalogue.spec(g.instance_type).efa_supported]


@rule(
    id="efa-single-az",
    severity="error",
    category="network",
    description="EFA traffic does not cross Availability Zones: every EFA node group must be in one AZ.",
    source=EFA_LIMITS_DOC,
    remediation="Put every EFA node group in the same `availability_zone` (remove the per-group overrides).",
)
def single_az(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    groups = efa_groups(ctx)
    if not groups:
        return
    first = groups[0]
    for g in groups[1:]:
        if g.availability_zone != first.availability_zone:
            yield r.finding(
                ctx,
                g.path + ("availability_zone",),
                f"EFA node group '{g.name}' is in {g.availability_zone} but '{first.name}' is in "
                f"{first.availability_zone}; EFA cannot connect them",
                fix=Fix(
                    edits=(
                        set_to(
                            ctx, g.path + ("availability_zone",), first.availability_zone, f"that of '{first.name}'"
                        ),
                    )
                ),
            )
