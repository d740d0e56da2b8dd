"""Network placement of the cluster: public addresses and the one subnet it is built in."""

from __future__ import annotations

from typing import Iterator

from planner.findings import Finding
from planner.rules import Rule, RuleContext, rule

PUBLIC_IP_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-instance-addressing.html#public-ip-addresses"
SUBNET_DOC = "https://docs.aws.amazon.com/vpc/latest/userguide/configure-subnets.html"


@rule(
    id="public-ip-multi-card",
    severity="error",
    description="`public_ip: true` on a type with more than one network card: EC2 assigns no public IP at launch with several interfaces.",
    source=PUBLIC_IP_DOC,
    remediation="Set `public_ip: false` and reach the nodes through a bastion, SSM Session Manager or a NAT gateway.",
)
def public_ip(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    for g in ctx.cluster.node_groups:
        cards = ctx.catalogue.instance_types[g.instance_type].network_cards
        if g.public_ip and cards > 1:
            yield r.finding(ctx, g.path + ("public_ip",),
                            f"node group '{g.name}': {g.instance_type} has {cards} network cards; "
                            "a public IPv4 address cannot be assigned at launch")


@rule(
    id="subnet-single-az",
    severity="error",
    description="An existing subnet (`network.subnet_id`) lies in one AZ, but node groups or Lustre are declared in several.",
    source=SUBNET_DOC,
    remediation="Put every node group and the file system in the subnet's AZ, or drop `network` to let planner build the VPC.",
)
def subnet_single_az(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    c = ctx.cluster
    if c.network is None or c.network.subnet_id is None:
        return
    zones = {g.availability_zone for g in c.node_groups}
    if c.lustre is not None:
        zones.add(c.lustre.availability_zone)
    if len(zones) > 1:
        yield r.finding(ctx, c.network.path + ("subnet_id",),
                        f"subnet {c.network.subnet_id} is in one Availability Zone but the cluster spans "
                        f"{', '.join(sorted(zones))}")
