"""Typed arguments of the planner components, mirroring the stack schema key for key.

The topology fields are the `planner:cluster` keys of the stack schema (docs/stack-schema.md), so a
component's arguments turn into the same mapping a stack file holds and go through the
same parser (`planner.parse.parse_cluster`): a typo is rejected with the same message
whether it was written in YAML or in Python. Deployment-only fields (image, instance
profile, root volume) are not part of the topology and are never planned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

import pulumi

from planner.model import Cluster, Lustre, NodeGroup

T = TypeVar("T")


def _plain(value: Any) -> bool:
    """Known at plan time: a plain value, not a Pulumi Output of another resource."""
    return not isinstance(value, pulumi.Output)


def _declared_only(cls: type[T], model: Any, always: tuple[str, ...]) -> T:
    """Args from a parsed model record: `always` fields, plus the others the user declared
    (defaults the parser filled in stay undeclared, so rules see the same intent)."""
    declared = getattr(model, "declared", frozenset())
    return cls(**{f.name: getattr(model, f.name) for f in fields(cls)  # type: ignore[arg-type]
                  if f.name in always or f.name in declared})


def _mapping(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The schema mapping of an args dataclass: declared (non-None) keys only."""
    return {f.name: getattr(obj, f.name) for f in fields(obj) if f.name not in skip and getattr(obj, f.name) is not None}


@dataclass(frozen=True)
class NodeGroupArgs:
    """One node group; `instance_type` may be left out on the single-type cluster components."""

    name: str
    instance_type: str | None = None
    count: int | None = None  # instances
    ultraservers: int | None = None  # whole UltraServers (trn2u.48xlarge only)
    purchase: str | None = None  # on-demand | capacity-block | spot
    efa: bool | None = None
    availability_zone: str | None = None
    public_ip: bool | None = None
    capacity_reservation_id: str | None = None

    @classmethod
    def from_model(cls, g: NodeGroup) -> NodeGroupArgs:
        """Back from the parsed model, keeping only the keys the user declared (rules look at intent)."""
        return _declared_only(cls, g, always=("name", "instance_type", "capacity_reservation_id"))


@dataclass(frozen=True)
class LustreArgs:
    deployment_type: str  # SCRATCH_1 | SCRATCH_2 | PERSISTENT_1 | PERSISTENT_2
    storage_capacity_gib: int
    per_unit_storage_throughput: int | None = None  # MB/s per TiB, PERSISTENT_1/2
    availability_zone: str | None = None
    efa_enabled: bool | None = None
    s3_import_path: str | None = None

    def to_config(self) -> dict[str, Any]:
        return _mapping(self)

    @classmethod
    def from_model(cls, lu: Lustre) -> LustreArgs:
        return _declared_only(cls, lu, always=("deployment_type", "storage_capacity_gib",
                                               "per_unit_storage_throughput", "s3_import_path"))


@dataclass(frozen=True)
class WorkloadArgs:
    parameters: float
    tokens: float
    mfu: float
    precision: str | None = None  # bf16 | fp8


@dataclass(frozen=True)
class SuppressArgs:
    rule: str
    reason: str


@dataclass(frozen=True)
class ClusterArgs:
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
    # --- deployment only ---------------------------------------------------------------
    region: str | None = None  # default: the stack's `aws:region`
    image_id: pulumi.Input[str] | None = None  # default: the AWS Deep Learning AMI for the accelerator
    instance_profile: pulumi.Input[str] | None = None  # IAM instance profile name for the nodes
    security_group_ids: Sequence[pulumi.Input[str]] = ()  # extra groups on each primary interface
    key_name: pulumi.Input[str] | None = None
    user_data: pulumi.Input[str] | None = None  # base64-encoded, as EC2 expects
    root_volume_gib: int = 500
    tags: Mapping[str, str] = field(default_factory=dict)

    def to_config(self) -> dict[str, Any]:
        """The `planner:cluster` mapping these args declare (what `parse_cluster` reads)."""
        out: dict[str, Any] = {
            "availability_zone": self.availability_zone,
            "node_groups": [_mapping(g) for g in self.node_groups],
        }
        if self.placement_group is not None:
            out["placement_group"] = self.placement_group
        if self.lustre is not None:
            out["lustre"] = self.lustre.to_config()
        if self.schedule_hours is not None:
            out["schedule"] = {"hours": self.schedule_hours}
        if self.workload is not None:
            out["workload"] = _mapping(self.workload)
        budget = {k: v for k, v in (("total_usd", self.budget_total_usd), ("monthly_usd", self.budget_monthly_usd)) if v is not None}
        if budget:
            out["budget"] = budget
        if self.suppress:
            out["suppress"] = [{"rule": s.rule, "reason": s.reason} for s in self.suppress]
        network = {k: v for k, v in (("vpc_id", self.vpc_id), ("subnet_id", self.subnet_id)) if v is not None and _plain(v)}
        if network:
            out["network"] = network
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
            workload=None if c.workload is None else _declared_only(WorkloadArgs, c.workload,
                                                                    always=("parameters", "tokens", "mfu")),
            budget_total_usd=None if c.budget is None else c.budget.total_usd,
            budget_monthly_usd=None if c.budget is None else c.budget.monthly_usd,
            suppress=[SuppressArgs(s.rule, s.reason) for s in c.suppress],
            vpc_id=None if c.network is None else c.network.vpc_id,
            subnet_id=None if c.network is None else c.network.subnet_id,
            **deployment,
        )
