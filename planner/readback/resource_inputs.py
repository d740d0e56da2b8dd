"""Checks of one resource's inputs that a read-back of a program runs on every resource.

`planner plan --program` reports them under their rules' ids (declared in the core,
`planner.core.rules.resource_settings`), at the resource's file and line, with a fix as edits of the
resource's properties (`PROGRAM_FIXES`, said in pulumi_aws's Python names by `planner.readback.program_terms`); the policy pack runs the same functions as its resource policies
(`planner.policy.resource_checks`), so both say the same thing. They read plain props
(camelCase, as the engine passes inputs) and need no Pulumi import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from planner.core.model.findings import Fix
from planner.core.rules.resource_settings import (
    EFA_SECURITY_GROUP,
    IMDSV2,
    INTERFACE_SECURITY_GROUPS,
    LUSTRE_SECURITY_GROUP,
    SECURITY_HUB_EC2_8,
)
from planner.readback import security_groups
from planner.readback.resources import (
    INSTANCE,
    LAUNCH_TEMPLATE,
    Graph,
    Resource,
    Violation,
    as_list,
    change,
    dig,
    known,
)


def _interfaces(props: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [n for n in as_list(props.get("networkInterfaces")) if isinstance(n, dict)]


def interface_security_groups(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """A launch template with network interfaces sets its security groups per interface.

    The EFA layout itself (one EFA interface per network card, a full EFA interface first)
    is the `efa-interface-layout` rule's, reported once, by `planner-topology`: it checks the
    type the template is launched as (an Auto Scaling group's override included), which
    this resource alone cannot tell.
    """
    if resource_type != LAUNCH_TEMPLATE:
        return []
    interfaces = _interfaces(props)
    if interfaces and (as_list(props.get("vpcSecurityGroupIds")) or as_list(props.get("securityGroupNames"))):
        return [
            "security groups are set at the top level of a launch template that declares network interfaces; "
            "with network interfaces, EC2 takes security groups only as part of each interface"
        ]
    return []


def imdsv2_required(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """planner's policy, after AWS Security Hub control EC2.8: launch templates and instances require IMDSv2
    session tokens (metadataOptions.httpTokens). AWS does not require it. Left unset, the instance takes the
    account's IMDS default for the Region (ModifyInstanceMetadataDefaults), else the AMI's ImdsSupport decides
    ("Default: If the value of ImdsSupport for the Amazon Machine Image (AMI) for your instance is v2.0, the
    default is required."): the program shows neither, and the message says so."""
    if resource_type not in (LAUNCH_TEMPLATE, INSTANCE):
        return []
    tokens = dig(props, "metadataOptions", "httpTokens")
    if tokens is None and resource_type == INSTANCE and props.get("launchTemplate") is not None:
        return []  # launched from a template: the template's metadata options apply, and it is checked itself
    if tokens is not None and not known(tokens):
        return []  # computed from another resource; checked at update
    if tokens == "required":
        return []
    if tokens is None:  # the account's IMDS default for the Region decides, else the AMI's ImdsSupport
        what = (
            "not set, so the account's IMDS default for the Region decides (`aws ec2 get-instance-metadata-defaults`), "
            "else the AMI's ImdsSupport (IMDSv2 required if v2.0); the program shows neither, and without them IAM "
            "role credentials can be retrieved without a session token (IMDSv1)"
        )
    else:
        # a launch's own setting overrides the account's default (AWS, 2024-03-25: "You can still manually override
        # these settings and enable IMDSv1 using Instance Metadata option launch properties.")
        what = (
            f"'{tokens}': IAM role credentials can be retrieved without a session token (IMDSv1), whatever the "
            "account's IMDS default for the Region (a launch's own setting overrides it)"
        )
    return [
        f"metadataOptions.httpTokens is {what}. planner's policy follows AWS Security Hub control EC2.8, \"EC2 "
        f'instances should use Instance Metadata Service Version 2 (IMDSv2)" ({SECURITY_HUB_EC2_8}); AWS does not '
        "require IMDSv2"
    ]


# checks of one resource whose rules only the read-back of resources can fire: run per resource by
# the pack, and on every resource of a program by `planner plan --program`
ONE_RESOURCE = {IMDSV2: imdsv2_required, INTERFACE_SECURITY_GROUPS: interface_security_groups}


def program_violations(graph: Graph) -> list[Violation]:
    """What the resource checks find in a program's resources, each with its rule and the resource's URN:
    notes of the read-back that `planner plan --program` reports under those rules (the pack runs the
    same checks as its resource policies and `planner-efa-security-group`). In URN order: the engine
    registers a loop's resources in no fixed order, and the report must be the same run to run."""
    out = [
        Violation(message, r.urn, fix=PROGRAM_FIXES[rule](r), rule=rule)
        for r in sorted(graph.resources, key=lambda r: r.urn)
        for rule, check in ONE_RESOURCE.items()
        for message in check(r.type, r.props)
    ]
    return (
        out
        + [
            replace(v, rule=EFA_SECURITY_GROUP, fix=PROGRAM_FIXES[EFA_SECURITY_GROUP](v.urn or ""))
            for v in sorted(security_groups.violations(graph), key=lambda v: (v.urn or "", v.message))
        ]
        + [
            replace(v, rule=LUSTRE_SECURITY_GROUP, fix=PROGRAM_FIXES[LUSTRE_SECURITY_GROUP](v.urn or ""))
            for v in sorted(security_groups.lustre_violations(graph), key=lambda v: (v.urn or "", v.message))
        ]
    )


def _security_groups_per_interface(r: Resource | str) -> Fix:
    top = "vpcSecurityGroupIds"
    if isinstance(r, Resource) and not as_list(r.get(top)):
        top = "securityGroupNames"
    return Fix(
        edits=(
            change(r, top, op="remove"),
            change(r, "networkInterfaces[].securityGroups", op="add", note="those groups, on each network interface"),
        )
    )


_SELF_RULE = 'a rule with protocol "-1" and self=True'
_LUSTRE_PORTS = (
    'rules with protocol "tcp" for from_port=988, to_port=988 and from_port=1018, to_port=1023, self=True '
    "(and from the clients' groups)"
)

# what to change, per rule: edits of the resource at fault (its URN, or the resource itself), said in the
# program's terms by `planner.readback.program_terms`
PROGRAM_FIXES: dict[str, Callable[[Resource | str], Fix]] = {
    IMDSV2: lambda r: Fix(edits=(change(r, "metadataOptions.httpTokens", "required"),)),
    INTERFACE_SECURITY_GROUPS: _security_groups_per_interface,
    EFA_SECURITY_GROUP: lambda r: Fix(
        "or an aws.vpc.SecurityGroupIngressRule and EgressRule naming the group itself",
        (change(r, "ingress", op="add", note=_SELF_RULE), change(r, "egress", op="add", note=_SELF_RULE)),
    ),
    LUSTRE_SECURITY_GROUP: lambda r: Fix(
        edits=(change(r, "securityGroupIds[].ingress", op="add", note=_LUSTRE_PORTS),)
    ),
}
