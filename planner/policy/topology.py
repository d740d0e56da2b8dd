"""Rebuild the declared `planner:cluster` from a stack's AWS resources.

A cluster written by hand with plain pulumi-aws resources has no planner config, so the
policy pack reads its topology back from what the program registers: launch templates
(instance type, EFA interfaces, market options, reservation), Auto Scaling groups or
instances (how many, in which subnets and placement group), subnets (the AZ), placement
groups (the strategy) and FSx for Lustre. The result is a plain `planner:cluster` mapping
that goes through `parse_cluster` and `plan_stack` like a stack file, so the pack runs the
same rules as `planner plan`.

Findings point at key paths; each path of the rebuilt mapping gets a "line" number that
indexes the URN of the resource it came from, so a finding lands on the resource at fault.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from planner import catalogue as _catalogue
from planner.model import Path
from planner.parse import CLUSTER_PATH
from planner.policy.resources import (
    AUTOSCALING_GROUP,
    DATA_REPOSITORY_ASSOCIATION,
    EFA_INTERFACE_TYPES,
    EKS_NODE_GROUP,
    INSTANCE,
    LAUNCH_TEMPLATE,
    LUSTRE,
    PLACEMENT_GROUP,
    SUBNET,
    Graph,
    Resource,
    as_int,
    as_list,
    dig,
    known,
    truthy,
)

_NAME_OK = re.compile(r"[^a-z0-9-]+")
_AZ = re.compile(r"^([a-z]{2}(-gov)?-[a-z]+-\d)[a-z]$")
_MARKETS = {"capacity-block": "capacity-block", "spot": "spot"}
_EKS_CAPACITY = {"CAPACITY_BLOCK": "capacity-block", "SPOT": "spot", "ON_DEMAND": "on-demand"}


@dataclass(frozen=True)
class Violation:
    """What a policy reports: a message, and the URN of the resource at fault (None: the stack).

    The rebuild's own gaps (what it could not see, and what it assumed) are reported this way.
    """

    message: str
    urn: str | None = None


@dataclass
class Rebuilt:
    """A `planner:cluster` mapping read back from resources, with where each part came from."""

    data: dict[str, Any] | None
    region: str | None
    lines: dict[Path, int] = field(default_factory=dict)
    urns: list[str | None] = field(default_factory=list)
    gaps: list[Violation] = field(default_factory=list)

    def locate(self, path: Path, urn: str | None) -> None:
        self.urns.append(urn)
        self.lines[path] = len(self.urns)

    def urn_at(self, line: int | None) -> str | None:
        """The URN behind a finding's or problem's line (None: the stack as a whole)."""
        if line is None or not 0 < line <= len(self.urns):
            return None
        return self.urns[line - 1]


@dataclass
class _Group:
    """One node group before it becomes a mapping: values plus the resource each came from."""

    name: str
    instance_type: str
    count: int
    capacity: Resource  # the Auto Scaling group, or the first instance
    template: Resource | None
    values: dict[str, Any]
    sources: dict[str, Resource]
    placement_groups: list[Resource]
    zones: list[str]


def rebuild(graph: Graph, region: str | None = None, availability_zone: str | None = None) -> Rebuilt:
    """Read the cluster back from `graph`; `region`/`availability_zone` are policy-config fallbacks."""
    cat = _catalogue.load()
    gaps: list[Violation] = []
    region = region or graph.region() or _region_of_subnets(graph)
    groups = _asg_groups(graph, cat, gaps) + _eks_groups(graph, cat, gaps) + _instance_groups(graph, cat, gaps)
    out = Rebuilt(None, region, gaps=gaps)
    lustres = graph.of_type(LUSTRE)
    if not groups:
        return out
    if region is None:
        gaps.append(Violation("cannot tell the AWS region (no aws provider region, no subnet in the stack); "
                              "set the policy's `region` config"))
        return out

    zones = [z for g in groups for z in g.zones]
    cluster_az = availability_zone or (Counter(zones).most_common(1)[0][0] if zones else None)
    if cluster_az is None:
        gaps.append(Violation("cannot tell the Availability Zone of any node group (their subnets are not resources of "
                              "this stack); set the policy's `availabilityZone` config", groups[0].capacity.urn))
        return out

    out.locate(CLUSTER_PATH, None)
    origin = next((g.capacity.urn for g in groups if cluster_az in g.zones), None)
    out.locate(CLUSTER_PATH + ("availability_zone",), origin)
    node_groups: list[dict[str, Any]] = []
    names: set[str] = set()
    for g in _split_by_zone(groups):
        i = len(node_groups)
        path = CLUSTER_PATH + ("node_groups", i)
        g.name = _unique_name(g.name, names)
        entry: dict[str, Any] = {"name": g.name, "instance_type": g.instance_type, "count": g.count, **g.values}
        out.locate(path, g.capacity.urn)
        for key in ("name", "count"):
            out.locate(path + (key,), g.capacity.urn)
        for key, src in g.sources.items():
            out.locate(path + (key,), src.urn)
        if g.zones:
            entry["availability_zone"] = g.zones[0]
        else:
            gaps.append(Violation(f"cannot tell the Availability Zone of node group '{g.name}'; assumed {cluster_az}",
                                  g.capacity.urn))
        out.locate(path + ("availability_zone",), g.capacity.urn)
        node_groups.append(entry)

    data: dict[str, Any] = {"availability_zone": cluster_az, "node_groups": node_groups}
    placement = [pg for g in groups for pg in g.placement_groups if pg.get("strategy") == "cluster"]
    data["placement_group"] = "cluster" if placement else "none"
    # a missing placement group is the fault of the groups launched without one
    out.locate(CLUSTER_PATH + ("placement_group",), placement[0].urn if placement else groups[0].capacity.urn)

    if lustres:
        data["lustre"] = _lustre(graph, lustres[0], cluster_az, gaps)
        out.locate(CLUSTER_PATH + ("lustre",), lustres[0].urn)
        for extra in lustres[1:]:
            gaps.append(Violation("planner models one FSx for Lustre file system per cluster; this one is checked by "
                                  "the resource policies but not planned or priced", extra.urn))
    out.data = data
    return out


# --- node groups ---------------------------------------------------------------------------

def _template_of(graph: Graph, owner: Resource, spec: Any, prop: str) -> Resource | None:
    values = [dig(spec, "id"), dig(spec, "name"), dig(spec, "launchTemplateId"), dig(spec, "launchTemplateName")]
    if not any(v is not None for v in values):
        return None
    hits = graph.resolve(owner, prop, [v for v in values if v is not None], LAUNCH_TEMPLATE)
    return hits[0] if hits else None


def _asg_groups(graph: Graph, cat: Any, gaps: list[Violation]) -> list[_Group]:
    groups = []
    for asg in graph.of_type(AUTOSCALING_GROUP):
        template = _template_of(graph, asg, asg.get("launchTemplate"), "launchTemplate")
        itype: Any = None
        type_source: Resource | None = None
        if template is None:
            spec = asg.get("mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification")
            template = _template_of(graph, asg, spec, "mixedInstancesPolicy")
            itype = asg.get("mixedInstancesPolicy", "launchTemplate", "overrides", 0, "instanceType")
            type_source = asg
        if not known(itype) and template is not None:
            itype, type_source = template.get("instanceType"), template
        if not _accelerated(itype, cat, asg, gaps):
            continue
        count = next((n for n in (as_int(asg.get(k)) for k in ("desiredCapacity", "maxSize")) if n), None)
        if not count:
            gaps.append(Violation(f"cannot tell how many instances Auto Scaling group '{asg.name}' runs "
                                  "(desiredCapacity/maxSize unknown or zero); not planned", asg.urn))
            continue
        subnets = graph.resolve(asg, "vpcZoneIdentifiers", as_list(asg.get("vpcZoneIdentifiers")), SUBNET)
        zones = _zones(subnets) or [z for z in as_list(asg.get("availabilityZones")) if isinstance(z, str) and known(z)]
        zones, pgs = _where(graph, asg, template, zones)
        values, sources = _launch_values(template, None)
        if type_source is not None:
            sources["instance_type"] = type_source
        groups.append(_Group(asg.name, itype, count, asg, template, values, sources, pgs, zones))
    return groups


def _eks_groups(graph: Graph, cat: Any, gaps: list[Violation]) -> list[_Group]:
    """EKS managed node groups: `scalingConfig.desiredSize` instances of `instanceTypes[0]` or the template's type."""
    groups = []
    for ng in graph.of_type(EKS_NODE_GROUP):
        template = _template_of(graph, ng, ng.get("launchTemplate"), "launchTemplate")
        itype, type_source = ng.get("instanceTypes", 0), ng
        if not known(itype) and template is not None:
            itype, type_source = template.get("instanceType"), template
        if not _accelerated(itype, cat, ng, gaps):
            continue
        count = next((n for n in (as_int(ng.get("scalingConfig", k)) for k in ("desiredSize", "maxSize")) if n), None)
        if not count:
            gaps.append(Violation(f"cannot tell how many instances EKS node group '{ng.name}' runs; not planned", ng.urn))
            continue
        zones, pgs = _where(graph, ng, template, _zones(graph.resolve(ng, "subnetIds", as_list(ng.get("subnetIds")), SUBNET)))
        values, sources = _launch_values(template, None)
        capacity = ng.get("capacityType")
        if isinstance(capacity, str) and capacity in _EKS_CAPACITY:
            values["purchase"], sources["purchase"] = _EKS_CAPACITY[capacity], ng
        sources["instance_type"] = type_source
        groups.append(_Group(ng.name, itype, count, ng, template, values, sources, pgs, zones))
    return groups


