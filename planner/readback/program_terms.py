"""A finding's fix in the terms of the Pulumi program it was read back from.

A rule's fix is data: edits of the model (`planner.core.model.findings.Fix`). A cluster read back
from a program has no stack-file keys, only resources and their properties, so each edit is said
against the resource its value came from (the stack's provenance map, `Stack.provenance`): the
Python class and name as declared (`aws.autoscaling.Group "trainers"`), with its file and line
when known, and the property that holds the value there (`desired_capacity`, `PROPERTIES`), as
`set desired_capacity of aws.autoscaling.Group "gpu" (app.py:8) to 8`. Where a value has no
property of the same shape (EFA is an interface type on every network card; a Capacity Block is
an EKS node group's `capacity_type`), `EDIT_WORDS` says the change; where no property carries it
at all, the change is said in words about the resource, never as a stack-file key. The property
names are pulumi_aws's Python ones, as a program writes them
(https://www.pulumi.com/registry/packages/aws/api-docs/).

The read-back's own fixes may also edit a resource rather than the model (`Edit.resource`: a size
written as a literal, a tag, a security group rule): `say_resource_edit` says those, the property
as the engine names it turned into the program's (`python_name`); one that sets a property holding
a node group's count or maximum is made the model's edit first (`held_in_model`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from planner.core.model.cluster import Cluster, Path, Stack
from planner.core.model.findings import REGION, Edit, Fix, property_path
from planner.core.model.provenance import Provenance

# resource class -> planner:cluster key -> the property of that resource that sets it
PROPERTIES: dict[str, dict[str, str]] = {
    "aws.ec2.LaunchTemplate": {
        "instance_type": "instance_type",
        "purchase": "instance_market_options.market_type",
        "efa": "network_interfaces[].interface_type",
        "public_ip": "network_interfaces[].associate_public_ip_address",
        "capacity_reservation_id": "capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id",
        "capacity_reservation_resource_group_arn": (
            "capacity_reservation_specification.capacity_reservation_target.capacity_reservation_resource_group_arn"
        ),
        "placement_group": "placement.group_name",
        "root_volume_gib": "block_device_mappings[].ebs.volume_size",
    },
    "aws.ec2.Instance": {
        "instance_type": "instance_type",
        "purchase": "instance_market_options.market_type",
        "efa": "network_interfaces[].interface_type",
        "public_ip": "associate_public_ip_address",
        "capacity_reservation_id": "capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id",
        "placement_group": "placement_group",
        "availability_zone": "availability_zone",
        "root_volume_gib": "root_block_device.volume_size",
    },
    "aws.autoscaling.Group": {
        "count": "desired_capacity",
        "zones": "vpc_zone_identifiers",
        "max_count": "max_size",
        "placement_group": "placement_group",
        "availability_zone": "vpc_zone_identifiers",
        "instance_type": "mixed_instances_policy.launch_template.overrides[].instance_type",
    },
    "aws.eks.NodeGroup": {
        "count": "scaling_config.desired_size",
        "max_count": "scaling_config.max_size",
        "instance_type": "instance_types",
        "purchase": "capacity_type",
        "availability_zone": "subnet_ids",
        "zones": "subnet_ids",
    },
    # pulumi-aws-native's class (https://www.pulumi.com/registry/packages/aws-native/api-docs/pcs/computenodegroup/);
    # a node group's count is its static instances, `minInstanceCount`
    "aws_native.pcs.ComputeNodeGroup": {
        "count": "scaling_configuration.min_instance_count",
        "max_count": "scaling_configuration.max_instance_count",
        "instance_type": "instance_configs[].instance_type",
        "purchase": "purchase_option",
        "availability_zone": "subnet_ids",
        "zones": "subnet_ids",
    },
    # pulumi_kubernetes' classes (imported as `kubernetes`): a file system the FSx for Lustre CSI driver provisions
    # (planner.readback.fsx_csi) from a StorageClass's parameters (strings) and a claim's size
    "kubernetes.storage.v1.StorageClass": {
        "deployment_type": "parameters.deploymentType",
        "per_unit_storage_throughput": "parameters.perUnitStorageThroughput",
        "efa_enabled": "parameters.efaEnabled",
        "availability_zone": "parameters.subnetId",
        "s3_import_path": "parameters.s3ImportPath",
        "storage_type": "parameters.storageType",
        "metadata_mode": "parameters.metadataConfigurationMode",
        "metadata_iops": "parameters.metadataIops",
    },
    "kubernetes.core.v1.PersistentVolumeClaim": {"storage_capacity_gib": "spec.resources.requests.storage"},
    "aws.ec2.Subnet": {"availability_zone": "availability_zone"},
    "aws.ec2.PlacementGroup": {},  # `placement_group: none` is no placement group at all: see EDIT_WORDS
    "aws.fsx.LustreFileSystem": {
        "storage_capacity_gib": "storage_capacity",
        "deployment_type": "deployment_type",
        "per_unit_storage_throughput": "per_unit_storage_throughput",
        "efa_enabled": "efa_enabled",
        "availability_zone": "subnet_ids",
        "s3_import_path": "import_path",
        "storage_type": "storage_type",
        "throughput_capacity_mbps": "throughput_capacity",
        "read_cache_sizing_mode": "data_read_cache_configuration.sizing_mode",
        "read_cache_size_gib": "data_read_cache_configuration.size",
        "metadata_mode": "metadata_configuration.mode",
        "metadata_iops": "metadata_configuration.iops",
    },
}


def python_name(engine_name: str) -> str:
    """A property path as the engine names it (`scalingConfig.desiredSize`) as a Python program writes it
    for pulumi_aws and pulumi_aws_native (`scaling_config.desired_size`): each camelCase part in snake case."""
    return ".".join("".join(f"_{c.lower()}" if c.isupper() else c for c in part) for part in engine_name.split("."))


# Kubernetes API groups -> pulumi_kubernetes' module (https://www.pulumi.com/registry/packages/kubernetes/api-docs/)
_KUBERNETES_MODULES = {"core": "core", "storage.k8s.io": "storage"}


def python_class(type_token: str) -> str:
    """`aws:ec2/launchTemplate:LaunchTemplate` -> `aws.ec2.LaunchTemplate`, as a Python program names it
    (`aws-native:pcs:ComputeNodeGroup` -> `aws_native.pcs.ComputeNodeGroup`, pulumi_aws_native imported as
    `aws_native`)."""
    parts = type_token.split(":")
    if len(parts) != 3:
        return type_token
    if parts[0] == "kubernetes":
        group, _, version = parts[1].partition("/")
        if (
            group in _KUBERNETES_MODULES
        ):  # a built-in kind: pulumi_kubernetes' class (`kubernetes.core.v1.PersistentVolume`)
            return f"kubernetes.{_KUBERNETES_MODULES[group]}.{version}.{parts[2]}"
        return f"{parts[1]} {parts[2]}"  # a custom resource: its apiVersion and kind (`karpenter.sh/v1 NodePool`)
    return f"{parts[0].replace('-', '_')}.{parts[1].split('/')[0]}.{parts[2]}"


def resource_of(urn: str) -> tuple[str, str]:
    """(Python class, name) of the resource a URN names (`urn:pulumi:stack::project::type::name`)."""
    parts = urn.split("::")
    if len(parts) < 4:
        return urn, ""
    return python_class(parts[2].split("$")[-1]), "::".join(parts[3:])


def declared_as(urn: str, where: tuple[str, int | None] | None = None) -> str:
    """`aws.autoscaling.Group "trainers" (app.py:8)`: the resource as the program declares it."""
    cls, name = resource_of(urn)
    at = ""
    if where is not None and where[0]:
        at = f" ({where[0]}:{where[1]})" if where[1] else f" ({where[0]})"
    return f'{cls} "{name}"{at}'


def leaf_key(path: Path) -> str | None:
    """The last key of a key path (`count` of `planner:cluster.node_groups[0].count`)."""
    keys = [p for p in path if isinstance(p, str)]
    return keys[-1] if keys else None


# model fields said by their stack-file key in PROPERTIES
_KEYS: dict[str, str] = {"capacity_reservation_ids": "capacity_reservation_id"}

_MARKET = "instance_market_options.market_type"
_CR = "capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id"

# An edit whose value has no property of the same shape in the resource, said as the change to make
# there: (resource class, or "" for any; model field; op; value, None for any) -> words, with
# `{resource}` the resource as declared, `{prop}` the property that holds the field there and
# `{value}` the edit's value as Python writes it. Data, read by `say_edit`; an edit not listed is
# `set PROPERTY of RESOURCE to VALUE`, `add VALUE to PROPERTY of RESOURCE` or `remove PROPERTY from RESOURCE`.
EDIT_WORDS: dict[tuple[str, str, str, Any], str] = {
    ("", "efa", "remove", None): 'set `{prop}` of {resource} to "efa" on every network card',
    ("", "efa", "set", True): 'set `{prop}` of {resource} to "efa" on every network card',
    ("", "efa", "set", False): 'set `{prop}` of {resource} to "interface" (no EFA)',
    ("", "public_ip", "set", False): "set `{prop}` of {resource} to False",
    ("aws.ec2.PlacementGroup", "placement_group", "set", "none"): (
        "launch without {resource} (drop `placement.group_name` from the launch template, or "
        "`placement_group` from the Auto Scaling group)"
    ),
    ("", "placement_group", "set", "none"): "launch {resource} without a placement group (drop `{prop}`)",
    ("", "placement_group", "remove", None): (
        'launch {resource} into a cluster placement group (an aws.ec2.PlacementGroup with strategy "cluster", '
        "named in `{prop}`)"
    ),
    ("aws.eks.NodeGroup", "purchase", "set", "capacity-block"): 'set `capacity_type` of {resource} to "CAPACITY_BLOCK"',
    ("aws.eks.NodeGroup", "purchase", "set", "on-demand"): 'set `capacity_type` of {resource} to "ON_DEMAND"',
    ("aws.eks.NodeGroup", "purchase", "set", "spot"): 'set `capacity_type` of {resource} to "SPOT"',
    # a Capacity Block needs its launch template's market type too (AWS PCS User Guide, Capacity Blocks with PCS)
    ("aws_native.pcs.ComputeNodeGroup", "purchase", "set", "capacity-block"): (
        'set `purchase_option` of {resource} to "CAPACITY_BLOCK" (and its launch template\'s '
        f'`{_MARKET}` to "capacity-block")'
    ),
    ("aws_native.pcs.ComputeNodeGroup", "purchase", "set", "on-demand"): (
        'set `purchase_option` of {resource} to "ONDEMAND"'
    ),
    ("aws_native.pcs.ComputeNodeGroup", "purchase", "set", "spot"): 'set `purchase_option` of {resource} to "SPOT"',
    ("aws_native.pcs.ComputeNodeGroup", "capacity_reservation_ids", "set", None): (
        f"set `{_CR}` of the launch template of {{resource}} to {{value}}"
    ),
    ("", "purchase", "set", "on-demand"): "remove `instance_market_options` from {resource} (on demand)",
    # an Auto Scaling or EKS node group launches what its launch template says: the change is the template's
    ("aws.autoscaling.Group", "capacity_reservation_ids", "set", None): (
        f"set `{_CR}` of the launch template of {{resource}} to {{value}}"
    ),
    ("aws.eks.NodeGroup", "capacity_reservation_ids", "set", None): (
        f"set `{_CR}` of the launch template of {{resource}} to {{value}}"
    ),
    ("aws.autoscaling.Group", "purchase", "set", "on-demand"): (
        "remove `instance_market_options` from the launch template of {resource} (on demand)"
    ),
    (
        "aws.autoscaling.Group",
        "purchase",
        "set",
        None,
    ): f"set `{_MARKET}` of the launch template of {{resource}} to {{value}}",
    ("aws.autoscaling.Group", "efa", "remove", None): (
        'set `network_interfaces[].interface_type` of the launch template of {resource} to "efa" on every network card'
    ),
    ("aws.autoscaling.Group", "efa", "set", False): (
        'set `network_interfaces[].interface_type` of the launch template of {resource} to "interface" (no EFA)'
    ),
    ("aws.autoscaling.Group", "availability_zone", "set", None): (
        "launch {resource} into a subnet of {value} (`vpc_zone_identifiers`)"
    ),
    (
        "aws.eks.NodeGroup",
        "availability_zone",
        "set",
        None,
    ): "launch {resource} into a subnet of {value} (`subnet_ids`)",
    ("aws_native.pcs.ComputeNodeGroup", "availability_zone", "set", None): (
        "launch {resource} into a subnet of {value} (`subnet_ids`)"
    ),
    ("aws.fsx.LustreFileSystem", "availability_zone", "set", None): (
        "create {resource} in a subnet of {value} (`subnet_ids`)"
    ),
    # the components' tag (planner.components.accelerated_cluster), which the read-back takes the type from
    ("aws.autoscaling.Group", "ultraserver_type", "set", None): (
        "tag {resource} with `planner:ultraserver-type` set to {value}"
    ),
    # a group's subnets in several zones: keep those of one (the edit's value: that zone, alone)
    ("aws.autoscaling.Group", "zones", "set", None): "launch {resource} into subnets of {value} only (`{prop}`)",
    ("aws.eks.NodeGroup", "zones", "set", None): "launch {resource} into subnets of {value} only (`{prop}`)",
    ("aws_native.pcs.ComputeNodeGroup", "zones", "set", None): (
        "launch {resource} into subnets of {value} only (`{prop}`)"
    ),
    ("aws.ec2.Instance", "count", "set", None): "declare {value} instances like {resource} (one aws.ec2.Instance each)",
    # a StorageClass's parameters are strings, a claim's size a quantity (planner.readback.fsx_csi)
    ("kubernetes.storage.v1.StorageClass", "per_unit_storage_throughput", "set", None): (
        'set `{prop}` of {resource} to "{value}"'
    ),
    ("kubernetes.storage.v1.StorageClass", "metadata_iops", "set", None): 'set `{prop}` of {resource} to "{value}"',
    ("kubernetes.storage.v1.StorageClass", "efa_enabled", "set", True): 'set `{prop}` of {resource} to "true"',
    ("kubernetes.storage.v1.StorageClass", "efa_enabled", "set", False): (
        'remove `{prop}` from {resource} (or set it to "false")'
    ),
    ("kubernetes.storage.v1.StorageClass", "availability_zone", "set", None): (
        "create the file system of {resource} in a subnet of {value} (`{prop}`)"
    ),
    ("kubernetes.core.v1.PersistentVolumeClaim", "storage_capacity_gib", "set", None): (
        'set `{prop}` of {resource} to "{value}Gi"'
    ),
}

# What a model field is, in words, for a change no property of the resource carries
FIELD_WORDS: dict[str, str] = {
    "count": "number of instances",
    "ultraservers": "number of UltraServers",
    "instance_type": "instance type",
    "purchase": "purchase option",
    "efa": "EFA interfaces",
    "public_ip": "public IP addresses",
    "availability_zone": "Availability Zone",
    "placement_group": "placement group",
    "capacity_reservation_ids": "capacity reservation",
    "capacity_reservation_resource_group_arn": "capacity reservation resource group",
    "root_volume_gib": "root volume size in GiB",
    "storage_capacity_gib": "storage capacity in GiB",
    "deployment_type": "deployment type",
    "per_unit_storage_throughput": "throughput per TiB",
    "efa_enabled": "EFA support",
    "s3_import_path": "S3 import path",
    "storage_type": "storage class",
    "throughput_capacity_mbps": "throughput capacity in MBps",
    "read_cache_sizing_mode": "SSD read cache sizing mode",
    "read_cache_size_gib": "SSD read cache size in GiB",
    "metadata_mode": "metadata configuration mode",
    "metadata_iops": "Metadata IOPS",
    "lustre": "FSx for Lustre file system",
    "zones": "Availability Zones",
    "network": "existing VPC and subnet",
}


def python_value(value: Any) -> str:
    """An edit's value as a Python program writes it (`8`, `"p5en.48xlarge"`, `False`, `["cr-1"]`)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return python_value(value[0]) if len(value) == 1 else "[" + ", ".join(python_value(v) for v in value) + "]"
    return "None" if value is None else str(value)


