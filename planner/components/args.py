"""Typed arguments of the planner components, mirroring the stack schema key for key.

The topology fields are the `planner:cluster` keys of the stack schema (docs/stack-schema.md), so a
component's arguments turn into the same mapping a stack file holds and go through the
same parser (`planner.core.input.stack_files.parse_cluster`): a typo is rejected with the same message
whether it was written in YAML or in Python. The root volume size is topology (the
estimate prices it); deployment-only fields (image, instance profile, key, tags) are not
part of the topology and are never planned.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import pulumi
from msgspec import Struct, field

from planner.core.model.cluster import (
    ROOT_VOLUME_RANGE,
    Cluster,
    DeploymentType,
    Lustre,
    LustreStorageType,
    NodeGroup,
    Purchase,
    ReadCacheSizingMode,
    Workload,
)

T = TypeVar("T", bound=Struct)  # an args record


def _plain(value: Any) -> bool:
    """Known at plan time: a plain value, not a Pulumi Output of another resource."""
    return not isinstance(value, pulumi.Output)


def _declared_only(cls: type[T], model: Any, always: tuple[str, ...]) -> T:
    """Args from a parsed model record: `always` fields, plus the others the user declared
    (defaults the parser filled in stay undeclared, so rules see the same intent)."""
    declared: frozenset[str] = getattr(model, "declared", frozenset())
    return cls(**{name: getattr(model, name) for name in cls.__struct_fields__ if name in always or name in declared})


def _mapping(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The schema mapping of an args record: declared (non-None) keys only."""
    return {
        name: getattr(obj, name)
        for name in obj.__struct_fields__
        if name not in skip and getattr(obj, name) is not None
    }


class NodeGroupArgs(Struct, frozen=True):
    """One node group; `instance_type` may be left out on the single-type cluster components."""

    name: str
    instance_type: str | None = None
    count: int | None = None  # instances
    ultraservers: int | None = None  # whole UltraServers (UltraServer member types)
    ultraserver_type: str | None = None  # the UltraServer type, for a member type of several (p6e-gb200.36xlarge)
    purchase: Purchase | None = None  # on-demand | capacity-block | spot (checked by the parser, as in a stack file)
    efa: bool | None = None
    availability_zone: str | None = None
    public_ip: bool | None = None
    # one id, or (UltraServer Capacity Blocks) a list of ids, one per UltraServer
    capacity_reservation_id: str | Sequence[str] | None = None
    capacity_reservation_resource_group_arn: str | None = None  # a Capacity Reservation resource group

    @classmethod
    def from_model(cls, g: NodeGroup) -> NodeGroupArgs:
        """Back from the parsed model, keeping only the keys the user declared (rules look at intent).
        The model keeps reservation ids as a tuple; one id goes back as the string it was written as."""
        ids = g.capacity_reservation_ids
        declared: frozenset[str] = getattr(g, "declared", frozenset())
        return cls(
            **{
                name: getattr(g, name)
                for name in cls.__struct_fields__
                if name in ("name", "instance_type", "capacity_reservation_resource_group_arn")
                or (name in declared and name != "capacity_reservation_id")
            },
            capacity_reservation_id=None if not ids else ids[0] if len(ids) == 1 else list(ids),
        )

    def to_config(self) -> dict[str, Any]:
        """The node group's schema mapping (a list of ids as a list, as YAML would hold it)."""
        out = _mapping(self)
        ids = out.get("capacity_reservation_id")
        if isinstance(ids, Sequence) and not isinstance(ids, str):
            out["capacity_reservation_id"] = list(ids)
        return out


class LustreArgs(Struct, frozen=True):
    deployment_type: DeploymentType  # SCRATCH_1 | SCRATCH_2 | PERSISTENT_1 | PERSISTENT_2 (checked by the parser)
    storage_capacity_gib: int | None = None  # required but for INTELLIGENT_TIERING (checked by the parser)
    per_unit_storage_throughput: int | None = None  # MB/s per TiB, PERSISTENT_1/2
    availability_zone: str | None = None
    efa_enabled: bool | None = None
    s3_import_path: str | None = None
    storage_type: LustreStorageType | None = None  # SSD (the default) | INTELLIGENT_TIERING
    throughput_capacity_mbps: int | None = None  # INTELLIGENT_TIERING: the file system's throughput capacity
    read_cache_sizing_mode: ReadCacheSizingMode | None = None  # INTELLIGENT_TIERING: how the SSD read cache is sized
    read_cache_size_gib: int | None = None  # with USER_PROVISIONED

    def to_config(self) -> dict[str, Any]:
        return _mapping(self)

    @classmethod
    def from_model(cls, lu: Lustre) -> LustreArgs:
        return _declared_only(
            cls, lu, always=("deployment_type", "storage_capacity_gib", "per_unit_storage_throughput", "s3_import_path")
        )


