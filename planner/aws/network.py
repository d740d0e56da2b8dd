"""Do the declared VPC and subnet exist, and do they fit the cluster?

The subnet decides the Availability Zone: an instance launches in its subnet's zone, EFA
traffic does not cross zones, and FSx for Lustre lives in exactly one subnet.
"""

from __future__ import annotations

from typing import Iterator

from planner.aws.checks import aws_error, check
from planner.aws.errors import AwsCallError
from planner.findings import Finding
from planner.rules import Rule, RuleContext

NETWORK_DOC = "https://docs.aws.amazon.com/vpc/latest/userguide/configure-subnets.html"


@check(
    id="preflight-network",
    severity="error",
    description="A declared network.vpc_id or network.subnet_id does not exist in the region, or the subnet is in "
                "another VPC or Availability Zone than the cluster declares.",
    source=NETWORK_DOC,
    remediation="Declare a subnet of the declared VPC in the cluster's Availability Zone (aws ec2 describe-subnets), "
                "or drop `network` to let the components create the VPC.",
)
def network(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    account, region = ctx.options["account"], ctx.options["region"]
    net = ctx.cluster.network
    if net is None:
        return
    if net.vpc_id:
        where = net.path + ("vpc_id",)
        try:
            if account.vpc(region, net.vpc_id) is None:
                yield r.finding(ctx, where, f"VPC {net.vpc_id} does not exist in {region}")
        except AwsCallError as err:
            yield aws_error(ctx, where, err, f"VPC {net.vpc_id}")
    if not net.subnet_id:
        return
    where = net.path + ("subnet_id",)
    try:
        subnet = account.subnet(region, net.subnet_id)
    except AwsCallError as err:
        yield aws_error(ctx, where, err, f"subnet {net.subnet_id}")
        return
    if subnet is None:
        yield r.finding(ctx, where, f"subnet {net.subnet_id} does not exist in {region}")
        return
    if net.vpc_id and subnet.get("VpcId") != net.vpc_id:
        yield r.finding(ctx, where, f"subnet {net.subnet_id} belongs to {subnet.get('VpcId')}, not to the declared {net.vpc_id}")
    zone = subnet.get("AvailabilityZone")
    users = [(f"node group '{g.name}'", g.availability_zone) for g in ctx.cluster.node_groups]
    if ctx.cluster.lustre is not None:
        users.append(("the FSx for Lustre file system", ctx.cluster.lustre.availability_zone))
    for who, az in users:
        if zone and az != zone:
            yield r.finding(ctx, where, f"subnet {net.subnet_id} is in {zone}; {who} is declared in {az}")
    free = subnet.get("AvailableIpAddressCount")
    need = ctx.cluster.instances
    if isinstance(free, int) and free < need:
        yield r.finding(ctx, where, f"subnet {net.subnet_id} has {free} free IP addresses; the cluster declares {need} "
                                    "instances, each needing at least one", severity="warning")
