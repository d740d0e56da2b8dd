"""Trn2 UltraServer topology rules: an UltraServer is four trn2u.48xlarge joined by NeuronLink-v3
(Neuron Trn2 architecture page)."""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, count_path, rule

ULTRASERVER_DOC = "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html#ac_trn2-ultraservers"
FSX_LUSTRE_FAQ = "https://aws.amazon.com/fsx/lustre/faqs/"
CAPACITY_BLOCKS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html"


@rule(
    id="ultraserver-whole-units",
    severity="error",
    category="ultraserver",
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
                fix=(f"in node group '{g.name}', set count: {g.count - g.count % size or size} or "
                     f"{g.count + size - g.count % size} (or ultraservers: {max(g.count // size, 1)})"),
            )


@rule(
    id="ultraserver-requires-lustre",
    severity="error",
    category="ultraserver",
    description=("planner's design rule: training across more than one Trn2 UltraServer needs one shared file system for "
                 "the datasets and checkpoints that every UltraServer reads and writes; planner asks for FSx for Lustre."),
    source=FSX_LUSTRE_FAQ,
    remediation="Add a `lustre:` file system (PERSISTENT_2 for long runs), or run a single UltraServer.",
)
def requires_lustre(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """NeuronLink joins the four instances of one UltraServer (Neuron Trn2 architecture page);
    beyond one UltraServer, instances share data over the network, and a job that checkpoints
    and restarts needs storage they all see. AWS positions FSx for Lustre for "machine
    learning, high performance computing" workloads where speed matters (FSx for Lustre FAQ);
    this is planner's choice for clustered UltraServers, not an AWS requirement."""
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
            "planner requires a shared Lustre file system for the datasets and checkpoints of a multi-UltraServer job",
            fix=("add lustre: with deployment_type: PERSISTENT_2, per_unit_storage_throughput and storage_capacity_gib "
                 f"(in {members[0].availability_zone})"
                 + (f", or in node group '{members[0].name}', set "
                    + ("ultraservers: 1" if members[0].ultraservers is not None else f"count: {size}") + " (one UltraServer)"
                    if len(members) == 1 else "")),
        )


@rule(
    id="ultraserver-purchase",
    severity="warning",
    category="ultraserver",
    description=("Trn2 UltraServers (trn2u.48xlarge) bought on demand: AWS documents reserving UltraServers through EC2 "
                 "Capacity Blocks; DescribeInstanceTypes also lists an on-demand usage class, so this is not an error."),
    source=CAPACITY_BLOCKS_DOC,
    remediation="Set `purchase: capacity-block` on the UltraServer node group, or confirm on-demand UltraServer capacity with AWS first.",
)
def purchase(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    """The Capacity Blocks user guide: "You can also use Capacity Blocks to reserve capacity for
    Amazon EC2 UltraServers." Nothing AWS publishes bars on-demand trn2u.48xlarge (its
    DescribeInstanceTypes answer lists the on-demand usage class), so planner warns."""
    for g in ctx.cluster.node_groups:
        t = ctx.catalogue.instance_types[g.instance_type]
        if t.ultraserver_size and g.purchase == "on-demand":
            yield r.finding(
                ctx, g.path + ("purchase",),
                f"node group '{g.name}': {g.instance_type} on demand; AWS documents reserving UltraServers through "
                "Capacity Blocks and does not document on-demand capacity for whole UltraServers",
                fix=f"in node group '{g.name}', set purchase: capacity-block (or confirm on-demand UltraServer capacity with AWS)",
            )
