"""Trn2 UltraServer topology rules (seed 000: UltraServers are four Trn2 joined by NeuronLink)."""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, count_path, rule

ULTRASERVER_DOC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html#ac_trn2-ultraservers"
SEED_000 = "shared/seeds/000_1d14a4d4fccc074a.txt"
TRN2_PAGE = "https://aws.amazon.com/ec2/instance-types/trn2/"


@rule(
    id="ultraserver-whole-units",
    severity="error",
    description="UltraServer members (trn2u.48xlarge) come in whole UltraServers of four instances.",
    source=ULTRASERVER_DOC,
    remediation="Set count to a multiple of 4, or declare `ultraservers: N` instead of `count`.",
)
def whole_units(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for g in ctx.cluster.node_groups:
        size = ctx.catalogue.instance_types[g.instance_type].ultraserver_size
        if size and g.count % size:
            yield r.finding(
                ctx, count_path(g),
                f"node group '{g.name}' declares {g.count} {g.instance_type}, not a whole number of "
                f"UltraServers ({size} instances each); use {g.count - g.count % size or size} or {g.count + size - g.count % size}",
            )


@rule(
    id="ultraserver-requires-lustre",
    severity="error",
    description="More than one Trn2 UltraServer clustered together needs FSx for Lustre as shared storage.",
    source=SEED_000,
    remediation="Add a `lustre:` file system (PERSISTENT_2 for long runs), or run a single UltraServer.",
)
def requires_lustre(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    if ctx.cluster.lustre is not None:
        return
    members = [g for g in ctx.cluster.node_groups if ctx.catalogue.instance_types[g.instance_type].ultraserver_size]
    if not members:
        return
    size = ctx.catalogue.instance_types[members[0].instance_type].ultraserver_size or 1
    total = sum(g.count for g in members)
    if total > size:
        yield r.finding(
            ctx, count_path(members[0]),
            f"{total} UltraServer instances ({total / size:g} UltraServers) are clustered without FSx for Lustre; "
            "clustered UltraServers need a Lustre file system for datasets and checkpoints",
        )


@rule(
    id="ultraserver-purchase",
    severity="error",
    description="Trn2 UltraServers (trn2u.48xlarge) are sold through EC2 Capacity Blocks, not on demand.",
    source=TRN2_PAGE,
    remediation="Set `purchase: capacity-block` on the UltraServer node group, or use trn2.48xlarge on demand.",
)
def purchase(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.instance_types[g.instance_type]
        if t.ultraserver_size and g.purchase == "on-demand":
            yield r.finding(
                ctx, g.path + ("purchase",),
                f"node group '{g.name}': {g.instance_type} is sold as whole UltraServers through Capacity Blocks; "
                "on-demand purchase is not offered",
            )