def _instance_groups(graph: Graph, cat: Any, gaps: list[Violation]) -> list[_Group]:
    """Instances launched directly: one group per (launch template, type, AZ, placement group)."""
    by_key: dict[tuple[Any, ...], _Group] = {}
    for inst in graph.of_type(INSTANCE):
        template = _template_of(graph, inst, inst.get("launchTemplate"), "launchTemplate")
        itype = inst.get("instanceType")
        type_source = inst
        if not known(itype) and template is not None:
            itype, type_source = template.get("instanceType"), template
        if not _accelerated(itype, cat, inst, gaps):
            continue
        az = inst.get("availabilityZone")
        zones = [az] if isinstance(az, str) and known(az) else []
        if not zones:
            zones = _zones(graph.resolve(inst, "subnetId", [inst.get("subnetId")], SUBNET))
        zones, pgs = _where(graph, inst, template, zones)
        values, sources = _launch_values(template, inst)
        sources["instance_type"] = type_source
        key = (template.urn if template else None, itype, tuple(zones), tuple(p.urn for p in pgs),
               tuple(sorted((k, str(v)) for k, v in values.items())))
        if key in by_key:
            by_key[key].count += 1
            continue
        name = template.name if template is not None else re.sub(r"[-_]?\d+$", "", inst.name) or inst.name
        by_key[key] = _Group(name, itype, 1, inst, template, values, sources, pgs, zones)
    return list(by_key.values())


