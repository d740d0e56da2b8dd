"""EC2 Auto Scaling groups into node groups: the instance type from the mixed instances policy or the launch
template, the size from desired capacity and minimum, a group scaled to zero kept aside, and the per-UltraServer
groups the planner components build merged back into one node group.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from planner.core.catalogue import instance_types as _catalogue
from planner.core.model.cluster import Unplanned
from planner.readback.block_devices import launch_volumes
from planner.readback.compute_groups import ReadGroup, pick_type, refused_sizes, scaled_to_zero, size_unknown, sizes
from planner.readback.launch_templates import launch_values, launched_group, template_of, zones_of
from planner.readback.resources import (
    AUTOSCALING_GROUP,
    SUBNET,
    Graph,
    Resource,
    Violation,
    as_int,
    as_list,
    known,
)

# where an Auto Scaling group names its instance types when its launch template does not
_OVERRIDE_TYPES = "mixedInstancesPolicy.launchTemplate.overrides[].instanceType"


def asg_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[ReadGroup]:
    groups = []
    for asg in graph.of_type(AUTOSCALING_GROUP):
        template = template_of(graph, asg, asg.get("launchTemplate"), "launchTemplate")
        types: list[Any] = []
        type_source: Resource | None = None
        if template is None:
            spec = asg.get("mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification")
            template = template_of(graph, asg, spec, "mixedInstancesPolicy")
        overrides = as_list(asg.get("mixedInstancesPolicy", "launchTemplate", "overrides"))
        types = [o.get("instanceType") for o in overrides if isinstance(o, dict) and o.get("instanceType") is not None]
        types_at = (asg, _OVERRIDE_TYPES)
        if types:
            type_source = asg
        elif template is not None:
            types, type_source = [template.get("instanceType")], template
            types_at = (template, "instanceType")
        planned, lo, hi = sizes(asg.get("desiredCapacity"), asg.get("minSize"), asg.get("maxSize"))
        itype = pick_type(types, cat, asg, gaps, unplanned, "Auto Scaling group", planned, lo, hi, types_at)
        if itype is None:
            continue
        refused_sizes(
            "Auto Scaling group",
            asg,
            ("desiredCapacity", "minSize", "maxSize"),
            as_int(asg.get("desiredCapacity")),
            lo,
            hi,
            gaps,
        )
        if planned is None:
            gaps.append(
                size_unknown("Auto Scaling group", asg, "desiredCapacity", " (desiredCapacity and minSize unknown)")
            )
            continue
        if planned == 0:
            purchase = launch_values(graph, template, None)[0].get("purchase", "on-demand")
            unplanned.append(scaled_to_zero("Auto Scaling group", asg, itype, lo, hi, "desiredCapacity", purchase))
            continue
        subnets = graph.resolve(asg, "vpcZoneIdentifiers", as_list(asg.get("vpcZoneIdentifiers")), SUBNET)
        zones = zones_of(subnets) or [
            z for z in as_list(asg.get("availabilityZones")) if isinstance(z, str) and known(z)
        ]
        group = launched_group(
            graph,
            asg,
            template,
            itype,
            planned,
            hi,
            zones,
            gaps,
            launch_volumes(template),
            ultraserver=_ultraserver_tags(asg),
        )
        if type_source is not None:
            group.sources["instance_type"] = type_source
        groups.append(group)
    return groups


# the planner components' tags (planner.components.accelerated_cluster): a node group of an UltraServer Capacity
# Block that names one reservation per UltraServer is built as one Auto Scaling group per UltraServer
_CLUSTER_TAG, _GROUP_TAG, _ULTRASERVER_TAG = "planner:cluster", "planner:node-group", "planner:ultraserver"
_ULTRASERVER_TYPE_TAG = "planner:ultraserver-type"


def ultraserver_type_of(g: ReadGroup) -> tuple[str, bool] | None:
    """(UltraServer type, assumed) for a group whose instance type is a member of several UltraServer types:
    the components' tag, else the smallest type whose members divide the count (said as a gap); None otherwise."""
    cat = _catalogue.load()
    options = cat.ultraservers_of(g.instance_type)
    if len(options) < 2:
        return None
    raw = g.capacity.get("tags")
    tags = raw if isinstance(raw, dict) else {t.get("key"): t.get("value") for t in as_list(raw) if isinstance(t, dict)}
    tagged = tags.get(_ULTRASERVER_TYPE_TAG)
    if isinstance(tagged, str) and tagged in {u.name for u in options}:
        return tagged, False
    fits = [u for u in options if g.count % u.members == 0]
    return (fits or list(options))[0].name, True


def _ultraserver_tags(asg: Resource) -> tuple[str, str, int] | None:
    tags = {t.get("key"): t.get("value") for t in as_list(asg.get("tags")) if isinstance(t, dict)}
    cluster, group, k = tags.get(_CLUSTER_TAG), tags.get(_GROUP_TAG), tags.get(_ULTRASERVER_TAG)
    if not all(isinstance(v, str) and known(v) for v in (cluster, group, k)) or not str(k).isdigit():
        return None
    return str(cluster), str(group), int(str(k))


def _place(member: ReadGroup) -> int:
    """Which UltraServer of its node group a per-UltraServer group is (k of its planner tags)."""
    assert member.ultraserver is not None  # asked only of groups merged by their UltraServer tags
    return member.ultraserver[2]


def merge_ultraservers(groups: list[ReadGroup]) -> list[ReadGroup]:
    """One node group again from the per-UltraServer Auto Scaling groups the components build for
    it (same planner tags, type and launch settings, one reservation each): its count the sum, its
    reservation ids in UltraServer order, as the stack declared them. Anything that differs stays apart."""
    parts: dict[tuple[str, str], list[ReadGroup]] = {}
    for g in groups:
        if g.ultraserver is not None:
            parts.setdefault(g.ultraserver[:2], []).append(g)
    out: list[ReadGroup] = []
    done: set[tuple[str, str]] = set()
    for g in groups:
        key = g.ultraserver[:2] if g.ultraserver is not None else None
        members = sorted(parts.get(key, []), key=_place) if key else []
        if key is None or len(members) < 2 or not _alike(members):
            out.append(g)
            continue
        if key in done:
            continue
        done.add(key)
        first = members[0]
        suffix = f"-us{_place(first)}"
        values = dict(first.values, capacity_reservation_id=[m.values["capacity_reservation_id"] for m in members])
        maxima = [m.maximum for m in members]
        out.append(
            replace(
                first,
                name=first.name[: -len(suffix)] if first.name.endswith(suffix) else first.name,
                count=sum(m.count for m in members),
                values=values,
                maximum=None if None in maxima else sum(m for m in maxima if m is not None),
            )
        )
    return out


def _alike(members: list[ReadGroup]) -> bool:
    """Same type, zones and launch settings but for the reservation, one distinct reservation each."""

    def same(m: ReadGroup) -> tuple[Any, ...]:
        rest = {k: v for k, v in m.values.items() if k != "capacity_reservation_id"}
        return (
            m.instance_type,
            tuple(m.zones),
            sorted(rest.items()),
            m.interfaces,
            tuple(pg.urn for pg in m.placement_groups),
            m.external_placement,
            m.volumes,
        )

    ids = [m.values.get("capacity_reservation_id") for m in members]
    return (
        all(isinstance(i, str) for i in ids)
        and len(set(ids)) == len(ids)
        and len({_place(m) for m in members}) == len(members)
        and all(same(m) == same(members[0]) for m in members)
    )
