"""Purchase options a type or a market does not offer (spot)."""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.cluster import NodeGroup
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, node_group_rule, remove, set_to

# SupportedUsageClasses: "Indicates whether the instance type is offered for spot, On-Demand, or Capacity Blocks."
# (planner/data/rule_sources.yaml): the page that says what the catalogue's `spot` follows
INSTANCE_TYPE_INFO_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_InstanceTypeInfo.html"
RESERVATION_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-reservations.html"


@node_group_rule(
    id="spot-unsupported",
    severity="error",
    category="purchase",
    description=(
        "Spot purchase for an instance type that the catalogue lists as not offered as Spot (EC2 DescribeInstanceTypes "
        "SupportedUsageClasses without `spot`, such as p6e-gb200.36xlarge)."
    ),
    source=INSTANCE_TYPE_INFO_DOC,
    remediation="Use `purchase: capacity-block` (UltraServers) or on-demand, or a type offered as Spot (`planner catalog`).",
)
def spot_unsupported(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """The catalogue's `spot` follows DescribeInstanceTypes' SupportedUsageClasses (`make drift` compares
    them): trn2u.48xlarge lists `spot` there, so it is no error here (`ultraserver-purchase` warns that AWS
    documents UltraServers through Capacity Blocks)."""
    if g.purchase == "spot" and not ctx.catalogue.spec(g.instance_type).spot:
        t = ctx.catalogue.spec(g.instance_type)
        options: tuple[str, ...] = (
            (("capacity-block",) if ctx.catalogue.is_member(g.instance_type) else ("capacity-block", "on-demand"))
            if t.capacity_block
            else ("on-demand",)
        )
        at = g.path + ("purchase",)
        yield r.finding(
            ctx,
            g.path + ("purchase",),
            f"node group '{g.name}': {g.instance_type} is not offered as Spot",
            fix=Fix(edits=(set_to(ctx, at, options[0]),), alternatives=tuple(set_to(ctx, at, p) for p in options[1:])),
        )


@node_group_rule(
    id="spot-capacity-reservation",
    # a warning: AWS describes capacity reservations for On-Demand launches (and Capacity Blocks), but no AWS
    # page found says a Spot instance cannot run in one (planner/data/rule_sources.yaml: what was searched)
    severity="warning",
    category="purchase",
    description=(
        "A capacity reservation id on a Spot group: AWS describes capacity reservations as capacity for "
        "On-Demand launches and Capacity Blocks, and no AWS page says Spot instances run in one."
    ),
    source=RESERVATION_DOC,
    remediation="Remove `capacity_reservation_id` from the Spot group, or buy the group on-demand or as a Capacity Block.",
)
def spot_reservation(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    if g.purchase == "spot" and g.launch_target:
        key = "capacity_reservation_id" if g.capacity_reservation_ids else "capacity_reservation_resource_group_arn"
        field = "capacity_reservation_ids" if g.capacity_reservation_ids else key
        target = (
            ", ".join(g.capacity_reservation_ids)
            if g.capacity_reservation_ids
            else f"resource group {g.capacity_reservation_resource_group_arn}"
        )
        yield r.finding(
            ctx,
            g.path + (key,),
            f"node group '{g.name}' is Spot but targets capacity reservation {target}; "
            "AWS describes capacity reservations for On-Demand launches and no AWS page says Spot instances "
            "run in one: the group may launch outside it",
            fix=Fix(
                edits=(remove(ctx, g.path + (field,)),),
                alternatives=(set_to(ctx, g.path + ("purchase",), "on-demand", f"to launch into {target}"),),
            ),
        )