def provenance_at(provenance: Mapping[Path, Provenance], path: Path) -> Provenance | None:
    """The provenance of the value at key path `path`: its own, else its nearest located ancestor's
    resource with the property that holds the field there (`PROPERTIES`), "" when none does."""
    if path in provenance:
        return provenance[path]
    leaf = leaf_key(path) or ""
    up = path[:-1]
    while up:
        found = provenance.get(up)
        if found is not None:
            cls, _ = resource_of(found.resource)
            return Provenance(
                found.resource, PROPERTIES.get(cls, {}).get(_KEYS.get(leaf, leaf), ""), found.file, found.line
            )
        up = up[:-1]
    return None


def _field(edit: Edit) -> str:
    return leaf_key(edit.path) or ""


def say_edit(edit: Edit, cluster: Cluster, found: Provenance | None) -> str:
    """One edit as the change to make in the program, against the resource it was read from (`found`)."""
    field = _field(edit)
    value = python_value(edit.value)
    if found is None:  # nothing of the program holds it yet (a file system it does not declare)
        what = FIELD_WORDS.get(field, field.replace("_", " "))
        group = _group_name(cluster, edit.path)
        of = f" of node group '{group}'" if group else ""
        if edit.op == "set":
            said = f"make the {what}{of} {value} in the program"
        elif edit.op == "add":
            said = f"add {value} to the {what}{of} in the program"
        else:
            said = f"drop the {what}{of} from the program"
        return f"{said} ({edit.note})" if edit.note else said
    # a resource's own check (the pack's resource policies) names no URN: the violation is the resource's
    cls, _ = resource_of(found.resource) if found.resource else ("", "")
    resource = (
        declared_as(found.resource, (found.file, found.line) if found.file else None)
        if found.resource
        else "this resource"
    )
    shown = None if edit.op == "remove" and edit.value is None else edit.value
    words = None
    prop = found.property
    for key in ((cls, field, edit.op, shown), ("", field, edit.op, shown), (cls, field, edit.op, None)):
        words = EDIT_WORDS.get(key)
        if words is not None and (prop or "{prop}" not in words):
            break
        words = None
    if words is not None:
        said = words.format(resource=resource, prop=prop, value=value)
    elif not prop:  # no property of this resource holds it: the change in words about the resource
        what = FIELD_WORDS.get(field, field.replace("_", " "))
        if edit.op == "set":
            said = f"change {resource} so that its {what} is {value}"
        elif edit.op == "add":
            said = f"change {resource} so that its {what} includes {value}"
        else:
            said = f"change {resource} so that it sets no {what}"
    elif edit.op == "set":
        said = f"set `{prop}` of {resource} to {value}"
    elif edit.op == "add":
        said = f"add {value} to `{prop}` of {resource}"
    elif edit.value is not None:
        said = f"remove {value} from `{prop}` of {resource}"
    else:
        said = f"remove `{prop}` from {resource}"
    return f"{said} ({edit.note})" if edit.note else said


