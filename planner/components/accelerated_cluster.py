"""Cluster components: one base for any catalogue type, three named ones for the common cases.

Each builds, per node group, a launch template with one EFA interface per network card
and an Auto Scaling group: resources grow with node groups, not with instances, so a
64-instance group is two resources, and replacing a failed node is EC2 Auto Scaling's job
rather than a `pulumi up`. Groups are sized min = max = desired = count.

The whole topology is planned (rules, summary, cost) before the component registers
anything; see `planner.components.checks`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pulumi
import pulumi_aws as aws
from msgspec.structs import replace

from planner.components import checks, images
from planner.components.args import ClusterArgs, check_cluster_args
from planner.components.network import EfaNetwork, EfaNetworkArgs
from planner.components.storage import LustreStorage, LustreStorageArgs
from planner.core.catalogue import instance_types as _catalogue
from planner.core.catalogue.instance_types import InstanceType
from planner.core.document import codec
from planner.core.model.cluster import NodeGroup, Stack
from planner.core.reading.problems import Problem
from planner.core.reading.yaml_lines import Lines
from planner.core.rules.network_placement import launch_interfaces


class AcceleratedCluster(pulumi.ComponentResource):
    """A training cluster of any instance types in the catalogue (mixed node groups allowed)."""

    TYPE: ClassVar[str] = "planner:index:AcceleratedCluster"
    INSTANCE_TYPE: ClassVar[str | None] = None  # set by the single-type subclasses

    stack: Stack
    summary: pulumi.Output[dict[str, Any]]
    cost: pulumi.Output[Any]
    findings: pulumi.Output[list[dict[str, Any]]]
    network: EfaNetwork
    storage: LustreStorage | None
    launch_template_ids: dict[str, pulumi.Output[str]]
    auto_scaling_group_names: dict[str, pulumi.Output[str]]

    def __init__(
        self,
        name: str,
        args: ClusterArgs,
        opts: pulumi.ResourceOptions | None = None,
        *,
        source: str | None = None,
        lines: Lines | None = None,
    ):
        """`source` (and `lines`) name the declaration in findings (default: `Type('name')`)."""
        label = f"{type(self).__name__}({name!r})"
        file = source or label
        check_cluster_args(args, file)  # types, region, volume, tags: before anything is planned or created
        args = self._with_instance_type(args)
        region = checks.stack_region(args.region, file)
        self.stack = checks.stack_from_config(name, args.to_config(), region, file, lines=lines)
        self._check_types(self.stack, file)
        planned = checks.plan_or_stop(label, self.stack)
        _check_buildable(self.stack, file, args)

        super().__init__(self.TYPE, name, None, opts)
        self.summary = pulumi.Output.from_input(codec.dump_record(planned.summary))
        self.cost = pulumi.Output.from_input(checks.cost_json(planned))
        self.findings = pulumi.Output.from_input(checks.findings_json(planned))
        self.launch_template_ids, self.auto_scaling_group_names = {}, {}
        self.storage = None
        self._build(name, args, region)
        self.register_outputs(
            {
                "summary": self.summary,
                "cost": self.cost,
                "findings": self.findings,
                "vpc_id": self.network.vpc_id,
                "subnet_id": self.network.subnet_id,
                "security_group_id": self.network.security_group_id,
                "placement_group_name": self.network.placement_group_name,
                "file_system_id": None if self.storage is None else self.storage.file_system_id,
                "launch_template_ids": self.launch_template_ids,
                "auto_scaling_group_names": self.auto_scaling_group_names,
            }
        )

    # --- topology ------------------------------------------------------------------------
    def _with_instance_type(self, args: ClusterArgs) -> ClusterArgs:
        """Single-type components fill in their type where a node group leaves it out."""
        if self.INSTANCE_TYPE is None:
            return args
        groups = [g if g.instance_type else replace(g, instance_type=self.INSTANCE_TYPE) for g in args.node_groups]
        return replace(args, node_groups=groups)

    def _check_types(self, stack: Stack, label: str) -> None:
        if self.INSTANCE_TYPE is None:
            return
        wrong = [
            Problem(
                label,
                None,
                f"node_groups[{i}].instance_type",
                f"{type(self).__name__} builds {self.INSTANCE_TYPE} node groups, got {g.instance_type}; "
                f"use AcceleratedCluster for other or mixed types",
            )
            for i, g in enumerate(stack.cluster.node_groups)
            if g.instance_type != self.INSTANCE_TYPE
        ]
        if wrong:
            raise checks.ClusterInputError(wrong)

    # --- resources -------------------------------------------------------------------------
    def _build(self, name: str, args: ClusterArgs, region: str) -> None:
        cluster = self.stack.cluster
        child = pulumi.ResourceOptions(parent=self)
        self.network = EfaNetwork(
            f"{name}-network",
            EfaNetworkArgs(
                availability_zone=cluster.availability_zone,
                placement_group=cluster.placement == "cluster",
                vpc_id=args.vpc_id,
                subnet_id=args.subnet_id,
                lustre=cluster.lustre is not None,
                region=region,
            ),
            opts=child,
        )
        if cluster.lustre is not None and args.lustre is not None:
            assert self.network.lustre_security_group_id is not None  # the network made it: lustre=True above
            groups = [self.network.lustre_security_group_id]
            if cluster.lustre.efa_enabled:
                groups.append(self.network.security_group_id)
            self.storage = LustreStorage(
                f"{name}-lustre",
                LustreStorageArgs(
                    lustre=args.lustre,
                    subnet_id=self.network.subnet_id,
                    security_group_ids=groups,
                    region=region,
                    planned=True,
                ),
                opts=child,
            )
        cat = _catalogue.load()
        for group in cluster.node_groups:
            spec = cat.spec(group.instance_type)
            for suffix, part, unit in _launch_units(group, cat):
                lt = aws.ec2.LaunchTemplate(
                    f"{name}-{suffix}",
                    opts=child,
                    **launch_template_args(
                        name, part, spec, args, self.network.subnet_id, self.network.security_group_id, unit
                    ),
                )
                version = lt.latest_version.apply(str)
                asg = aws.autoscaling.Group(
                    f"{name}-{suffix}",
                    min_size=part.count,
                    max_size=part.count,
                    desired_capacity=part.count,
                    vpc_zone_identifiers=[self.network.subnet_id],
                    **_instances_source(part, lt.id, version),
                    placement_group=self.network.placement_group_name,
                    # Capacity Blocks start later than `pulumi up`: do not wait for instances.
                    wait_for_capacity_timeout="0" if part.purchase == "capacity-block" else None,
                    tags=[
                        {"key": k, "value": v, "propagate_at_launch": True}
                        for k, v in _tags(name, part, args, unit).items()
                    ],
                    opts=child,
                )
                self.launch_template_ids[suffix] = lt.id
                self.auto_scaling_group_names[suffix] = asg.name


ULTRASERVER_TAG = "planner:ultraserver"  # which UltraServer of its node group (1..N) a launch template serves
ULTRASERVER_TYPE_TAG = (
    "planner:ultraserver-type"  # the group's UltraServer type, for the read-back (a member of several)
)


def _launch_units(group: NodeGroup, cat: _catalogue.Catalogue) -> list[tuple[str, NodeGroup, int | None]]:
    """What gets one launch template and Auto Scaling group: the node group, or, when an UltraServer
    Capacity Block group names one reservation per UltraServer, each UltraServer (`<group>-us1`, ...,
    the UltraServer type's members and its own reservation each, in the order the ids are declared).

    A launch template targets one reservation (EC2 CapacityReservationTarget), so several ids need
    several templates; one id or a resource group ARN keeps one template for the whole group."""
    ultra = cat.ultraserver_of(group)
    ids, size = group.capacity_reservation_ids, (ultra.members if ultra else None)
    if len(ids) <= 1 or size is None or group.purchase != "capacity-block" or len(ids) * size != group.count:
        return [(group.name, group, None)]
    return [
        (f"{group.name}-us{k}", replace(group, count=size, capacity_reservation_ids=(rid,), ultraservers=1), k)
        for k, rid in enumerate(ids, 1)
    ]


def _instances_source(group: NodeGroup, template_id: pulumi.Input[str], version: pulumi.Input[str]) -> dict[str, Any]:
    """Spot goes through a mixed instances policy (EC2 Auto Scaling's way to buy Spot, with
    capacity-optimized allocation); other purchases launch the template as it is."""
    if group.purchase != "spot":
        return {"launch_template": {"id": template_id, "version": version}}
    return {
        "mixed_instances_policy": {
            "launch_template": {
                "launch_template_specification": {"launch_template_id": template_id, "version": version}
            },
            "instances_distribution": {
                "on_demand_base_capacity": 0,
                "on_demand_percentage_above_base_capacity": 0,
                "spot_allocation_strategy": "capacity-optimized",
            },
        }
    }


def launch_template_args(
    name: str,
    group: NodeGroup,
    spec: InstanceType,
    args: ClusterArgs,
    subnet_id: pulumi.Input[str],
    efa_group: pulumi.Input[str],
    ultraserver: int | None = None,
) -> dict[str, Any]:
    """The launch template of one node group (or one UltraServer of it, `ultraserver`: 1..N), as
    keyword arguments of aws.ec2.LaunchTemplate."""
    vendor = spec.accelerator.vendor if spec.accelerator is not None else ""
    if vendor not in images.BY_VENDOR and args.image_id is None:
        raise checks.ClusterInputError(
            [
                Problem(
                    name,
                    None,
                    "image_id",
                    f"{group.instance_type} (node group '{group.name}') has no NVIDIA GPU or Neuron device, so "
                    "there is no Deep Learning AMI to default to; expected `image_id`: the AMI for its nodes "
                    "(and `root_device_name` when its root device is not /dev/sda1)",
                )
            ]
        )
    image_id = args.image_id if args.image_id is not None else images.default_for(vendor).image_id
    root_device = args.root_device_name or images.ROOT_DEVICE
    extra = list(args.security_group_ids)
    market = "capacity-block" if group.purchase == "capacity-block" else None  # spot: see _instances_source
    return {
        "image_id": image_id,
        "instance_type": group.instance_type,
        "key_name": args.key_name,
        "user_data": args.user_data,
        "iam_instance_profile": {"name": args.instance_profile} if args.instance_profile else None,
        "network_interfaces": network_interfaces(group, spec, subnet_id, efa_group, extra),
        # IMDSv2 only; hop limit 2 so containers on the node reach the metadata service.
        "metadata_options": {"http_endpoint": "enabled", "http_tokens": "required", "http_put_response_hop_limit": 2},
        "block_device_mappings": [
            {
                "device_name": root_device,
                "ebs": {
                    "volume_size": group.root_volume_gib,
                    "volume_type": "gp3",
                    "encrypted": "true",
                    "delete_on_termination": "true",
                },
            }
        ],
        "instance_market_options": {"market_type": market} if market else None,
        "capacity_reservation_specification": _reservation_target(group),
        "tag_specifications": [
            {"resource_type": kind, "tags": _tags(name, group, args, ultraserver)}
            for kind in ("instance", "volume", "network-interface")
        ],
        "tags": _tags(name, group, args, ultraserver),
        "update_default_version": True,
    }


def _reservation_target(group: NodeGroup) -> dict[str, Any] | None:
    """The launch template's CapacityReservationTarget: one reservation id, or the ARN of a Capacity
    Reservation resource group (a group with one id per UltraServer is split before this)."""
    if group.capacity_reservation_resource_group_arn is not None:
        return {
            "capacity_reservation_target": {
                "capacity_reservation_resource_group_arn": group.capacity_reservation_resource_group_arn
            }
        }
    if len(group.capacity_reservation_ids) == 1:
        return {"capacity_reservation_target": {"capacity_reservation_id": group.capacity_reservation_ids[0]}}
    return None


def network_interfaces(
    group: NodeGroup,
    spec: InstanceType,
    subnet_id: pulumi.Input[str],
    efa_group: pulumi.Input[str],
    extra_groups: list[pulumi.Input[str]],
) -> list[dict[str, Any]]:
    """One interface per network card: card 0 a full EFA (EFA + ENA, carries the IP), the
    others EFA-only, up to the type's EFA interface limit; a card that takes no EFA (card 0 of
    p6-b300.48xlarge) an ENA interface; a single ENA interface without EFA.

    Security groups go on each interface: a launch template with interfaces takes none at
    the top level. A public IP only when the request has a single interface (EC2 refuses one
    at launch with several: the public-ip-multi-card rule).
    """
    efa_cards = set(spec.efa_cards) if group.efa else set()
    cards = launch_interfaces(group, spec)
    public = "true" if group.public_ip and cards == 1 else "false"
    out = []
    for card in range(cards):
        nic: dict[str, Any] = {
            "network_card_index": card,
            "device_index": 0,
            "subnet_id": subnet_id,
            "security_groups": [efa_group, *extra_groups] if card == 0 else [efa_group],
            "delete_on_termination": "true",
        }
        if card in efa_cards:  # the primary interface cannot be efa-only (EC2 User Guide, efa-acc-inst-types)
            nic["interface_type"] = "efa" if card == 0 else "efa-only"
        if card == 0:
            nic["associate_public_ip_address"] = public
        out.append(nic)
    return out


def _tags(name: str, group: NodeGroup, args: ClusterArgs, ultraserver: int | None = None) -> dict[str, str]:
    """The planner tags say which cluster and node group a resource builds (the read-back joins the
    per-UltraServer Auto Scaling groups of one node group by them)."""
    out = {**args.tags, "planner:cluster": name, "planner:node-group": group.name}
    if group.ultraserver_type is not None:
        out[ULTRASERVER_TYPE_TAG] = group.ultraserver_type
    if ultraserver is not None:
        out[ULTRASERVER_TAG] = str(ultraserver)
    return out


def _check_buildable(stack: Stack, label: str, args: ClusterArgs) -> None:
    """What these components cannot build, said before anything is created."""
    c = stack.cluster
    cat = _catalogue.load()
    problems = []
    if args.vpc_id is not None and args.subnet_id is None:  # an Output the parser could not see
        problems.append(
            Problem(
                label,
                None,
                "network.subnet_id",
                "missing: an existing VPC needs the subnet to use (in the cluster's AZ)",
            )
        )
    for i, g in enumerate(c.node_groups):
        if g.availability_zone != c.availability_zone:
            problems.append(
                Problem(
                    label,
                    None,
                    f"node_groups[{i}].availability_zone",
                    f"the components build one subnet, in the cluster's AZ {c.availability_zone}; "
                    f"node group '{g.name}' asks for {g.availability_zone} (declare a second cluster)",
                )
            )
        if g.public_ip and launch_interfaces(g, cat.spec(g.instance_type)) > 1:
            problems.append(
                Problem(
                    label,
                    None,
                    f"node_groups[{i}].public_ip",
                    f"{g.instance_type} with EFA launches with one interface per network card; EC2 "
                    "cannot give a public IP at launch to a request with several (set efa: false for one interface)",
                )
            )
    seen: dict[str, str] = {}
    for i, g in enumerate(c.node_groups):  # `<group>-us1` ... must not be another group's resource names
        for suffix, _part, _unit in _launch_units(g, cat):
            if suffix in seen and seen[suffix] != g.name:
                problems.append(
                    Problem(
                        label,
                        None,
                        f"node_groups[{i}].name",
                        f"node groups '{seen[suffix]}' and '{g.name}' would both build '{suffix}' resources "
                        "(a group with one reservation per UltraServer builds <group>-us1, -us2, ...); "
                        "rename one of them",
                    )
                )
            seen.setdefault(suffix, g.name)
    if c.lustre is not None and c.lustre.availability_zone != c.availability_zone:
        problems.append(
            Problem(
                label,
                None,
                "lustre.availability_zone",
                f"the file system goes in the cluster's subnet ({c.availability_zone}), not {c.lustre.availability_zone}",
            )
        )
    if problems:
        raise checks.ClusterInputError(problems)


class Trn2Cluster(AcceleratedCluster):
    """Trainium2: trn2.48xlarge node groups (16 chips, 16 network cards each)."""

    TYPE = "planner:index:Trn2Cluster"
    INSTANCE_TYPE = "trn2.48xlarge"


class UltraServerCluster(AcceleratedCluster):
    """UltraServers of any type in the catalogue (declare `ultraservers=N`; `ultraserver_type` for a member
    type of several); the instance type defaults to trn2u.48xlarge (Trn2 UltraServers, u-trn2x64)."""

    TYPE = "planner:index:UltraServerCluster"
    INSTANCE_TYPE = "trn2u.48xlarge"


class P5enCluster(AcceleratedCluster):
    """NVIDIA H200: p5en.48xlarge node groups (8 GPUs, 16 network cards each)."""

    TYPE = "planner:index:P5enCluster"
    INSTANCE_TYPE = "p5en.48xlarge"
