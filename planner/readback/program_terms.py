"""A finding's fix in the terms of the Pulumi program it was read back from.

Rules speak in `planner:cluster` keys (`set count: 2`, `remove efa: false`); a cluster read
back from a program has no such keys, only resources and their properties. So a read-back
finding's fix is restated against the resource the value came from (its URN): the Python
class and name as declared (`aws.autoscaling.Group "trainers"`), with its file and line when
known, and each cluster key replaced by the property that holds it in that resource
(`desired_capacity`). The property names are pulumi_aws's Python ones, as a program writes
them (https://www.pulumi.com/registry/packages/aws/api-docs/).
"""

from __future__ import annotations

import re
from typing import Any

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
        "count": "the number of aws.ec2.Instance resources",
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
        "placement_group": "placement_group",
        "availability_zone": "vpc_zone_identifiers",
        "instance_type": "mixed_instances_policy.launch_template.overrides[].instance_type",
    },
    "aws.eks.NodeGroup": {
        "count": "scaling_config.desired_size",
        "instance_type": "instance_types",
        "purchase": "capacity_type",
        "availability_zone": "subnet_ids",
    },
    # pulumi-aws-native's class (https://www.pulumi.com/registry/packages/aws-native/api-docs/pcs/computenodegroup/);
    # a node group's count is its static instances, `minInstanceCount`
    "aws_native.pcs.ComputeNodeGroup": {
        "count": "scaling_configuration.min_instance_count",
        "instance_type": "instance_configs[].instance_type",
        "purchase": "purchase_option",
        "availability_zone": "subnet_ids",
        # the reservation is its launch template's (AWS PCS User Guide, Capacity Blocks with PCS)
        "capacity_reservation_id": (
            "capacity_reservation_specification.capacity_reservation_target.capacity_reservation_id of its launch "
            "template"
        ),
    },
    "aws.ec2.Subnet": {"availability_zone": "availability_zone"},
    "aws.ec2.PlacementGroup": {},  # `placement_group: none` is no placement group at all: see NO_PLACEMENT
    "aws.fsx.LustreFileSystem": {
        "storage_capacity_gib": "storage_capacity",
        "deployment_type": "deployment_type",
        "per_unit_storage_throughput": "per_unit_storage_throughput",
        "efa_enabled": "efa_enabled",
        "availability_zone": "subnet_ids",
        "s3_import_path": "import_path",
    },
}

# The read-back rules name a resource's properties as the engine sends them (camelCase inputs);
# a program writes pulumi_aws's Python names, so a fix restated for the program uses those.
PYTHON_NAMES: dict[str, str] = {
    "interfaceType": "interface_type",
    "networkCardIndex": "network_card_index",
    "deviceIndex": "device_index",
    "networkInterfaces": "network_interfaces",
    "availabilityZone": "availability_zone",
    "desiredCapacity": "desired_capacity",
    "maxSize": "max_size",
    "minSize": "min_size",
    "maxVcpus": "max_vcpus",
    "subnetIds": "subnet_ids",
    "associatePublicIpAddress": "associate_public_ip_address",
    "scalingConfiguration": "scaling_configuration",
    "minInstanceCount": "min_instance_count",
    "maxInstanceCount": "max_instance_count",
    "purchaseOption": "purchase_option",
    "customLaunchTemplate": "custom_launch_template",
}
_ENGINE_NAME = re.compile(r"\b(" + "|".join(PYTHON_NAMES) + r")\b")
_NODE_GROUP_PREFIX = re.compile(r"(?:^|(?<=, or ))in node group '[^']*', ")
_ULTRASERVERS = re.compile(r" \(or ultraservers: \d+\)")
NO_PLACEMENT = (
    "launch without this placement group (drop `placement.group_name` from the launch template, or "
    "`placement_group` from the Auto Scaling group)"
)


def in_python(text: str) -> str:
    """`text` with the engine's property names as a Python program writes them
    (`networkInterfaces[1].interfaceType` -> `network_interfaces[1].interface_type`); a name in
    backticks is quoted as it is (the policy pack's `availabilityZone` config) and stays."""
    parts = text.split("`")
    return "`".join(
        p if i % 2 else _ENGINE_NAME.sub(lambda m: PYTHON_NAMES[m.group(1)], p) for i, p in enumerate(parts)
    )


