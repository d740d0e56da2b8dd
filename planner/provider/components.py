"""The components other Pulumi languages construct through planner's component provider.

Each class here is what Pulumi's analyzer reads (its `args` annotation for the inputs, its
class annotations for the outputs, docstrings for the descriptions) and what the provider
instantiates on `Construct`. Each one turns its TypedDict arguments into the records of
`planner.components` and builds the Python component of the same name as its child, so a
cluster built from TypeScript or YAML is planned (rules, summary, cost) and created by
exactly the code a Python program uses: an invalid cluster fails the `Construct` with the
planner's one-line messages before any AWS resource is registered.

No `from __future__ import annotations` here: the analyzer needs the types, not strings.
"""

from typing import Any

import pulumi

from planner import components as py
from planner.core.reading.problems import Problem
from planner.provider.args import (
    ClusterArgs,
    EfaNetworkArgs,
    Finding,
    Lustre,
    LustreStorageArgs,
    NodeGroup,
    Suppression,
    Workload,
)


def _lustre(value: Lustre) -> py.LustreArgs:
    # any string as the schema's type says (the analyzer reads Enum, not Literal); the parser checks
    # deployment_type as it checks a stack file's, and Construct fails with its message
    fields: dict[str, Any] = dict(value)
    return py.LustreArgs(**fields)


def cluster_args(args: ClusterArgs) -> py.ClusterArgs:
    """The Python components' ClusterArgs for provider inputs (same keys, nested records built)."""
    values: dict[str, Any] = dict(args)
    values["node_groups"] = [py.NodeGroupArgs(**_ids(g)) for g in _each(args["node_groups"], NodeGroup)]
    if "lustre" in values:
        values["lustre"] = _lustre(values["lustre"])
    if "workload" in values:
        values["workload"] = py.WorkloadArgs(**_checked(values["workload"], Workload))
    if "suppress" in values:
        values["suppress"] = [py.SuppressArgs(**s) for s in _each(values["suppress"], Suppression)]
    return py.ClusterArgs(**values)


def _ids(group: Any) -> dict[str, Any]:
    """`capacityReservationIds` (a typed list in the package schema) is the stack schema's
    `capacity_reservation_id` given as a list; not both."""
    out = dict(group)
    if "capacity_reservation_ids" in out:
        if "capacity_reservation_id" in out:
            raise py.ClusterInputError(
                [
                    Problem(
                        "NodeGroup",
                        None,
                        "capacity_reservation_ids",
                        "give either capacity_reservation_id or capacity_reservation_ids, not both",
                    )
                ]
            )
        out["capacity_reservation_id"] = list(out.pop("capacity_reservation_ids"))
    return out


def _each(items: Any, record: type) -> list[Any]:
    return [_checked(item, record) for item in items]


def _checked(item: Any, record: type) -> Any:
    """A mapping with only the keys `record` declares (the provider validated the required ones)."""
    unknown = set(item) - set(record.__annotations__)
    if unknown:  # the engine checks inputs against the schema; this is for direct calls
        raise py.ClusterInputError([Problem(record.__name__, None, key, "unknown key") for key in sorted(unknown)])
    return item


def _build_cluster(outer: pulumi.ComponentResource, inner: py.AcceleratedCluster) -> None:
    """Expose the Python component's results as the provider component's outputs.

    The three cluster classes below repeat their output annotations on purpose: Pulumi's
    analyzer reads each property's description from the class's own source only.
    """
    out: dict[str, Any] = {
        "summary": inner.summary,
        "cost": inner.cost,
        "findings": inner.findings,
        "instances": inner.summary.apply(lambda s: s["instances"]),
        "accelerators": inner.summary.apply(lambda s: s["accelerators"]),
        "total_usd": inner.cost.apply(lambda c: None if c is None else c.get("total_usd")),
        "vpc_id": inner.network.vpc_id,
        "subnet_id": inner.network.subnet_id,
        "security_group_id": inner.network.security_group_id,
        "placement_group_name": pulumi.Output.from_input(inner.network.placement_group_name),
        "file_system_id": pulumi.Output.from_input(None if inner.storage is None else inner.storage.file_system_id),
        "launch_template_ids": pulumi.Output.from_input(inner.launch_template_ids),
        "auto_scaling_group_names": pulumi.Output.from_input(inner.auto_scaling_group_names),
    }
    for key, value in out.items():
        setattr(outer, key, value)
    outer.register_outputs(out)