class WorkloadArgs(Struct, frozen=True):
    """What the cluster trains, as `workload:` in a stack file: `model` (a preset or a config.json) and
    `tokens`, whose hours planner predicts on the declared topology, or `parameters`, `tokens` and `mfu`."""

    parameters: float | None = None
    tokens: float | None = None
    mfu: float | None = None  # with `model`, overrides the prediction
    precision: str | None = None  # bf16 | fp8
    checkpoint_max_minutes: float | None = (
        None  # lustre-checkpoint-time threshold, as `workload.checkpoint_max_minutes`
    )
    model: str | None = None  # a preset (llama3-70b) or a Hugging Face config.json path
    sequence_length: int | None = None  # with `model` (default 4,096)
    global_batch_tokens: int | None = None  # with `model`: tokens per step (default 4,194,304)

    @classmethod
    def from_model(cls, w: Workload) -> WorkloadArgs:
        """Args declaring a parsed workload: what the user declared, the model by the name it was given."""
        declared = {n: getattr(w, n) for n in cls.__struct_fields__ if n in w.declared or n == "tokens"}
        if w.model is not None:
            declared["model"] = w.model.name
        return cls(**declared)


class SuppressArgs(Struct, frozen=True):
    rule: str
    reason: str


class ClusterArgs(Struct, frozen=True):
    """A training cluster: the planned topology, then how to deploy it.

    `vpc_id`/`subnet_id` may be Outputs of other resources (they are checked for shape only
    when known); everything else in the topology must be known when the program runs, since
    it is planned before any resource is created.
    """

    # --- topology: the `planner:cluster` keys -----------------------------------------
    availability_zone: str
    node_groups: Sequence[NodeGroupArgs]
    placement_group: str | None = None  # cluster | none; default: cluster for on-demand EFA groups
    lustre: LustreArgs | None = None
    schedule_hours: float | None = None
    workload: WorkloadArgs | None = None
    budget_total_usd: float | None = None
    budget_monthly_usd: float | None = None
    suppress: Sequence[SuppressArgs] = ()
    vpc_id: pulumi.Input[str] | None = None  # build in an existing VPC ...
    subnet_id: pulumi.Input[str] | None = None  # ... and subnet (in the cluster's AZ)
    root_volume_gib: int | None = None  # gp3 root volume of each instance, GiB; None: the schema's default (500)
    # --- deployment only ---------------------------------------------------------------
    region: str | None = None  # default: the stack's `aws:region`
    image_id: pulumi.Input[str] | None = None  # default: the Deep Learning AMI for the accelerator (none for CPU types)
    # the root device of `image_id`'s AMI, where each instance's root volume (`root_volume_gib`) is mapped;
    # default: the Deep Learning AMIs' /dev/sda1. A mapping on another name adds a volume, not the root one.
    root_device_name: str | None = None
    instance_profile: pulumi.Input[str] | None = None  # IAM instance profile name for the nodes
    security_group_ids: Sequence[pulumi.Input[str]] = ()  # extra groups on each primary interface
    key_name: pulumi.Input[str] | None = None
    user_data: pulumi.Input[str] | None = None  # base64-encoded, as EC2 expects
    tags: Mapping[str, str] = field(default_factory=dict)

    def to_config(self) -> dict[str, Any]:
        """The `planner:cluster` mapping these args declare (what `parse_cluster` reads)."""
        out: dict[str, Any] = {
            "availability_zone": self.availability_zone,
            "node_groups": [g.to_config() for g in self.node_groups],
        }
        if self.placement_group is not None:
            out["placement_group"] = self.placement_group
        if self.lustre is not None:
            out["lustre"] = self.lustre.to_config()
        if self.schedule_hours is not None:
            out["schedule"] = {"hours": self.schedule_hours}
        if self.workload is not None:
            out["workload"] = _mapping(self.workload)
        budget = {
            k: v
            for k, v in (("total_usd", self.budget_total_usd), ("monthly_usd", self.budget_monthly_usd))
            if v is not None
        }
        if budget:
            out["budget"] = budget
        if self.suppress:
            out["suppress"] = [{"rule": s.rule, "reason": s.reason} for s in self.suppress]
        network = {
            k: v for k, v in (("vpc_id", self.vpc_id), ("subnet_id", self.subnet_id)) if v is not None and _plain(v)
        }
        if network:
            out["network"] = network
        if self.root_volume_gib is not None:
            out["root_volume_gib"] = self.root_volume_gib
        return out

    @classmethod
    def from_model(cls, c: Cluster, **deployment: Any) -> ClusterArgs:
        """Args declaring a parsed cluster (from_config's path), plus deployment-only fields."""
        return cls(
            availability_zone=c.availability_zone,
            node_groups=[NodeGroupArgs.from_model(g) for g in c.node_groups],
            placement_group=c.placement_group,
            lustre=None if c.lustre is None else LustreArgs.from_model(c.lustre),
            schedule_hours=None if c.schedule is None else c.schedule.hours,
            workload=None if c.workload is None else WorkloadArgs.from_model(c.workload),
            budget_total_usd=None if c.budget is None else c.budget.total_usd,
            budget_monthly_usd=None if c.budget is None else c.budget.monthly_usd,
            suppress=[SuppressArgs(s.rule, s.reason) for s in c.suppress],
            vpc_id=None if c.network is None else c.network.vpc_id,
            subnet_id=None if c.network is None else c.network.subnet_id,
            root_volume_gib=c.root_volume_gib,
            **deployment,
        )