def _accelerated(itype: Any, cat: Any, res: Resource, gaps: list[Violation]) -> bool:
    """Only catalogue types form node groups; a bastion or head node is not the training cluster."""
    if not known(itype):
        gaps.append(Violation(f"cannot tell the instance type of '{res.name}' (unknown during preview); not planned", res.urn))
        return False
    return isinstance(itype, str) and itype in cat.instance_types


def _launch_values(template: Resource | None, inst: Resource | None) -> tuple[dict[str, Any], dict[str, Resource]]:
    """purchase, efa, public_ip and capacity reservation from the instance, else its launch template."""
    values: dict[str, Any] = {}
    sources: dict[str, Resource] = {}
    for res in (template, inst):  # the instance's own settings override its template's
        if res is None:
            continue
        market = res.get("instanceMarketOptions", "marketType")
        if isinstance(market, str) and known(market):
            values["purchase"] = _MARKETS.get(market, "on-demand")
            sources["purchase"] = res
        interfaces = [n for n in as_list(res.get("networkInterfaces")) if isinstance(n, dict)]
        if res.type == LAUNCH_TEMPLATE:
            values["efa"] = any(n.get("interfaceType") in EFA_INTERFACE_TYPES for n in interfaces)
            sources["efa"] = res
            if any(truthy(n.get("associatePublicIpAddress")) for n in interfaces):
                values["public_ip"] = True
                sources["public_ip"] = res
        if truthy(res.get("associatePublicIpAddress")):
            values["public_ip"] = True
            sources["public_ip"] = res
        reservation = res.get("capacityReservationSpecification", "capacityReservationTarget", "capacityReservationId")
        if isinstance(reservation, str) and known(reservation) and reservation:
            values["capacity_reservation_id"] = reservation
            sources["capacity_reservation_id"] = res
    return values, sources