def _group_name(cluster: Cluster, path: Path) -> str | None:
    if (
        len(path) >= 3
        and path[0] == "node_groups"
        and isinstance(path[1], int)
        and 0 <= path[1] < len(cluster.node_groups)
    ):
        return cluster.node_groups[path[1]].name
    return None


def property_of(edit: Edit) -> str:
    """The property an edit of a resource changes, as the program writes it: pulumi_aws's and
    pulumi_aws_native's Python names; a Kubernetes custom resource's keys as its manifest has them."""
    prop = property_path(edit.path)
    cls, _ = resource_of(edit.resource)
    return python_name(prop) if cls.startswith("aws") else prop


def say_resource_edit(edit: Edit, where: tuple[str, int | None] | None) -> str:
    """An edit of one of the program's resources (`Edit.resource`): `set `PROPERTY` of RESOURCE to VALUE`,
    to what its note says when it has no value."""
    resource = declared_as(edit.resource, where)
    prop = property_of(edit)
    subject = f"`{prop}` of {resource}" if prop else resource
    value = python_value(edit.value) if edit.value is not None else edit.note
    note = f" ({edit.note})" if edit.value is not None and edit.note else ""
    if edit.op == "set":
        return f"set {subject} to {value}{note}" if value else f"set {subject}{note}"
    if edit.op == "add":
        return f"add {value} to {subject}{note}"
    if edit.value is not None:
        return f"remove {value} from {subject}{note}"
    return f"remove `{prop}` from {resource}" + (f" ({edit.note})" if edit.note else "")


