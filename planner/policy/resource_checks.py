"""Checks of one resource's inputs, for the pack's resource policies (no topology needed).

Each check takes the resource type and its plain props (camelCase, as the engine passes
inputs) and returns `(rule id, violation message)` pairs: every check has the id of a rule
declared in the core (`planner.rules.resource_checks`, `planner.rules.lustre`, ...), so it is
listed by `planner rules` and suppressed like any rule. Where the rules engine already holds
the logic (public IPs with several launch interfaces, FSx for Lustre values), the check builds
a one-part model and runs those rules, so the pack and `planner plan` cannot disagree; the
others (IMDSv2, security groups per interface) also run under `planner plan --program`
(`program_violations`), whose read-back reports them with the same ids.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from planner import catalogue as _catalogue
from planner.model import LUSTRE_DEPLOYMENTS, Cluster, Lustre, NodeGroup
from planner.policy import security_groups
from planner.policy.planning import described, rules_report
from planner.policy.resources import (
    INSTANCE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    Graph,
    as_int,
    as_list,
    dig,
    known,
    truthy,
)
from planner.policy.topology import Violation
from planner.rules.resource_checks import (
    EFA_SECURITY_GROUP,
    IMDS_DOC,
    IMDSV2,
    INTERFACE_SECURITY_GROUPS,
)

EFA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html"
Reported = list[tuple[str, str]]  # (rule id, violation message as the pack reports it)
LUSTRE_RULES = ("lustre-capacity", "lustre-throughput", "lustre-efa")
PUBLIC_IP_RULES = ("public-ip-multi-card",)
# rules whose findings a resource policy reports, each once: the stack policies leave them out
OWNED_RULES = LUSTRE_RULES + PUBLIC_IP_RULES
_NO_REGION = ""  # the rules run here do not look at the region


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
        return ["security groups are set at the top level of a launch template that declares network interfaces; "
                "set them per interface (networkInterfaces[].securityGroups) instead"]
    return []


def imdsv2_required(resource_type: str, props: Mapping[str, Any]) -> list[str]:
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


def public_ip(resource_type: str, props: Mapping[str, Any]) -> Reported:
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
    return [(f.rule, message) for f, message in described(rules_report(cluster, _NO_REGION, PUBLIC_IP_RULES))]


def lustre_values(resource_type: str, props: Mapping[str, Any]) -> Reported:
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
    return [(f.rule, message) for f, message in described(rules_report(cluster, _NO_REGION, LUSTRE_RULES))]


# checks of one resource whose rules only the read-back of resources can fire: run per resource by
# the pack, and on every resource of a program by `planner plan --program`
ONE_RESOURCE = {IMDSV2: imdsv2_required, INTERFACE_SECURITY_GROUPS: interface_security_groups}


def efa_interfaces(resource_type: str, props: Mapping[str, Any]) -> Reported:
    """The pack's `planner-efa-interfaces`: security groups per interface (`interface-security-groups`)."""
    return [(INTERFACE_SECURITY_GROUPS, f"[{INTERFACE_SECURITY_GROUPS}] {m}")
            for m in interface_security_groups(resource_type, props)]


def imdsv2(resource_type: str, props: Mapping[str, Any]) -> Reported:
    """The pack's `planner-imdsv2`: launch templates and instances require IMDSv2 (`imdsv2-required`)."""
    return [(IMDSV2, f"[{IMDSV2}] {m}") for m in imdsv2_required(resource_type, props)]


def program_violations(graph: Graph) -> list[Violation]:
    """What the resource checks find in a program's resources, each with its rule and the resource's URN:
    notes of the read-back that `planner plan --program` reports under those rules (the pack runs the
    same checks as its resource policies and `planner-efa-security-group`)."""
    out = [Violation(message, r.urn, fix=PROGRAM_FIXES[rule], rule=rule)
           for r in graph.resources for rule, check in ONE_RESOURCE.items() for message in check(r.type, r.props)]
    return out + [replace(v, rule=EFA_SECURITY_GROUP, fix=PROGRAM_FIXES[EFA_SECURITY_GROUP])
                  for v in security_groups.violations(graph)]


# what to change, in pulumi_aws's Python names (restated against the resource, with its file and line)
PROGRAM_FIXES = {
    IMDSV2: 'set metadata_options={"http_tokens": "required"}',
    INTERFACE_SECURITY_GROUPS: ("move the groups of vpc_security_group_ids (or security_group_names) into "
                                "security_groups of each of its network_interfaces"),
    EFA_SECURITY_GROUP: ('add an ingress and an egress rule with protocol "-1" and self=True (or an '
                         "aws.vpc.SecurityGroupIngressRule and EgressRule naming the group itself)"),
}