def _where(graph: Graph, owner: Resource, template: Resource | None, zones: list[str]) -> tuple[list[str], list[Resource]]:
    """AZs (the owner's, else its template's) and placement groups (the owner's, else its template's)."""
    if not zones and template is not None:
        zones = _template_zones(graph, template)
    pgs = graph.resolve(owner, "placementGroup", [owner.get("placementGroup")], PLACEMENT_GROUP)
    if not pgs and template is not None:
        pgs = _template_placement(graph, template)
    return zones, pgs


def _template_zones(graph: Graph, template: Resource) -> list[str]:
    az = template.get("placement", "availabilityZone")
    if isinstance(az, str) and known(az) and az:
        return [az]
    subnets = [n.get("subnetId") for n in as_list(template.get("networkInterfaces")) if isinstance(n, dict)]
    return _zones(graph.resolve(template, "networkInterfaces", [s for s in subnets if s is not None], SUBNET))


def _template_placement(graph: Graph, template: Resource) -> list[Resource]:
    name = template.get("placement", "groupName")
    return graph.resolve(template, "placement", [name], PLACEMENT_GROUP) if name is not None else []


def _zones(subnets: list[Resource]) -> list[str]:
    zones = [s.get("availabilityZone") for s in subnets]
    return list(dict.fromkeys(z for z in zones if isinstance(z, str) and known(z)))


def _split_by_zone(groups: list[_Group]) -> list[_Group]:
    """An Auto Scaling group over several AZs becomes one node group per AZ.

    EC2 Auto Scaling balances instances evenly across the group's AZs (earlier AZs take
    the remainder), so the rules see the cross-AZ layout that will actually run.
    """
    out: list[_Group] = []
    for g in groups:
        if len(g.zones) <= 1:
            out.append(g)
            continue
        n = len(g.zones)
        for k, zone in enumerate(g.zones):
            share = g.count // n + (1 if k < g.count % n else 0)
            if share:
                out.append(_Group(f"{g.name}-{zone}", g.instance_type, share, g.capacity, g.template,
                                  dict(g.values), dict(g.sources), g.placement_groups, [zone]))
    return out


def _unique_name(raw: str, taken: set[str]) -> str:
    """A valid node group name (lower-case letters, digits, dashes, at most 32) from a resource name."""
    base = _NAME_OK.sub("-", raw.lower()).strip("-")[:32].strip("-") or "group"
    name, n = base, 2
    while name in taken:
        suffix = f"-{n}"
        name = base[: 32 - len(suffix)].strip("-") + suffix
        n += 1
    taken.add(name)
    return name


# --- file system and region ----------------------------------------------------------------

def _lustre(graph: Graph, fs: Resource, cluster_az: str, gaps: list[Violation]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, prop in (("deployment_type", "deploymentType"), ("storage_capacity_gib", "storageCapacity"),
                      ("per_unit_storage_throughput", "perUnitStorageThroughput"), ("s3_import_path", "importPath")):
        v = fs.get(prop)
        if known(v) and v != "":
            out[key] = as_int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    if "s3_import_path" not in out:  # PERSISTENT_2 links S3 through data repository associations
        for dra in graph.of_type(DATA_REPOSITORY_ASSOCIATION):
            linked = graph.resolve(dra, "fileSystemId", [dra.get("fileSystemId")], LUSTRE)
            path = dra.get("dataRepositoryPath")
            if any(f.urn == fs.urn for f in linked) and isinstance(path, str) and known(path):
                out["s3_import_path"] = path
                break
    if known(fs.get("efaEnabled")):
        out["efa_enabled"] = truthy(fs.get("efaEnabled"))
    out.setdefault("deployment_type", "SCRATCH_1")  # the FSx API's default deployment type
    zones = _zones(graph.resolve(fs, "subnetIds", as_list(fs.get("subnetIds")), SUBNET))
    if zones:
        out["availability_zone"] = zones[0]
    else:
        gaps.append(Violation(f"cannot tell the Availability Zone of file system '{fs.name}'; assumed {cluster_az}", fs.urn))
    return out


def _region_of_subnets(graph: Graph) -> str | None:
    for s in graph.of_type(SUBNET):
        m = _AZ.match(str(s.get("availabilityZone")))
        if m:
            return m.group(1)
    return None
