"""The checks across fields of a declared cluster, whatever built it: one function, `check_cluster`.

A stack file, a program's resources read back, a component's arguments and the policy pack each
build `Cluster` and `NodeGroup` from what they read; each then calls `check_cluster`, so a zone
outside the region, `count` beside `ultraservers`, a type that is not an UltraServer member, two
groups of one name, a reservation beside a resource group, a VPC without its subnet or a budget
without a limit are refused the same way wherever they come from (cfn-lint's rules see a decoded
template, never its YAML). A problem is keyed by the model path of the value at fault (`path` of
the record, plus the field); each source turns that path into its own location: a stack file's
line, a program's resource.

The checks need the catalogue (UltraServer membership) and AWS's zone data, so they live here, the
lowest part of the core that may read both, rather than in `planner.core.model`.
"""

from __future__ import annotations

import re

from msgspec import Struct

from planner.core.catalogue import instance_types as _catalogue
from planner.core.catalogue import shipped_data as _data
from planner.core.model.cluster import Budget, Cluster, NodeGroup, Path


class ModelProblem(Struct, frozen=True):
    """One thing wrong across the fields of a cluster: the model path at fault and why, in one line."""

    path: Path
    message: str


def _kind(value: object) -> str:
    from planner.core.reading.fields import _kind as kind

    return kind(value)


def az_in_region(az: str, region: str) -> bool:
    """An AZ name belongs to a region when it is the region plus a zone letter (or a Local Zone suffix)."""
    return bool(re.fullmatch(re.escape(region) + r"([a-z]|-[a-z0-9-]+[a-z])", az))


def bad_zone(az: str, region: str) -> str | None:
    """Why `az` is not an Availability Zone (or Local Zone) of `region`, per AWS's data; None when it is."""
    if not az_in_region(az, region):
        return f"expected an Availability Zone of {region} (such as {region}a), got {_kind(az)}"
    regs = _data.regions()
    zones = regs.zones.get(region)
    if az in regs.local_zones or zones is None or az in zones:
        return None
    if re.fullmatch(re.escape(region) + r"[a-z]", az):
        return f"{az} is not an Availability Zone of {region}; AWS lists {', '.join(zones)}"
    return None  # a Local Zone no public source read here lists: accepted


def check_cluster(cluster: Cluster, region: str) -> list[ModelProblem]:
    """Every problem across the fields of `cluster` in `region`, in the order of its records.

    An empty Availability Zone is one the source could not tell (a program whose subnets are not
    its resources): nothing to check. A node group's or the file system's own zone is checked
    where the source declared one (`declared`); an inherited zone is the cluster's, checked once."""
    out: list[ModelProblem] = []
    path = cluster.path
    if cluster.availability_zone and region and (why := bad_zone(cluster.availability_zone, region)):
        out.append(ModelProblem(path + ("availability_zone",), why))
    seen: dict[str, int] = {}
    for position, g in enumerate(cluster.node_groups):
        index = g.path[-1] if g.path and isinstance(g.path[-1], int) else position
        if g.name in seen:
            out.append(
                ModelProblem(
                    g.path + ("name",), f"duplicate node group name '{g.name}' (also node_groups[{seen[g.name]}])"
                )
            )
        else:
            seen[g.name] = index
        out += _group_problems(g, region)
    lustre = cluster.lustre
    if lustre is not None and "availability_zone" in lustre.declared and lustre.availability_zone and region:
        if why := bad_zone(lustre.availability_zone, region):
            out.append(ModelProblem(lustre.path + ("availability_zone",), why))
    out += budget_problems(cluster.budget)
    network = cluster.network
    if network is not None and network.vpc_id is not None and network.subnet_id is None:
        out.append(
            ModelProblem(network.path, "missing required key 'subnet_id' (an existing VPC needs the subnet to use)")
        )
    return out


def budget_problems(budget: Budget | None) -> list[ModelProblem]:
    """A budget must hold a limit (a program's stack config checks its budget alone, with this)."""
    if budget is not None and budget.total_usd is None and budget.monthly_usd is None:
        return [ModelProblem(budget.path, "expected total_usd and/or monthly_usd")]
    return []


def _group_problems(g: NodeGroup, region: str) -> list[ModelProblem]:
    out: list[ModelProblem] = []
    p = g.path
    cat = _catalogue.load()
    if {"count", "ultraservers"} <= g.declared:
        out.append(ModelProblem(p + ("ultraservers",), "give either 'count' (instances) or 'ultraservers', not both"))
    options = cat.ultraservers_of(g.instance_type)
    listed = ", ".join(f"{u.name} ({u.members} instances)" for u in options)
    declared_type = (
        cat.ultraserver_types.get(g.ultraserver_type)
        if g.ultraserver_type and "ultraserver_type" in g.declared
        else None
    )
    if declared_type is not None and declared_type.member_instance_type != g.instance_type:
        out.append(
            ModelProblem(
                p + ("ultraserver_type",),
                f"{declared_type.name} is made of {declared_type.member_instance_type}, not {g.instance_type}"
                + (f"; {g.instance_type} belongs to {listed}" if options else ""),
            )
        )
    elif g.ultraserver_type is None and len(options) > 1:
        out.append(
            ModelProblem(
                p,
                f"{g.instance_type} belongs to several UltraServer types: {listed}; add ultraserver_type: with one of them",
            )
        )
    if g.ultraservers is not None and not options:
        members = ", ".join(
            sorted({u.member_instance_type for u in cat.declarable_ultraserver_types if u.member_instance_type})
        )
        out.append(
            ModelProblem(
                p + ("ultraservers",),
                f"'ultraservers' applies to UltraServer member types ({members}), not {g.instance_type}; use 'count'",
            )
        )
    if "availability_zone" in g.declared and g.availability_zone and region:
        if why := bad_zone(g.availability_zone, region):
            out.append(ModelProblem(p + ("availability_zone",), why))
    arn = g.capacity_reservation_resource_group_arn
    if g.capacity_reservation_ids and arn is not None:
        out.append(
            ModelProblem(
                p + ("capacity_reservation_resource_group_arn",),
                "give either 'capacity_reservation_id' or "
                "'capacity_reservation_resource_group_arn', not both (a launch targets one or the other)",
            )
        )
    elif arn is not None and region and len(arn.split(":")) > 3 and (arn_region := arn.split(":")[3]) != region:
        out.append(
            ModelProblem(
                p + ("capacity_reservation_resource_group_arn",),
                f"expected a resource group in the stack's region {region}, got one in {arn_region}",
            )
        )
    return out
