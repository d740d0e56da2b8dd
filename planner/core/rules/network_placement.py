"""Network placement of the cluster: public addresses and the one subnet it is built in."""

from __future__ import annotations

from collections.abc import Iterator

from planner.core.catalogue.instance_types import InstanceType
from planner.core.model.cluster import Cluster, NodeGroup, Path
from planner.core.model.findings import Finding
from planner.core.rules.spec_rules import (
    Fix,
    Rule,
    RuleContext,
    node_group_rule,
    outside,
    remove,
    rule,
    set_to,
)

PUBLIC_IP_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_InstanceNetworkInterfaceSpecification.html"
SUBNET_DOC = "https://docs.aws.amazon.com/vpc/latest/userguide/configure-subnets.html"


def launch_interfaces(group: NodeGroup, spec: InstanceType) -> int:
    """How many network interfaces a node group's launch request carries, as planner builds it
    (planner/components/accelerated_cluster.py): one EFA interface per network card up to the type's EFA
    interface limit when EFA is on, else a single ENA interface."""
    if group.efa and spec.efa_cards:
        return spec.efa_cards[-1] + 1  # cards before the first EFA card carry one ENA interface each
    return 1


@node_group_rule(
    id="public-ip-multi-card",
    severity="error",
    category="network",
    description=(
        "`public_ip: true` on a node group whose launch request has more than one network interface (EFA on a "
        "multi-card type): EC2 assigns a public IPv4 address at launch only with a single interface."
    ),
    source=PUBLIC_IP_DOC,
    remediation="Set `public_ip: false` and reach the nodes through a bastion, SSM Session Manager or a NAT gateway (or, for a node that needs no EFA, set `efa: false`).",
)
def public_ip(r: Rule, ctx: RuleContext, g: NodeGroup) -> Iterator[Finding]:
    """AssociatePublicIpAddress: "You cannot specify more than one network interface in the
    request." It is the interface count that matters, not the card count: one ENA interface
    (`efa: false`) may carry a public IP on any type."""
    spec = ctx.catalogue.spec(g.instance_type)
    n = launch_interfaces(g, spec)
    if g.public_ip and n > 1:
        yield r.finding(
            ctx,
            g.path + ("public_ip",),
            f"node group '{g.name}': its {g.instance_type} launch request has {n} network interfaces "
            "(EFA on every card); a public IPv4 address cannot be assigned at launch with more than one",
            fix=Fix(
                edits=(
                    set_to(
                        ctx,
                        g.path + ("public_ip",),
                        False,
                        "reach the nodes through a bastion, SSM Session Manager or a NAT gateway",
                    ),
                ),
                alternatives=(set_to(ctx, g.path + ("efa",), False, f"if its {g.instance_type} nodes need no EFA"),),
            ),
        )


@rule(
    id="subnet-single-az",
    severity="error",
    category="network",
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
        yield r.finding(
            ctx,
            c.network.path + ("subnet_id",),
            f"subnet {c.network.subnet_id} is in one Availability Zone but the cluster spans "
            f"{', '.join(sorted(zones))}",
            fix=outside(
                "account",
                f"put every node group and the file system in the Availability Zone of subnet {c.network.subnet_id}",
                alternatives=(remove(ctx, c.network.path, note="let planner build the VPC"),),
            ),
        )


def zone_places(c: Cluster) -> list[tuple[str, Path]]:
    """(zone, key path of the key that sets it) for every node group and the file system: where
    the cluster launches, each pointed at the key the user wrote (the group's own, or the cluster's)."""
    places = [
        (
            g.availability_zone,
            g.path + ("availability_zone",) if "availability_zone" in g.declared else c.path + ("availability_zone",),
        )
        for g in c.node_groups
    ]
    if c.lustre is not None:
        places.append(
            (
                c.lustre.availability_zone,
                c.lustre.path + ("availability_zone",)
                if "availability_zone" in c.lustre.declared
                else c.path + ("availability_zone",),
            )
        )
    return places


# "To use Capacity Blocks in Local Zones, you must be opted in to the Local Zone." (capacity-blocks-launch);
# Local Zones are opted in per zone group (AWS Local Zones User Guide, Getting started)
LOCAL_ZONE_DOC = "https://docs.aws.amazon.com/local-zones/latest/ug/getting-started.html"


@rule(
    id="local-zone-opt-in",
    severity="info",
    category="network",
    description="A node group or file system in a Local Zone: the account must opt in to the zone's group before it "
    "can launch (or book a Capacity Block) there.",
    source=LOCAL_ZONE_DOC,
    remediation="Opt in to the Local Zone's zone group (`aws ec2 modify-availability-zone-group`) before deploying.",
)
def local_zone_opt_in(r: Rule, ctx: RuleContext) -> Iterator[Finding]:
    from planner.core.catalogue import shipped_data as data

    zones = data.regions().local_zones
    seen: set[str] = set()
    places = zone_places(ctx.cluster)
    for az, path in places:
        z = zones.get(az)
        if z is None or not z.opt_in or az in seen:
            continue
        seen.add(az)
        # the group is named as AWS usually names Local Zone groups (shipped_data.LOCAL_ZONE_GROUP_DOC), said as
        # such: the account's own answer is DescribeAvailabilityZones' GroupName, which `planner preflight` reads
        group = data.local_zone_group(az)
        yield r.finding(
            ctx,
            path,
            f"{az} is a Local Zone of {z.region}: the account must opt in to its zone group "
            "before it can launch or book a Capacity Block there",
            fix=outside(
                "opt-in",
                f"opt in first: `aws ec2 modify-availability-zone-group --region {z.region} --group-name {group} "
                f"--opt-in-status opted-in` ({group} is the zone less its last letter, as AWS usually names Local "
                f"Zone groups; `aws ec2 describe-availability-zones --region {z.region} --all-availability-zones "
                f"--zone-names {az} --query 'AvailabilityZones[0].GroupName'` prints the account's, and `planner "
                "preflight` checks its opt-in status)",
            ),
        )