def python_class(type_token: str) -> str:
    """`aws:ec2/launchTemplate:LaunchTemplate` -> `aws.ec2.LaunchTemplate`, as a Python program names it
    (`aws-native:pcs:ComputeNodeGroup` -> `aws_native.pcs.ComputeNodeGroup`, pulumi_aws_native imported as
    `aws_native`)."""
    parts = type_token.split(":")
    if len(parts) != 3:
        return type_token
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


def leaf_key(path: tuple[Any, ...]) -> str | None:
    """The last key of a key path (`count` of `planner:cluster.node_groups[0].count`)."""
    keys = [p for p in path if isinstance(p, str)]
    return keys[-1] if keys else None


def restate(fix: str, path: tuple[Any, ...], urn: str, where: tuple[str, int | None] | None = None) -> str:
    """`fix` against the resource at `urn`: its cluster keys replaced by that resource's properties,
    and the resource named as declared (with `where`, its file and line)."""
    cls, _ = resource_of(urn)
    props = PROPERTIES.get(cls, {})
    text = _ULTRASERVERS.sub("", _NODE_GROUP_PREFIX.sub("", fix))  # a resource counts instances, not UltraServers
    text = in_python(text)
    if cls == "aws.ec2.PlacementGroup":
        text = text.replace("set placement_group: none", NO_PLACEMENT)
    if cls == "aws.fsx.LustreFileSystem":  # the file system is the resource: its keys without the `lustre.` prefix
        text = re.sub(r"(?<![\w.])lustre\.(?=\w+: )", "", text)
    for phrase, said in _phrases(cls, props).items():
        text = text.replace(phrase, said)
    keys = sorted(
        props, key=len, reverse=True
    )  # capacity_reservation_resource_group_arn before capacity_reservation_id
    if keys:
        text = re.sub(r"(?<![\w.])(" + "|".join(map(re.escape, keys)) + r")(?=: )", lambda m: props[m.group(1)], text)
    leaf = leaf_key(path)
    prop = props.get(leaf or "")
    what = f"`{prop}` of " if prop else ""
    return f"in {what}{declared_as(urn, where)}: {text}"


def _phrases(cls: str, props: dict[str, str]) -> dict[str, str]:
    """Stack-file settings whose value has no property of the same name in the program, said as
    the change to make there (`remove efa: false` is an EFA interface on every network card)."""
    out: dict[str, str] = {"add lustre: with ": "declare an aws.fsx.LustreFileSystem with "}
    if "efa" in props:
        out["remove efa: false"] = f'set `{props["efa"]}` to "efa" on every network card'
        out["set efa: false"] = f'set `{props["efa"]}` to "interface" (no EFA)'
    if "placement_group" in props:
        out["remove placement_group: none"] = (
            f"launch into a cluster placement group (an aws.ec2.PlacementGroup with "
            f'strategy "cluster", named in `{props["placement_group"]}`)'
        )
    if "public_ip" in props:
        out["set public_ip: false"] = f"set `{props['public_ip']}` to False"
    if cls == "aws.eks.NodeGroup":
        out["set purchase: capacity-block"] = 'set `capacity_type` to "CAPACITY_BLOCK"'
        out["set purchase: on-demand"] = 'set `capacity_type` to "ON_DEMAND"'
        out["set purchase: spot"] = 'set `capacity_type` to "SPOT"'
    elif cls == "aws_native.pcs.ComputeNodeGroup":  # a Capacity Block needs its launch template's market type too
        out["set purchase: capacity-block"] = (
            'set `purchase_option` to "CAPACITY_BLOCK" (and its launch template\'s market type to "capacity-block")'
        )
        out["set purchase: on-demand"] = 'set `purchase_option` to "ONDEMAND"'
        out["set purchase: spot"] = 'set `purchase_option` to "SPOT"'
    elif "purchase" in props:
        out["set purchase: capacity-block"] = f'set `{props["purchase"]}` to "capacity-block"'
        out["set purchase: spot"] = f'set `{props["purchase"]}` to "spot"'
        out["set purchase: on-demand"] = "remove `instance_market_options` (on demand)"
    return out