class Trn2Cluster(pulumi.ComponentResource):
    """A Trainium2 training cluster: trn2.48xlarge node groups (16 chips and 16 network cards each) with EFA, planned and priced by planner before anything is created."""

    summary: pulumi.Output[dict[str, Any]]
    """What the cluster adds up to (instances, UltraServers, accelerators, memory, EFA bandwidth, peak PFLOPS), as `planner plan --format json` prints it."""
    cost: pulumi.Output[Any]
    """The cost estimate with its line items, each price with its source and date, as `planner plan --format json` prints it."""
    findings: pulumi.Output[list[Finding]]
    """Every finding of planner's rules on the cluster, as `planner plan --format json` prints them (`stacks[].findings`); errors stop the component before anything is created."""
    instances: pulumi.Output[int]
    """Instances in all node groups."""
    accelerators: pulumi.Output[int]
    """Trainium chips or GPUs in all node groups."""
    total_usd: pulumi.Output[float | None]
    """Estimated total cost in USD for the billed hours; absent when a price or the hours are unknown."""
    vpc_id: pulumi.Output[str]
    """The VPC the cluster runs in (created, or the one given)."""
    subnet_id: pulumi.Output[str]
    """The subnet of every node and of the file system."""
    security_group_id: pulumi.Output[str]
    """The EFA security group (all traffic to and from itself)."""
    placement_group_name: pulumi.Output[str | None]
    """The cluster placement group, when the plan uses one."""
    file_system_id: pulumi.Output[str | None]
    """The FSx for Lustre file system, when one is declared."""
    launch_template_ids: pulumi.Output[dict[str, str]]
    """Launch template id per node group."""
    auto_scaling_group_names: pulumi.Output[dict[str, str]]
    """Auto Scaling group name per node group."""

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("planner:index:Trn2Cluster", name, None, opts)
        _build_cluster(self, py.Trn2Cluster(name, cluster_args(args), pulumi.ResourceOptions(parent=self)))


class UltraServerCluster(pulumi.ComponentResource):
    """UltraServers of any type in `planner catalog` (declare `ultraservers`, and `ultraserverType` for a member of several such as p6e-gb200.36xlarge); the instance type defaults to trn2u.48xlarge (Trn2 UltraServers). On Capacity Blocks, planned and priced by planner before anything is created."""

    summary: pulumi.Output[dict[str, Any]]
    """What the cluster adds up to (instances, UltraServers, accelerators, memory, EFA bandwidth, peak PFLOPS), as `planner plan --format json` prints it."""
    cost: pulumi.Output[Any]
    """The cost estimate with its line items, each price with its source and date, as `planner plan --format json` prints it."""
    findings: pulumi.Output[list[Finding]]
    """Every finding of planner's rules on the cluster, as `planner plan --format json` prints them (`stacks[].findings`); errors stop the component before anything is created."""
    instances: pulumi.Output[int]
    """Instances in all node groups."""
    accelerators: pulumi.Output[int]
    """Trainium chips or GPUs in all node groups."""
    total_usd: pulumi.Output[float | None]
    """Estimated total cost in USD for the billed hours; absent when a price or the hours are unknown."""
    vpc_id: pulumi.Output[str]
    """The VPC the cluster runs in (created, or the one given)."""
    subnet_id: pulumi.Output[str]
    """The subnet of every node and of the file system."""
    security_group_id: pulumi.Output[str]
    """The EFA security group (all traffic to and from itself)."""
    placement_group_name: pulumi.Output[str | None]
    """The cluster placement group, when the plan uses one."""
    file_system_id: pulumi.Output[str | None]
    """The FSx for Lustre file system, when one is declared."""
    launch_template_ids: pulumi.Output[dict[str, str]]
    """Launch template id per node group."""
    auto_scaling_group_names: pulumi.Output[dict[str, str]]
    """Auto Scaling group name per node group."""

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("planner:index:UltraServerCluster", name, None, opts)
        _build_cluster(self, py.UltraServerCluster(name, cluster_args(args), pulumi.ResourceOptions(parent=self)))


