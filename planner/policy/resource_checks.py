"""Checks of one resource's inputs, for the pack's resource policies (no topology needed).

Each check takes the resource type and its plain props (camelCase, as the engine passes
inputs) and returns violation messages. Where the rules engine already holds the logic
(public IPs with several launch interfaces, FSx for Lustre values), the check builds a one-part model
and runs those rules, so the pack and `planner plan` cannot disagree.
"""

from __future__ import annotations

from typing import Any, Mapping

from planner import catalogue as _catalogue
from planner.model import LUSTRE_DEPLOYMENTS, Cluster, Lustre, NodeGroup
from planner.policy.planning import describe, run_rules
from planner.policy.resources import (
    INSTANCE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    as_int,
    as_list,
    dig,
    known,
    truthy,
)

EFA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html"
IMDS_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/configuring-IMDS-new-instances.html"
LUSTRE_RULES = ("lustre-capacity", "lustre-throughput", "lustre-efa")
PUBLIC_IP_RULES = ("public-ip-multi-card",)
# rules whose findings a resource policy reports, each once: the stack policies leave them out
OWNED_RULES = LUSTRE_RULES + PUBLIC_IP_RULES
_NO_REGION = ""  # the rules run here do not look at the region


def _interfaces(props: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [n for n in as_list(props.get("networkInterfaces")) if isinstance(n, dict)]


def efa_interfaces(resource_type: str, props: Mapping[str, Any]) -> list[str]:
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
        return ["security groups are set at the top level of a launch template that declares network interfaces; "
                "set them per interface (networkInterfaces[].securityGroups) instead"]
    return []


def imdsv2(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Launch templates and instances require IMDSv2 session tokens (metadataOptions.httpTokens)."""
    if resource_type not in (LAUNCH_TEMPLATE, INSTANCE):
        return []
    tokens = dig(props, "metadataOptions", "httpTokens")
    if tokens is None and resource_type == INSTANCE and props.get("launchTemplate") is not None:
        return []  # launched from a template: the template's metadata options apply, and it is checked itself
    if tokens is not None and not known(tokens):
        return []  # computed from another resource; checked at update
    if tokens == "required":
        return []
    shown = "not set" if tokens is None else f"'{tokens}'"
    return [f"metadataOptions.httpTokens is {shown}; set it to 'required' so that only IMDSv2 (session tokens) "
            f"can read instance credentials. See {IMDS_DOC}"]


def public_ip(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """No public IP at launch in a request with more than one network interface (the
    `public-ip-multi-card` rule): the interfaces the resource declares decide, as EFA on
    every card does for a planner node group."""
    interfaces = _interfaces(props)
    if resource_type == LAUNCH_TEMPLATE:
        wanted = any(truthy(n.get("associatePublicIpAddress")) for n in interfaces)
    elif resource_type == INSTANCE:
        wanted = truthy(props.get("associatePublicIpAddress"))
    else:
        return []
    itype = props.get("instanceType")
    if not wanted or not isinstance(itype, str) or _catalogue.load().get(itype) is None:
        return []
    # several declared interfaces = the EFA-on-every-card layout the rule counts; none or one = one interface
    group = NodeGroup(name="resource", instance_type=itype, count=1, public_ip=True, efa=len(interfaces) > 1)
    cluster = Cluster(availability_zone="", node_groups=(group,))
    return [describe(f) for f in run_rules(cluster, _NO_REGION, PUBLIC_IP_RULES)]


def lustre_values(resource_type: str, props: Mapping[str, Any]) -> list[str]:
    """Capacity, throughput and EFA valid for the deployment type (the `lustre-*` value rules)."""
    if resource_type != LUSTRE:
        return []
    dtype = props.get("deploymentType") or "SCRATCH_1"  # the FSx API's default
    capacity = as_int(props.get("storageCapacity"))
    throughput = props.get("perUnitStorageThroughput")
    if dtype not in LUSTRE_DEPLOYMENTS or capacity is None or (throughput is not None and not known(throughput)):
        return []
    fs = Lustre(deployment_type=dtype, storage_capacity_gib=capacity, per_unit_storage_throughput=as_int(throughput),
                efa_enabled=truthy(props.get("efaEnabled")))
    cluster = Cluster(availability_zone="", node_groups=(), lustre=fs)
    return [describe(f) for f in run_rules(cluster, _NO_REGION, LUSTRE_RULES)]
