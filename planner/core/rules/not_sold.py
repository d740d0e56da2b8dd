"""A node group bought in a way AWS does not sell: no price exists, and the instances cannot be bought.

The data (`planner/data/prices/not-sold.yaml`) says which instance types are not sold on
demand and in which regions Capacity Blocks are not sold, each entry with its source. The
estimate labels the line item "not sold" rather than "price unknown"; this rule points at
the node group. Spot and UltraServer purchase rules (`spot-unsupported`,
`ultraserver-purchase`, `capacity-block-supported`) cover their own cases; this rule
covers the rest of what the data lists.
"""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.model.cluster import NodeGroup, Purchase
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import Fix, Rule, RuleContext, move_region, nearest_region, rule, set_to

CAPACITY_BLOCKS_PRICING = "https://aws.amazon.com/ec2/capacityblocks/pricing/"


@rule(
    id="purchase-not-sold",
    severity="warning",
    category="purchase",
    description="A node group's instance type is not sold this way in this region (on demand, or Capacity Blocks), so it has no price.",
    source=CAPACITY_BLOCKS_PRICING,
    remediation="Choose a purchase option and region where the type is sold (`planner catalog` lists them), e.g. `purchase: capacity-block`.",
)
def purchase_not_sold(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    from planner.core.cost.offers import not_sold

    for g in ctx.cluster.node_groups:
        gone = not_sold(g.instance_type, ctx.stack.region, g.purchase)
        if gone is None or (g.purchase == "on-demand" and ctx.catalogue.is_member(g.instance_type)):
            continue  # UltraServers on demand: `ultraserver-purchase` reports it
        yield r.finding(
            ctx,
            g.path + ("purchase",),
            f"node group '{g.name}': AWS does not sell {g.instance_type} {g.purchase} in {ctx.stack.region} "
            f"({gone.reason}, as of {gone.as_of}): no price, and the instances cannot be bought this way",
            fix=_fix(ctx, g),
        )


def _fix(ctx: RuleContext, g: NodeGroup) -> Fix | None:
    """The purchase options the data and catalogue leave for this type in this region; else the region
    nearest in name that sells it this way (None: none the catalogue lists)."""
    from planner.core.cost.offers import not_sold

    t = ctx.catalogue.spec(g.instance_type)
    offers: tuple[tuple[Purchase, bool], ...] = (
        ("capacity-block", t.capacity_block),
        ("on-demand", True),
        ("spot", t.spot),
    )
    options = [
        p
        for p, offered in offers
        if offered and p != g.purchase and not_sold(g.instance_type, ctx.stack.region, p) is None
    ]
    if not options:
        sold = [x for x in t.regions if t.sold_in(x, g.purchase) and not_sold(g.instance_type, x, g.purchase) is None]
        if not sold:
            return None
        where = nearest_region(ctx.stack.region, sold)
        return Fix(edits=move_region(ctx, where, f"where {g.instance_type} is sold {g.purchase}"))
    at = g.path + ("purchase",)
    return Fix(edits=(set_to(ctx, at, options[0]),), alternatives=tuple(set_to(ctx, at, p) for p in options[1:]))