class P5enCluster(pulumi.ComponentResource):
    """An NVIDIA H200 training cluster: p5en.48xlarge node groups (8 GPUs and 16 network cards each) with EFA, planned and priced by planner before anything is created."""

    summary: pulumi.Output[dict[str, Any]]
    """What the cluster adds up to (instances, UltraServers, accelerators, memory, EFA bandwidth, peak PFLOPS), as `planner plan --format json` prints it."""
    cost: pulumi.Output[Any]
    """The cost estimate with its line items, each price with its source and date, as `planner plan --format json` prints it."""
    findings: pulumi.Output[list[Finding]]
    """Every finding of planner's rules on the cluster, as `planner plan --format json` prints them (`stacks[].findings`); errors stop the component before anything is created."""
    instances: pulumi.Output[int]
    """Instances in all node groups."""
    accelerators: pulumi.Output[int]
    """Trainium chips or GPUs in all node groups."""
    total_usd: pulumi.Output[float | None]
    """Estimated total cost in USD for the billed hours; absent when a price or the hours are unknown."""
    vpc_id: pulumi.Output[str]
    """The VPC the cluster runs in (created, or the one given)."""
    subnet_id: pulumi.Output[str]
    """The subnet of every node and of the file system."""
    security_group_id: pulumi.Output[str]
    """The EFA security group (all traffic to and from itself)."""
    placement_group_name: pulumi.Output[str | None]
    """The cluster placement group, when the plan uses one."""
    file_system_id: pulumi.Output[str | None]
    """The FSx for Lustre file system, when one is declared."""
    launch_template_ids: pulumi.Output[dict[str, str]]
    """Launch template id per node group."""
    auto_scaling_group_names: pulumi.Output[dict[str, str]]
    """Auto Scaling group name per node group."""

    def __init__(self, name: str, args: ClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("planner:index:P5enCluster", name, None, opts)
        _build_cluster(self, py.P5enCluster(name, cluster_args(args), pulumi.ResourceOptions(parent=self)))


class EfaNetwork(pulumi.ComponentResource):
    """The network of an EFA cluster: a VPC and subnet (or existing ones), the EFA security group (all traffic to and from itself), a Lustre security group and a cluster placement group."""

    vpc_id: pulumi.Output[str]
    """The VPC (created, or the one given)."""
    subnet_id: pulumi.Output[str]
    """The subnet (created, or the one given)."""
    security_group_id: pulumi.Output[str]
    """The EFA security group."""
    lustre_security_group_id: pulumi.Output[str | None]
    """The FSx for Lustre security group (TCP 988 and 1018-1023), when `lustre` is true."""
    placement_group_name: pulumi.Output[str | None]
    """The cluster placement group, when `placement_group` is true."""

    def __init__(self, name: str, args: EfaNetworkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("planner:index:EfaNetwork", name, None, opts)
        inner = py.EfaNetwork(
            name, py.EfaNetworkArgs(**_checked(args, EfaNetworkArgs)), pulumi.ResourceOptions(parent=self)
        )
        self.vpc_id, self.subnet_id, self.security_group_id = inner.vpc_id, inner.subnet_id, inner.security_group_id
        self.lustre_security_group_id = pulumi.Output.from_input(inner.lustre_security_group_id)
        self.placement_group_name = pulumi.Output.from_input(inner.placement_group_name)
        self.register_outputs(
            {
                "vpc_id": self.vpc_id,
                "subnet_id": self.subnet_id,
                "security_group_id": self.security_group_id,
                "lustre_security_group_id": self.lustre_security_group_id,
                "placement_group_name": self.placement_group_name,
            }
        )


class LustreStorage(pulumi.ComponentResource):
    """An FSx for Lustre file system (with its S3 data repository), checked against planner's FSx rules before it is created."""

    file_system_id: pulumi.Output[str]
    """The file system id."""
    dns_name: pulumi.Output[str]
    """The file system's DNS name (for mounting)."""
    mount_name: pulumi.Output[str]
    """The mount name (for mounting)."""

    def __init__(self, name: str, args: LustreStorageArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("planner:index:LustreStorage", name, None, opts)
        values: dict[str, Any] = dict(_checked(args, LustreStorageArgs))
        values["lustre"] = _lustre(_checked(values["lustre"], Lustre))
        inner = py.LustreStorage(name, py.LustreStorageArgs(**values), pulumi.ResourceOptions(parent=self))
        self.file_system_id, self.dns_name, self.mount_name = inner.file_system_id, inner.dns_name, inner.mount_name
        self.register_outputs(
            {"file_system_id": self.file_system_id, "dns_name": self.dns_name, "mount_name": self.mount_name}
        )


COMPONENTS: list[type[pulumi.ComponentResource]] = [
    Trn2Cluster,
    UltraServerCluster,
    P5enCluster,
    EfaNetwork,
    LustreStorage,
]
