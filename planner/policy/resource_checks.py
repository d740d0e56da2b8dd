"""Checks of one resource's inputs, for the pack's resource policies (no topology needed).

Each check takes the resource type and its plain props (camelCase, as the engine passes
inputs) and returns `(rule id, violation message)` pairs: every check has the id of a rule
declared in the core (`planner.core.rules.resource_settings`, `planner.core.rules.lustre`, ...), so it is
listed by `planner rules` and suppressed like any rule. Where the rules engine already holds
the logic (public IPs with several launch interfaces, FSx for Lustre values), the check builds
a one-part model and runs those rules, so the pack and `planner plan` cannot disagree; the
others (IMDSv2, security groups per interface) also run under `planner plan --program`
(`program_violations`), whose read-back reports them with the same ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from planner.core.catalogue import instance_types as _catalogue
from planner.core.input.stack_files import CLUSTER_PATH
from planner.core.model.cluster import LUSTRE_DEPLOYMENTS, READ_CACHE_SIZING_MODES, Cluster, Lustre, NodeGroup, Note
from planner.core.rules.resource_settings import (
    IMDSV2,
    INTERFACE_SECURITY_GROUPS,
)
from planner.policy.planning import described, rules_report
from planner.readback.file_system import metadata_keys, tiering_keys
from planner.readback.program_terms import python_class
from planner.readback.resource_inputs import _interfaces, imdsv2_required, interface_security_groups
from planner.readback.resources import (
    INSTANCE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    Resource,
    as_int,
    known,
    truthy,
)

EFA_DOC = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html"
Reported = list[tuple[str, str]]  # (rule id, violation message as the pack reports it)
LUSTRE_RULES = (
    "lustre-capacity",
    "lustre-throughput",
    "lustre-efa",
    "lustre-intelligent-tiering",
    "lustre-read-cache",
    "lustre-metadata-iops",
)
PUBLIC_IP_RULES = ("public-ip-multi-card",)
# rules whose findings a resource policy reports, each once: the stack policies leave them out
OWNED_RULES = LUSTRE_RULES + PUBLIC_IP_RULES
_NO_REGION = ""  # the rules run here do not look at the region


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
    group = NodeGroup(
        name="resource",
        instance_type=itype,
        count=1,
        public_ip=True,
        efa=len(interfaces) > 1,
        path=CLUSTER_PATH + ("node_groups", 0),
    )
    cluster = Cluster(availability_zone="", node_groups=(group,), path=CLUSTER_PATH)
    report = rules_report(cluster, _NO_REGION, PUBLIC_IP_RULES, python_class(resource_type))
    return [(f.rule, message) for f, message in described(report)]


def lustre_values(resource_type: str, props: Mapping[str, Any]) -> Reported:
    """Capacity, throughput and EFA valid for the deployment type (the `lustre-*` value rules)."""
    if resource_type != LUSTRE:
        return []
    dtype = props.get("deploymentType") or "SCRATCH_1"  # the FSx API's default
    capacity = as_int(props.get("storageCapacity"))
    throughput = props.get("perUnitStorageThroughput")
    # an Intelligent-Tiering file system (no storage capacity): its throughput capacity and read cache
    tiering = tiering_keys(Resource(LUSTRE, "", "resource", dict(props)))
    if tiering.get("read_cache_sizing_mode") not in (None, *READ_CACHE_SIZING_MODES) or not all(
        isinstance(v, (int, str)) for v in tiering.values()
    ):
        return []
    if dtype not in LUSTRE_DEPLOYMENTS or (capacity is None and not tiering):
        return []
    if throughput is not None and not known(throughput):
        return []
    fs = Lustre(
        deployment_type=dtype,
        storage_capacity_gib=None if tiering else capacity,
        per_unit_storage_throughput=None if tiering else as_int(throughput),
        efa_enabled=truthy(props.get("efaEnabled")),
        path=CLUSTER_PATH + ("lustre",),
        **tiering,
        **metadata_keys(Resource(LUSTRE, "", "resource", dict(props))),
    )
    cluster = Cluster(availability_zone="", node_groups=(), lustre=fs, path=CLUSTER_PATH)
    report = rules_report(cluster, _NO_REGION, LUSTRE_RULES, python_class(resource_type))
    return [(f.rule, message) for f, message in described(report)]


def efa_interfaces(resource_type: str, props: Mapping[str, Any]) -> Reported:
    """The pack's `planner-efa-interfaces`: security groups per interface (`interface-security-groups`)."""
    return reported(INTERFACE_SECURITY_GROUPS, interface_security_groups(resource_type, props))


def imdsv2(resource_type: str, props: Mapping[str, Any]) -> Reported:
    """The pack's `planner-imdsv2`: launch templates and instances require IMDSv2 (`imdsv2-required`)."""
    return reported(IMDSV2, imdsv2_required(resource_type, props))


def reported(rule_id: str, messages: Iterable[str]) -> Reported:
    """What a check of resource properties found, as rule `rule_id` reports it: each message becomes a
    read-back note of a one-resource model, and the rule's findings on it go through the one document
    (`rules_report`, `described`), as `planner plan --program` reports the same notes; so the id, the
    message and the remediation the pack prints are the registry's, not a second wording kept here."""
    notes = tuple(Note(m, rule=rule_id) for m in messages)
    if not notes:
        return []
    cluster = Cluster(availability_zone="", node_groups=(), notes=notes)
    return [(f.rule, message) for f, message in described(rules_report(cluster, _NO_REGION, (rule_id,)))]
