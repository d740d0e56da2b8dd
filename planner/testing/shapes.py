"""Pulumi inputs (camelCase, booleans as strings in places) to AWS API request shapes.

Pulumi hands mocks the provider inputs, not API calls: `networkInterfaces[].securityGroups`
is EC2's `NetworkInterfaces[].Groups`, `associatePublicIpAddress: "false"` is a boolean,
tags are a map rather than a Key/Value list. These functions do that translation once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# Keys whose Pulumi name differs from the EC2 API member after PascalCase.
RENAMES = {"securityGroups": "Groups", "vpcSecurityGroupIds": "SecurityGroupIds"}
# Members pulumi-aws passes as "true"/"false" strings where the API wants a boolean.
BOOLEANS = {
    "AssociatePublicIpAddress",
    "DeleteOnTermination",
    "Encrypted",
    "AssociateCarrierIpAddress",
    "EbsOptimized",
    "DisableApiTermination",
    "DisableApiStop",
    "Enabled",
}
# Launch template members that are Pulumi's own, not LaunchTemplateData.
NOT_TEMPLATE_DATA = {
    "name",
    "namePrefix",
    "description",
    "defaultVersion",
    "updateDefaultVersion",
    "tags",
    "tagsAll",
    "region",
    "latestVersion",
    "arn",
    "id",
}


def pascal(key: str) -> str:
    return RENAMES.get(key) or key[:1].upper() + key[1:]


def api(value: Any, key: str = "") -> Any:
    """Recursively PascalCase keys, turn tag maps into Key/Value lists, coerce string booleans."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if v is None or (isinstance(v, (list, dict)) and not v):
                continue
            member = pascal(str(k))
            out[member] = tag_list(v) if k == "tags" else api(v, member)
        return out
    if isinstance(value, list):
        return [api(v, key) for v in value]
    if key in BOOLEANS and isinstance(value, str):
        return value.lower() == "true"
    if isinstance(value, float) and value.is_integer():
        return int(value)  # Pulumi numbers arrive as floats
    return value


def tag_list(tags: Mapping[str, str] | None) -> list[dict[str, str]]:
    return [{"Key": k, "Value": str(v)} for k, v in sorted((tags or {}).items())]


def tag_specifications(resource_type: str, tags: Mapping[str, str] | None) -> list[dict[str, Any]]:
    return [{"ResourceType": resource_type, "Tags": tag_list(tags)}] if tags else []


def launch_template_data(inputs: Mapping[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = api({k: v for k, v in inputs.items() if k not in NOT_TEMPLATE_DATA})
    return data


def permission(
    protocol: str,
    from_port: Any = None,
    to_port: Any = None,
    cidr_ipv4: Iterable[str] = (),
    cidr_ipv6: Iterable[str] = (),
    groups: Iterable[str] = (),
    prefix_lists: Iterable[str] = (),
    description: str | None = None,
) -> dict[str, Any]:
    """One EC2 IpPermission; ports are dropped for all-protocol (-1) rules, as EC2 does."""
    proto = str(protocol)
    perm: dict[str, Any] = {"IpProtocol": "-1" if proto in ("-1", "all") else proto}
    if perm["IpProtocol"] != "-1" and from_port is not None:
        perm["FromPort"], perm["ToPort"] = int(from_port), int(to_port if to_port is not None else from_port)
    desc = {"Description": description} if description else {}
    if cidr_ipv4:
        perm["IpRanges"] = [{"CidrIp": c, **desc} for c in cidr_ipv4]
    if cidr_ipv6:
        perm["Ipv6Ranges"] = [{"CidrIpv6": c, **desc} for c in cidr_ipv6]
    if groups:
        perm["UserIdGroupPairs"] = [{"GroupId": g, **desc} for g in groups]
    if prefix_lists:
        perm["PrefixListIds"] = [{"PrefixListId": p, **desc} for p in prefix_lists]
    return perm


def inline_rule(rule: Mapping[str, Any], own_group: str) -> dict[str, Any]:
    """An inline `ingress`/`egress` entry of aws.ec2.SecurityGroup."""
    groups = list(rule.get("securityGroups") or []) + ([own_group] if rule.get("self") else [])
    return permission(
        rule.get("protocol", "-1"),
        rule.get("fromPort"),
        rule.get("toPort"),
        rule.get("cidrBlocks") or (),
        rule.get("ipv6CidrBlocks") or (),
        groups,
        rule.get("prefixListIds") or (),
        rule.get("description"),
    )