# --- argument checks, before the first resource -------------------------------------------
# A component's arguments come from Python, not YAML: a wrong type would surface as an
# AttributeError deep inside the build, after some resources were registered. These checks
# run first and raise ClusterInputError naming the argument, like the parser does for keys.

# ClusterArgs fields that are not topology (`from_config(**deployment)` takes these only)
DEPLOYMENT_FIELDS = (
    "image_id",
    "root_device_name",
    "instance_profile",
    "security_group_ids",
    "key_name",
    "user_data",
    "tags",
)
ROOT_VOLUME_GIB = ROOT_VOLUME_RANGE  # gp3: 1 GiB to 16 TiB (Amazon EBS User Guide, "General Purpose SSD volumes")
ROOT_DEVICE = re.compile(r"/dev/[a-z0-9]{1,16}")  # an AMI's RootDeviceName (/dev/sda1, /dev/xvda)
TAG_KEY_MAX, TAG_VALUE_MAX = 128, 256  # EC2 tag restrictions (Amazon EC2 User Guide, "Tag restrictions")
RESERVED_TAG_PREFIX = "aws:"  # "You can't ... use the aws: prefix in your tag names or values" (same page)
VPC_PREFIX = (16, 28)  # "The allowed block size is between a /16 netmask and /28 netmask" (Amazon VPC User Guide)
EBS_GP3_SOURCE = "https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html"
TAG_SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/Using_Tags.html#tag-restrictions"
VPC_SOURCE = "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html"


def _kind(v: Any) -> str:
    return "None" if v is None else type(v).__name__


def _is_input(v: Any, allow_output: bool = True) -> bool:
    """A string, or (where allowed) a Pulumi Output known only at deployment."""
    return isinstance(v, str) or (allow_output and isinstance(v, pulumi.Output))


def region_problems(region: Any, label: str, key: str = "region") -> list[Any]:
    from planner.core.reading.problems import Problem

    if region is None:
        return []
    if not isinstance(region, str):
        return [Problem(label, None, key, f"expected an AWS region name such as us-east-2, got {_kind(region)}")]
    from planner.core.catalogue import shipped_data as data

    if not data.regions().known(region):  # the CLI's region list (botocore's partition data, shipped): no boto3 needed
        from planner.core.text.safe import one_line

        return [
            Problem(label, None, key, f"unknown AWS region '{one_line(region[:24])}'; expected one such as us-east-2")
        ]
    return []


