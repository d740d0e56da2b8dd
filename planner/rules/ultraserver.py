"""Trn2 UltraServer topology rules (seed 000: UltraServers are four Trn2 joined by NeuronLink)."""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule

ULTRASERVER_DOC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html#ac_trn2-ultraservers"


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
                ctx, g.path + ("count",),
                f"node group '{g.name}' declares {g.count} {g.instance_type}, not a whole number of "
                f"UltraServers ({size} instances each); use {g.count - g.count % size or size} or {g.count + size - g.count % size}",
            )
