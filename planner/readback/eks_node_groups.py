"""EKS managed node groups into node groups: `scalingConfig.desiredSize` instances of `instanceTypes[0]` or the
launch template's type, bought as `capacityType` says.
"""

from __future__ import annotations

from typing import Any

from planner.core.model.cluster import Purchase, Unplanned
from planner.readback.block_devices import eks_volumes, launch_volumes
from planner.readback.compute_groups import ReadGroup, pick_type, refused_sizes, scaled_to_zero, size_unknown, sizes
from planner.readback.launch_templates import launch_values, launched_group, template_of, zones_of
from planner.readback.resources import EKS_NODE_GROUP, SUBNET, Graph, Violation, as_int, as_list

_EKS_CAPACITY: dict[str, Purchase] = {"CAPACITY_BLOCK": "capacity-block", "SPOT": "spot", "ON_DEMAND": "on-demand"}


def eks_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[ReadGroup]:
    """EKS managed node groups: `scalingConfig.desiredSize` instances of `instanceTypes[0]` or the template's type."""
    groups = []
    for ng in graph.of_type(EKS_NODE_GROUP):
        template = template_of(graph, ng, ng.get("launchTemplate"), "launchTemplate")
        types, type_source = [t for t in as_list(ng.get("instanceTypes")) if t is not None], ng
        types_at = (ng, "instanceTypes")
        if not types and template is not None:
            types, type_source = [template.get("instanceType")], template
            types_at = (template, "instanceType")
        planned, lo, hi = sizes(
            ng.get("scalingConfig", "desiredSize"),
            ng.get("scalingConfig", "minSize"),
            ng.get("scalingConfig", "maxSize"),
        )
        itype = pick_type(types, cat, ng, gaps, unplanned, "EKS node group", planned, lo, hi, types_at)
        if itype is None:
            continue
        refused_sizes(
            "EKS node group",
            ng,
            ("scalingConfig.desiredSize", "scalingConfig.minSize", "scalingConfig.maxSize"),
            as_int(ng.get("scalingConfig", "desiredSize")),
            lo,
            hi,
            gaps,
        )
        if planned is None:
            gaps.append(size_unknown("EKS node group", ng, "scalingConfig.desiredSize"))
            continue
        if planned == 0:
            capacity = ng.get("capacityType")
            purchase = (
                _EKS_CAPACITY.get(capacity, "on-demand")
                if isinstance(capacity, str)
                else launch_values(graph, template, None)[0].get("purchase", "on-demand")
            )
            unplanned.append(scaled_to_zero("EKS node group", ng, itype, lo, hi, "scalingConfig.desiredSize", purchase))
            continue
        zones = zones_of(graph.resolve(ng, "subnetIds", as_list(ng.get("subnetIds")), SUBNET))
        volumes = launch_volumes(template) if template is not None else eks_volumes(ng)
        group = launched_group(graph, ng, template, itype, planned, hi, zones, gaps, volumes)
        capacity = ng.get("capacityType")
        if isinstance(capacity, str) and capacity in _EKS_CAPACITY:
            group.values["purchase"], group.sources["purchase"] = _EKS_CAPACITY[capacity], ng
        group.sources["instance_type"] = type_source
        groups.append(group)
    return groups