# node group fields a resource's property holds with the same value (an Auto Scaling group's `desired_capacity`
# is its count): a read-back fix that sets that property is an edit of the model
HELD = ("count", "max_count")


def held_in_model(fix: Fix, groups: Mapping[str, int]) -> Fix:
    """`fix` with each edit of a resource's property that holds a node group's field (`HELD`; `groups`: the
    node group index of each resource a group was read from) made the edit of the model at that field, said
    from provenance as a rule's fix is; every other edit as it is."""

    def held(edit: Edit) -> Edit:
        if not edit.resource or edit.value is None or edit.resource not in groups:
            return edit
        cls, _ = resource_of(edit.resource)
        prop = property_of(edit)
        for key in HELD:
            if PROPERTIES.get(cls, {}).get(key) == prop:
                return Edit(("node_groups", groups[edit.resource], key), edit.op, edit.value, edit.note)
        return edit

    return replace(fix, edits=tuple(map(held, fix.edits)), alternatives=tuple(map(held, fix.alternatives)))


def declared_at(provenance: Mapping[Path, Provenance], urn: str) -> tuple[str, int | None] | None:
    """The file and line that declared resource `urn`, as the provenance map knows them."""
    for found in provenance.values():
        if found.resource == urn and found.file:
            return found.file, found.line
    return None


