"""`EfaNetwork`: the subnet, security groups and placement group an EFA cluster needs.

EFA traffic only flows between interfaces whose security group allows all traffic in
and out to and from itself, and never crosses an Availability Zone, so the network is one
private subnet in the cluster's AZ and one self-referencing group. Nothing is open to the
internet: the only egress beyond the group is HTTPS (AWS APIs, and S3 through the gateway
endpoint the new VPC gets) and the Lustre ports to the file system's group.
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
from msgspec import Struct

from planner.components import checks
from planner.components.args import cidr_problems, region_problems
from planner.core.input.cluster_checks import az_in_region
from planner.core.reading.problems import Problem

# FSx for Lustre: TCP 988 and 1018-1023 between clients and file servers.
LUSTRE_PORTS: tuple[tuple[int, int], ...] = ((988, 988), (1018, 1023))
TYPE = "planner:index:EfaNetwork"


class EfaNetworkArgs(Struct, frozen=True):
    availability_zone: str
    placement_group: bool = False  # create a cluster placement group
    vpc_id: pulumi.Input[str] | None = None  # existing VPC (with subnet_id) instead of a new one
    subnet_id: pulumi.Input[str] | None = None
    lustre: bool = True  # a security group for FSx for Lustre, reachable from the EFA group
    vpc_cidr: str = "10.0.0.0/16"
    subnet_cidr: str = "10.0.0.0/19"  # 8,187 addresses: one per primary interface, and room
    region: str | None = None  # default: the stack's aws:region


class EfaNetwork(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    subnet_id: pulumi.Output[str]
    security_group_id: pulumi.Output[str]
    lustre_security_group_id: pulumi.Output[str] | None
    placement_group_name: pulumi.Output[str] | None

    def __init__(self, name: str, args: EfaNetworkArgs, opts: pulumi.ResourceOptions | None = None):
        label = f"EfaNetwork({name!r})"
        if not isinstance(args, EfaNetworkArgs):
            raise checks.ClusterInputError(
                [Problem(label, None, "args", f"expected EfaNetworkArgs, got {type(args).__name__}")]
            )
        problems = region_problems(args.region, label) + cidr_problems(args.vpc_cidr, args.subnet_cidr, label)
        if not isinstance(args.availability_zone, str):
            problems.append(Problem(label, None, "availability_zone", "expected an Availability Zone name (str)"))
        if problems:
            raise checks.ClusterInputError(problems)
        region = checks.stack_region(args.region, label)
        if not az_in_region(args.availability_zone, region):
            raise checks.ClusterInputError(
                [
                    Problem(
                        label,
                        None,
                        "availability_zone",
                        f"expected an Availability Zone of {region}, got '{args.availability_zone}'",
                    )
                ]
            )
        if args.vpc_id is not None and args.subnet_id is None:  # never build a new VPC beside the one given
            raise checks.ClusterInputError(
                [
                    Problem(
                        label,
                        None,
                        "subnet_id",
                        "missing: an existing VPC needs the subnet to use (in the cluster's AZ)",
                    )
                ]
            )
        super().__init__(TYPE, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        if args.subnet_id is not None:
            self.subnet_id = pulumi.Output.from_input(args.subnet_id)
            self.vpc_id = (
                pulumi.Output.from_input(args.vpc_id)
                if args.vpc_id is not None
                else aws.ec2.get_subnet_output(id=args.subnet_id, opts=pulumi.InvokeOutputOptions(parent=self)).vpc_id
            )
        else:
            vpc = aws.ec2.Vpc(
                f"{name}-vpc",
                cidr_block=args.vpc_cidr,
                enable_dns_support=True,
                enable_dns_hostnames=True,
                tags={"Name": f"{name}-vpc"},
                opts=child,
            )
            subnet = aws.ec2.Subnet(
                f"{name}-subnet",
                vpc_id=vpc.id,
                cidr_block=args.subnet_cidr,
                availability_zone=args.availability_zone,
                map_public_ip_on_launch=False,
                tags={"Name": f"{name}-private"},
                opts=child,
            )
            # Datasets and checkpoints in S3 without a NAT gateway: a free gateway endpoint.
            aws.ec2.VpcEndpoint(
                f"{name}-s3",
                vpc_id=vpc.id,
                service_name=f"com.amazonaws.{region}.s3",
                vpc_endpoint_type="Gateway",
                route_table_ids=[vpc.main_route_table_id],
                opts=child,
            )
            self.vpc_id, self.subnet_id = vpc.id, subnet.id

        efa = aws.ec2.SecurityGroup(
            f"{name}-efa",
            vpc_id=self.vpc_id,
            description="EFA: all traffic to and from members of this group only",
            tags={"Name": f"{name}-efa"},
            opts=child,
        )
        self.security_group_id = efa.id
        _rule(f"{name}-efa-in-self", "ingress", efa.id, "-1", None, peer=efa.id, opts=child)
        _rule(f"{name}-efa-out-self", "egress", efa.id, "-1", None, peer=efa.id, opts=child)
        _rule(f"{name}-efa-out-https", "egress", efa.id, "tcp", (443, 443), cidr="0.0.0.0/0", opts=child)

        self.lustre_security_group_id = None
        if args.lustre:
            fs = aws.ec2.SecurityGroup(
                f"{name}-lustre",
                vpc_id=self.vpc_id,
                description="FSx for Lustre: TCP 988 and 1018-1023 from the cluster and itself",
                tags={"Name": f"{name}-lustre"},
                opts=child,
            )
            self.lustre_security_group_id = fs.id
            for lo, hi in LUSTRE_PORTS:
                suffix = str(lo) if lo == hi else f"{lo}-{hi}"
                _rule(f"{name}-lustre-in-self-{suffix}", "ingress", fs.id, "tcp", (lo, hi), peer=fs.id, opts=child)
                _rule(f"{name}-lustre-in-efa-{suffix}", "ingress", fs.id, "tcp", (lo, hi), peer=efa.id, opts=child)
                _rule(f"{name}-lustre-out-self-{suffix}", "egress", fs.id, "tcp", (lo, hi), peer=fs.id, opts=child)
                _rule(f"{name}-lustre-out-efa-{suffix}", "egress", fs.id, "tcp", (lo, hi), peer=efa.id, opts=child)
                _rule(f"{name}-efa-out-lustre-{suffix}", "egress", efa.id, "tcp", (lo, hi), peer=fs.id, opts=child)

        self.placement_group_name = None
        if args.placement_group:
            pg = aws.ec2.PlacementGroup(f"{name}-pg", strategy="cluster", tags={"Name": f"{name}-pg"}, opts=child)
            self.placement_group_name = pg.name

        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "subnet_id": self.subnet_id,
                "security_group_id": self.security_group_id,
                "lustre_security_group_id": self.lustre_security_group_id,
                "placement_group_name": self.placement_group_name,
            }
        )


def _rule(
    name: str,
    direction: str,
    group: pulumi.Input[str],
    protocol: str,
    ports: tuple[int, int] | None,
    *,
    peer: pulumi.Input[str] | None = None,
    cidr: str | None = None,
    opts: pulumi.ResourceOptions,
) -> None:
    """One security group rule as its own resource (the provider's recommended form)."""
    kind = aws.vpc.SecurityGroupIngressRule if direction == "ingress" else aws.vpc.SecurityGroupEgressRule
    kind(
        name,
        security_group_id=group,
        ip_protocol=protocol,
        from_port=None if ports is None else ports[0],
        to_port=None if ports is None else ports[1],
        referenced_security_group_id=peer,
        cidr_ipv4=cidr,
        opts=opts,
    )
