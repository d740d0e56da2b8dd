"""EC2 instances launched directly into node groups: one group per launch template, type, AZ, placement group,
launch settings and interfaces.
"""

from __future__ import annotations

import re
from typing import Any

from planner.core.model.cluster import Unplanned
from planner.core.model.findings import Fix
from planner.readback.block_devices import launch_volumes
from planner.readback.compute_groups import ACCELERATED, LITERAL_TYPE, ReadGroup
from planner.readback.elastic_compute import unlisted_fix
from planner.readback.launch_templates import (
    interface_subnets,
    launch_values,
    template_of,
    where_launched,
    zones_of,
)
from planner.readback.resources import INSTANCE, SUBNET, Graph, Resource, Violation, change, known


def instance_groups(
    graph: Graph, cat: Any, gaps: list[Violation], unplanned: list[tuple[Unplanned, str | None]]
) -> list[ReadGroup]:
    """Instances launched directly: one group per (launch template, type, AZ, placement group, interfaces)."""
    by_key: dict[tuple[Any, ...], ReadGroup] = {}
    outside: dict[str, tuple[list[Resource], str]] = {}
    for inst in graph.of_type(INSTANCE):
        template = template_of(graph, inst, inst.get("launchTemplate"), "launchTemplate")
        itype = inst.get("instanceType")
        type_source = inst
        if not known(itype) and template is not None:
            itype, type_source = template.get("instanceType"), template
        if not known(itype):
            gaps.append(
                Violation(
                    f"cannot tell the instance type of '{inst.name}' (unknown during preview); not planned",
                    inst.urn,
                    fix=Fix(
                        edits=(change(inst, "instanceType", note=LITERAL_TYPE),),
                        alternatives=(change(template, "instanceType", note=LITERAL_TYPE),) if template else (),
                    ),
                    left_out=f"EC2 instance '{inst.name}' (instance type unknown)",
                )
            )
            continue
        if not isinstance(itype, str) or not cat.lists(itype):
            if isinstance(itype, str) and ACCELERATED.match(itype):
                outside.setdefault(itype, ([], inst.urn))[0].append(inst)
            continue
        az = inst.get("availabilityZone")
        zones = [az] if isinstance(az, str) and known(az) else []
        if not zones:
            zones = zones_of(graph.resolve(inst, "subnetId", [inst.get("subnetId")], SUBNET))
        values, sources, interfaces = launch_values(graph, template, inst, gaps)
        if not zones:
            zones = zones_of(interface_subnets(graph, inst))
        zones, pgs, external = where_launched(graph, inst, template, zones)
        sources["instance_type"] = type_source
        root = launch_volumes(template, inst)
        key = (
            template.urn if template else None,
            itype,
            tuple(zones),
            tuple(p.urn for p in pgs),
            external,
            tuple(sorted((k, str(v)) for k, v in values.items())),
            interfaces,
            root,
        )
        if key in by_key:
            by_key[key].count += 1
            continue
        name = template.name if template is not None else re.sub(r"[-_]?\d+$", "", inst.name) or inst.name
        by_key[key] = ReadGroup(
            name, itype, 1, inst, template, values, sources, pgs, zones, None, external, interfaces, root
        )
    for itype, (instances, urn) in outside.items():
        unplanned.append(
            (
                Unplanned(
                    f"{len(instances)} EC2 instance(s) ({', '.join(i.name for i in instances[:3])}"
                    f"{', ...' if len(instances) > 3 else ''})",
                    "unlisted",
                    (itype,),
                    len(instances),
                    fix=unlisted_fix((itype,)),
                ),
                urn,
            )
        )
    return list(by_key.values())