def check_cluster_args(args: Any, label: str) -> None:
    """Raise ClusterInputError (every problem, each naming its argument) unless `args` can be planned and built."""
    from planner.components.errors import ClusterInputError
    from planner.core.reading.problems import Problem

    if not isinstance(args, ClusterArgs):
        raise ClusterInputError([Problem(label, None, "args", f"expected ClusterArgs, got {_kind(args)}")])
    problems: list[Problem] = []

    def need(ok: bool, key: str, expected: str, value: Any) -> bool:
        if not ok:
            problems.append(Problem(label, None, key, f"expected {expected}, got {_kind(value)}"))
        return ok

    need(
        isinstance(args.availability_zone, str),
        "availability_zone",
        "an Availability Zone name (str)",
        args.availability_zone,
    )
    groups = args.node_groups
    if need(
        isinstance(groups, Sequence) and not isinstance(groups, (str, bytes)),
        "node_groups",
        "a list of NodeGroupArgs",
        groups,
    ):
        for i, g in enumerate(groups):
            need(isinstance(g, NodeGroupArgs), f"node_groups[{i}]", "NodeGroupArgs", g)
    need(args.lustre is None or isinstance(args.lustre, LustreArgs), "lustre", "LustreArgs or None", args.lustre)
    need(
        args.workload is None or isinstance(args.workload, WorkloadArgs),
        "workload",
        "WorkloadArgs or None",
        args.workload,
    )
    if need(
        isinstance(args.suppress, Sequence) and not isinstance(args.suppress, (str, bytes)),
        "suppress",
        "a list of SuppressArgs",
        args.suppress,
    ):
        for i, s in enumerate(args.suppress):
            need(isinstance(s, SuppressArgs), f"suppress[{i}]", "SuppressArgs", s)
    problems += region_problems(args.region, label)
    for key in ("vpc_id", "subnet_id", "image_id", "instance_profile", "key_name", "user_data"):
        value = getattr(args, key)
        need(value is None or _is_input(value), key, "a string (or a Pulumi Output) or None", value)
    device = args.root_device_name
    need(
        device is None or (isinstance(device, str) and ROOT_DEVICE.fullmatch(device) is not None),
        "root_device_name",
        "a device name such as /dev/sda1 or /dev/xvda (the AMI's RootDeviceName) or None",
        device,
    )
    sgs = args.security_group_ids
    if need(
        isinstance(sgs, Sequence) and not isinstance(sgs, (str, bytes)),
        "security_group_ids",
        "a list of security group ids",
        sgs,
    ):
        for i, sg in enumerate(sgs):
            need(_is_input(sg), f"security_group_ids[{i}]", "a security group id (str or Output)", sg)
    low, high = ROOT_VOLUME_GIB
    vol = args.root_volume_gib
    if vol is not None and need(
        isinstance(vol, int) and not isinstance(vol, bool), "root_volume_gib", "an integer number of GiB", vol
    ):
        if not low <= vol <= high:
            problems.append(
                Problem(label, None, "root_volume_gib", f"expected {low} to {high} GiB (a gp3 volume), got {vol}")
            )
    problems += tag_problems(args.tags, label)
    if problems:
        raise ClusterInputError(problems)


def tag_problems(tags: Any, label: str, key: str = "tags") -> list[Any]:
    """Tags EC2 accepts: string keys of 1-128 characters without the reserved `aws:` prefix, values up to 256."""
    from planner.core.reading.problems import Problem
    from planner.core.text.safe import first_control, one_line

    if not isinstance(tags, Mapping):
        return [Problem(label, None, key, f"expected a mapping of tag keys to values, got {_kind(tags)}")]
    out = []
    for k, v in tags.items():
        shown = one_line(str(k)[:40])
        if not isinstance(k, str) or not 1 <= len(k) <= TAG_KEY_MAX:
            out.append(Problem(label, None, f"{key}[{shown}]", f"expected a tag key of 1 to {TAG_KEY_MAX} characters"))
        elif k.lower().startswith(RESERVED_TAG_PREFIX):
            out.append(
                Problem(
                    label,
                    None,
                    f"{key}[{shown}]",
                    "tag keys starting with 'aws:' are reserved for AWS; expected another key",
                )
            )
        elif first_control(k):
            out.append(Problem(label, None, f"{key}[{shown}]", "expected a tag key without control characters"))
        if not (isinstance(v, str) or isinstance(v, pulumi.Output)) or (isinstance(v, str) and len(v) > TAG_VALUE_MAX):
            out.append(
                Problem(
                    label,
                    None,
                    f"{key}[{shown}]",
                    f"expected a tag value: a string of at most {TAG_VALUE_MAX} characters",
                )
            )
    return out


def cidr_problems(vpc_cidr: Any, subnet_cidr: Any, label: str) -> list[Any]:
    """An IPv4 VPC block of /16 to /28, and a subnet block inside it (Amazon VPC CIDR rules)."""
    import ipaddress

    from planner.core.reading.problems import Problem
    from planner.core.text.safe import one_line

    out = []
    nets = {}
    for key, value in (("vpc_cidr", vpc_cidr), ("subnet_cidr", subnet_cidr)):
        try:
            net = ipaddress.ip_network(value, strict=True) if isinstance(value, str) else None
        except ValueError:
            net = None
        if not isinstance(net, ipaddress.IPv4Network):
            shown = one_line(value[:24]) if isinstance(value, str) else _kind(value)
            out.append(Problem(label, None, key, f"expected an IPv4 CIDR block such as 10.0.0.0/16, got '{shown}'"))
        elif not VPC_PREFIX[0] <= net.prefixlen <= VPC_PREFIX[1]:
            out.append(
                Problem(
                    label,
                    None,
                    key,
                    f"expected a block from /{VPC_PREFIX[0]} to /{VPC_PREFIX[1]}, got /{net.prefixlen}",
                )
            )
        else:
            nets[key] = net
    if len(nets) == 2 and not nets["subnet_cidr"].subnet_of(nets["vpc_cidr"]):
        out.append(
            Problem(
                label,
                None,
                "subnet_cidr",
                f"expected a block inside vpc_cidr {nets['vpc_cidr']}, got {nets['subnet_cidr']}",
            )
        )
    return out