# the planning keys a program's stack config holds under `planner:cluster` (its resources hold the rest)
CONFIG_KEYS = frozenset({"schedule", "budget", "workload", "suppress"})
IN_CONFIG = "in the stack config's planner:cluster, "
IN_STACK_CONFIG = "in the stack config, "  # the region (`aws:region`), which the program's aws provider reads


def in_program_terms(stack: Stack, fix: Fix, config: Callable[[Edit], tuple[str, str]] | None = None) -> str:
    """`fix` as the change to make in the program `stack` was read back from: each edit against the
    resource its value came from (`Stack.provenance`), a planning key's in the stack config
    (`config(edit)` -> (subject, change), when an adapter has config of its own: the pack's)."""
    from planner.core.input.fix_words import change, joined

    def say(edit: Edit) -> tuple[str, str]:
        if edit.resource:
            return "", say_resource_edit(edit, declared_at(stack.provenance, edit.resource))
        if edit.path == REGION:
            return IN_STACK_CONFIG, change(stack.cluster, edit)
        if edit.path and edit.path[0] in CONFIG_KEYS:
            return config(edit) if config is not None else (IN_CONFIG, change(stack.cluster, edit))
        found = provenance_at(stack.provenance, stack.cluster.path + tuple(edit.path))
        return "", say_edit(edit, stack.cluster, found)

    return joined(fix, say)
